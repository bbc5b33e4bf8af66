import { useState } from 'react'
import type { BridleApi, EndpointInfo } from '../../../../protocol/contract'
import type { Config } from '../../../../protocol/settings'
import { withDefaults, withoutEndpoint } from './config-edit'
import { EndpointForm } from './endpoint-form'
import { KeyForm } from './key-form'
import { ModelsTable } from './models-table'
import { TestResultView } from './test-result'
import type { EndpointTestResult } from './test-result'
import type { SaveSettings } from './use-settings'
import { keyStateText } from './words'

export interface EndpointCardProps {
  readonly api: BridleApi
  readonly info: EndpointInfo
  readonly config: Config
  readonly save: SaveSettings
}

type Open = 'none' | 'edit' | 'models' | 'key'

/**
 * One endpoint: its address, whether it is the default, its key state, and what can be done with
 * it. The `bridle serve --base-url` endpoint is not in config.json: it can be tested and listed,
 * not edited, removed or given a key.
 */
export function EndpointCard({ api, info, config, save }: EndpointCardProps) {
  const [open, setOpen] = useState<Open>('none')
  const [test, setTest] = useState<EndpointTestResult | undefined>(undefined)
  const [isTesting, setTesting] = useState(false)
  const [isConfirmingRemove, setConfirmingRemove] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const saved = config.endpoints[info.id]
  const isConfigured = saved !== undefined
  // Not always `info.isDefault`: the serve override is the default while it is given.
  const isSavedDefault = config.defaultEndpoint === info.id
  const toggle = (panel: Open) => setOpen((old) => (old === panel ? 'none' : panel))

  const runTest = async () => {
    setTesting(true)
    setTest(undefined)
    const result = await api.call('endpoint/test', { endpointId: info.id })
    setTesting(false)
    if (result.ok) setTest(result.value)
    else setError(result.error.message)
  }

  const apply = async (edit: (config: Config) => Config) => {
    const outcome = await save(edit)
    setError(outcome.ok ? undefined : outcome.error.message)
  }

  const useModel = (model: string) =>
    void apply((c) => withDefaults(c, { endpointId: info.id, model }))

  return (
    <li className="settings-endpoint" aria-label={`Endpoint ${info.id}`}>
      <div className="settings-endpoint-head">
        <strong>{info.id}</strong>
        {info.isDefault ? <span className="settings-badge accent">default</span> : null}
        {isSavedDefault && !info.isDefault ? (
          <span className="settings-badge">saved default</span>
        ) : null}
        <span
          className={`settings-badge key-${info.key}`}
          data-testid={`key-state-${info.id}`}
          title="Where this endpoint's API key comes from"
        >
          {keyStateText(info)}
        </span>
      </div>
      <code className="settings-url">{info.baseUrl}</code>
      {isConfigured ? null : (
        <p className="settings-hint">
          From <code>bridle serve --base-url</code>; its key comes from <code>--api-key-env</code>.
        </p>
      )}
      {isSavedDefault && !info.isDefault ? (
        <p className="settings-hint">
          The default in config.json; the <code>bridle serve --base-url</code> endpoint is used
          instead while it is given.
        </p>
      ) : null}
      {isSavedDefault && config.defaultModel !== undefined ? (
        <p className="settings-hint">Default model: {config.defaultModel}</p>
      ) : null}
      <div className="settings-actions">
        <button type="button" disabled={isTesting} onClick={() => void runTest()}>
          {isTesting ? 'Testing…' : 'Test'}
        </button>
        <button type="button" aria-expanded={open === 'models'} onClick={() => toggle('models')}>
          Models
        </button>
        {isConfigured ? (
          <>
            <button type="button" aria-expanded={open === 'key'} onClick={() => toggle('key')}>
              API key
            </button>
            <button type="button" aria-expanded={open === 'edit'} onClick={() => toggle('edit')}>
              Edit
            </button>
            {isSavedDefault ? null : (
              <button
                type="button"
                onClick={() =>
                  void apply((c) => withDefaults(c, { endpointId: info.id, model: '' }))
                }
              >
                Make default
              </button>
            )}
            {isConfirmingRemove ? (
              <>
                <button
                  type="button"
                  className="danger"
                  onClick={() => void apply((c) => withoutEndpoint(c, info.id))}
                >
                  Remove {info.id}
                </button>
                <button type="button" onClick={() => setConfirmingRemove(false)}>
                  Keep
                </button>
              </>
            ) : (
              <button type="button" onClick={() => setConfirmingRemove(true)}>
                Remove…
              </button>
            )}
          </>
        ) : null}
      </div>
      {error === undefined ? null : (
        <p className="settings-error-text" role="alert">
          {error}
        </p>
      )}
      {test === undefined ? null : <TestResultView result={test} />}
      {open === 'models' ? (
        <ModelsTable
          api={api}
          endpointId={info.id}
          defaultModel={isSavedDefault ? config.defaultModel : undefined}
          onUseAsDefault={isConfigured ? useModel : undefined}
        />
      ) : null}
      {open === 'key' && isConfigured ? <KeyForm api={api} endpoint={info} /> : null}
      {open === 'edit' && isConfigured ? (
        <EndpointForm
          api={api}
          save={save}
          mode="edit"
          initial={{ id: info.id, baseUrl: saved.baseUrl, apiKeyEnv: saved.apiKeyEnv ?? '' }}
          existingIds={Object.keys(config.endpoints)}
          onClose={() => setOpen('none')}
        />
      ) : null}
    </li>
  )
}
