import { Fragment, useEffect, useState } from 'react'
import type { BridgeError, BridleApi, ModelInfo } from '../../../../protocol/contract'
import type { ProbeReport } from '../../../../protocol/probe-report'
import { CapabilityCard } from './capability-card'
import { contextWindowText, toolSupportText } from './words'

export interface ModelsTableProps {
  readonly api: BridleApi
  readonly endpointId: string
  /** The model marked as the default, when this endpoint is the default one. */
  readonly defaultModel: string | undefined
  /** Absent for an endpoint that cannot be the default (the serve override). */
  readonly onUseAsDefault?: ((model: string) => void) | undefined
}

type Listing =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly models: readonly ModelInfo[] }
  | { readonly status: 'failed'; readonly error: BridgeError }

/** One model's capability test: the last report (from `model/list` or a test run here). */
interface Probe {
  readonly isRunning: boolean
  readonly report?: ProbeReport | undefined
  readonly error?: string | undefined
}

/**
 * The endpoint's models, asked fresh (`model/list`), with their window (and where the number
 * comes from) and tool support. "Test" runs a capability probe (`model/probe`); its card shows
 * in a full-width row under the model, as does the last report the core kept.
 */
export function ModelsTable({ api, endpointId, defaultModel, onUseAsDefault }: ModelsTableProps) {
  const [listing, setListing] = useState<Listing>({ status: 'loading' })
  const [probes, setProbes] = useState<ReadonlyMap<string, Probe>>(new Map())

  useEffect(() => {
    let isCurrent = true
    void api.call('model/list', { endpointId }).then((result) => {
      if (!isCurrent) return
      setListing(
        result.ok
          ? { status: 'ready', models: result.value.models }
          : { status: 'failed', error: result.error },
      )
    })
    return () => {
      isCurrent = false
    }
  }, [api, endpointId])

  const setProbe = (model: string, change: (old: Probe | undefined) => Probe) =>
    setProbes((old) => new Map(old).set(model, change(old.get(model))))

  const runProbe = async (model: ModelInfo) => {
    setProbe(model.id, (old) => ({ report: old?.report ?? model.probe, isRunning: true }))
    const result = await api.call('model/probe', { endpointId, model: model.id })
    setProbe(model.id, (old) =>
      result.ok
        ? { report: result.value.report, isRunning: false }
        : {
            report: old?.report,
            isRunning: false,
            error: `The test of ${model.id} failed: ${result.error.message}`,
          },
    )
  }

  if (listing.status === 'loading') return <p aria-busy="true">Listing models…</p>
  if (listing.status === 'failed') {
    return (
      <p className="settings-error-text" role="alert">
        {listing.error.message}
      </p>
    )
  }
  if (listing.models.length === 0) {
    return <p className="muted">The server lists no models: load or pull one first.</p>
  }
  const columns = onUseAsDefault === undefined ? 3 : 4
  return (
    <table className="settings-table settings-models" aria-label={`Models of ${endpointId}`}>
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Context</th>
          <th scope="col">Tools</th>
          {onUseAsDefault === undefined ? null : <th scope="col">Default</th>}
        </tr>
      </thead>
      <tbody>
        {listing.models.map((model) => {
          const probe = probes.get(model.id)
          const report = probe?.report ?? model.probe
          const isRunning = probe?.isRunning === true
          return (
            <Fragment key={model.id}>
              <tr className={report === undefined ? undefined : 'has-card'}>
                <td className="settings-model-id">
                  {model.id}
                  {/* Under the name rather than in a column of its own: the drawer is narrow. */}
                  <div className="settings-model-test">
                    <button
                      type="button"
                      aria-label={`Test ${model.id}`}
                      aria-busy={isRunning}
                      disabled={isRunning}
                      title="Tests tool calls, reasoning, token counts and the context the server honours, with a few real requests"
                      onClick={() => void runProbe(model)}
                    >
                      {isRunning ? 'Testing…' : report === undefined ? 'Test' : 'Test again'}
                    </button>
                  </div>
                </td>
                <td>{contextWindowText(model)}</td>
                <td>{toolSupportText(model)}</td>
                {onUseAsDefault === undefined ? null : (
                  <td>
                    {model.id === defaultModel ? (
                      <span className="settings-badge">default</span>
                    ) : (
                      <button
                        type="button"
                        className="link"
                        aria-label={`Use ${model.id} as the default model`}
                        onClick={() => onUseAsDefault(model.id)}
                      >
                        Use
                      </button>
                    )}
                  </td>
                )}
              </tr>
              {report === undefined && probe?.error === undefined ? null : (
                <tr className="settings-card-row">
                  <td colSpan={columns}>
                    {probe?.error === undefined ? null : (
                      <p className="settings-error-text" role="alert">
                        {probe.error}
                      </p>
                    )}
                    {report === undefined ? null : (
                      <CapabilityCard report={report} endpointId={endpointId} />
                    )}
                  </td>
                </tr>
              )}
            </Fragment>
          )
        })}
      </tbody>
    </table>
  )
}
