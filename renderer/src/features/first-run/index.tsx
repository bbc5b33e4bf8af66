import { useState } from 'react'
import type { BridleApi, DiscoveredServer } from '../../../../protocol/contract'
import { endpointIdWithUrl, withDiscoveredServer } from '../settings'
import { DiscoveredServers } from '../settings'
import { FormErrors } from '../settings'
import { useDiscovery } from '../settings'
import { useSettings } from '../settings'
import type { SettingsHandle } from '../settings'
import { ManualEndpoint } from './manual-endpoint'
import { ServerHelp } from './server-help'
import './first-run.css'

export interface FirstRunProps {
  readonly api: BridleApi
  /** Called once an endpoint is configured (the shell then shows the normal layout). */
  readonly onDone: () => void
}

/**
 * Shown while no endpoint is configured: looks for local servers at once and offers each with one
 * click; when none answers, says how to start one, and always offers an API endpoint by hand.
 * Every failure is a sentence on the screen, never a blank page.
 */
export function FirstRun({ api, onDone }: FirstRunProps) {
  const settings = useSettings(api)
  const { discovery, run } = useDiscovery(api, { runAtStart: true })
  const [isAdding, setAdding] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const config = settings.state.status === 'ready' ? settings.state.view.config : undefined

  const use = async (server: DiscoveredServer) => {
    setAdding(true)
    const outcome = await settings.save((c) => withDiscoveredServer(c, server, true).config)
    setAdding(false)
    if (outcome.ok) onDone()
    else setError(outcome.error.message)
  }

  const isSearching = discovery.status === 'searching'
  return (
    <div className="first-run" role="region" aria-label="Connect a model">
      <div className="first-run-card">
        <h1>Connect a model</h1>
        <p className="muted">
          Bridle talks to an OpenAI-compatible model server: one running on this computer, or an API
          on the network.
        </p>
        <SettingsProblem settings={settings} />
        <section
          className="first-run-section"
          aria-labelledby="first-run-local"
          aria-busy={isSearching}
        >
          <div className="first-run-section-head">
            <h2 id="first-run-local">On this computer</h2>
            <button type="button" disabled={isSearching} onClick={run}>
              {isSearching ? 'Looking…' : 'Look again'}
            </button>
          </div>
          {isSearching ? <p role="status">Looking for local model servers…</p> : null}
          {discovery.status === 'done' && discovery.servers.length > 0 ? (
            <DiscoveredServers
              servers={discovery.servers}
              configuredAs={(server) =>
                config === undefined ? undefined : endpointIdWithUrl(config, server.baseUrl)
              }
              actionLabel="Use this server"
              isBusy={isAdding || config === undefined}
              onPick={(server) => void use(server)}
            />
          ) : null}
          {discovery.status === 'done' && discovery.servers.length === 0 ? <ServerHelp /> : null}
          {discovery.status === 'failed' ? (
            <>
              <p className="settings-error-text" role="alert">
                Could not look for local servers: {discovery.message}
              </p>
              <ServerHelp />
            </>
          ) : null}
          {error === undefined ? null : (
            <p className="settings-error-text" role="alert">
              {error}
            </p>
          )}
        </section>
        <section className="first-run-section" aria-labelledby="first-run-api">
          <h2 id="first-run-api">Or enter an API endpoint</h2>
          <ManualEndpoint
            api={api}
            save={settings.save}
            existingIds={config === undefined ? [] : Object.keys(config.endpoints)}
            onDone={onDone}
          />
        </section>
      </div>
    </div>
  )
}

/** The settings could not be read (a broken config.json): say so, and how to recover. */
function SettingsProblem({ settings }: { readonly settings: SettingsHandle }) {
  if (settings.state.status !== 'failed') return null
  const { error } = settings.state
  return (
    <>
      <FormErrors
        message={`The settings could not be read: ${error.message}. Fix or remove config.json in the data folder, then read again.`}
        fields={error.fields ?? []}
      />
      <div className="settings-actions">
        <button type="button" onClick={settings.reload}>
          Read again
        </button>
      </div>
    </>
  )
}
