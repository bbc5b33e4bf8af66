import { useState } from 'react'
import type { BridleApi, DiscoveredServer, SettingsView } from '../../../../protocol/contract'
import { endpointIdWithUrl, withDiscoveredServer } from './config-edit'
import { DefaultsForm } from './defaults-form'
import { DiscoveredServers } from './discovered-servers'
import { EndpointCard } from './endpoint-card'
import { EndpointForm } from './endpoint-form'
import { useDiscovery } from './use-discovery'
import type { SaveSettings } from './use-settings'

export interface EndpointsSectionProps {
  readonly api: BridleApi
  readonly view: SettingsView
  readonly save: SaveSettings
  readonly projectDir?: string | undefined
}

/** The model endpoints: the list, adding one by hand or from the local servers found, defaults. */
export function EndpointsSection({ api, view, save, projectDir }: EndpointsSectionProps) {
  const [isAdding, setAdding] = useState(false)
  const ids = Object.keys(view.config.endpoints)
  return (
    <section className="settings-section" aria-labelledby="settings-endpoints">
      <h2 id="settings-endpoints">Endpoints</h2>
      {view.endpoints.length === 0 ? (
        <p className="muted">No endpoint yet: add one, or find the servers running here.</p>
      ) : (
        <ul className="settings-endpoints">
          {view.endpoints.map((info) => (
            <EndpointCard key={info.id} api={api} info={info} config={view.config} save={save} />
          ))}
        </ul>
      )}
      {isAdding ? (
        <EndpointForm
          api={api}
          save={save}
          mode="add"
          initial={{ id: ids.length === 0 ? 'local' : '', baseUrl: '', apiKeyEnv: '' }}
          existingIds={ids}
          onClose={() => setAdding(false)}
        />
      ) : (
        <div className="settings-actions">
          <button type="button" onClick={() => setAdding(true)}>
            Add endpoint
          </button>
        </div>
      )}
      <LocalServers api={api} view={view} save={save} />
      <DefaultsForm view={view} save={save} projectDir={projectDir} />
    </section>
  )
}

/** `endpoint/discover` on demand, each server found offered with "Add". */
function LocalServers({ api, view, save }: EndpointsSectionProps) {
  const { discovery, run } = useDiscovery(api, { runAtStart: false })
  const [error, setError] = useState<string | undefined>(undefined)
  const add = async (server: DiscoveredServer) => {
    // With no default yet, the first server added becomes it (with its first model).
    const outcome = await save(
      (config) => withDiscoveredServer(config, server, config.defaultEndpoint === undefined).config,
    )
    setError(outcome.ok ? undefined : outcome.error.message)
  }
  return (
    <div className="settings-discover">
      <div className="settings-actions">
        <button type="button" disabled={discovery.status === 'searching'} onClick={run}>
          {discovery.status === 'searching' ? 'Looking…' : 'Find local servers'}
        </button>
      </div>
      {discovery.status === 'done' && discovery.servers.length === 0 ? (
        <p className="muted" role="status">
          No server answered on the usual ports (Ollama 11434, LM Studio 1234, llama.cpp 8080, vLLM
          8000).
        </p>
      ) : null}
      {discovery.status === 'done' && discovery.servers.length > 0 ? (
        <DiscoveredServers
          servers={discovery.servers}
          configuredAs={(server) => endpointIdWithUrl(view.config, server.baseUrl)}
          actionLabel="Add"
          onPick={(server) => void add(server)}
        />
      ) : null}
      {discovery.status === 'failed' ? (
        <p className="settings-error-text" role="alert">
          {discovery.message}
        </p>
      ) : null}
      {error === undefined ? null : (
        <p className="settings-error-text" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
