import { useEffect, useState } from 'react'
import type { BridgeError, BridleApi, ModelInfo } from '../../../../preload/contract'
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

/** The endpoint's models, asked fresh (`model/list`), with window and tool support. */
export function ModelsTable({ api, endpointId, defaultModel, onUseAsDefault }: ModelsTableProps) {
  const [listing, setListing] = useState<Listing>({ status: 'loading' })

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
  return (
    <table className="settings-table" aria-label={`Models of ${endpointId}`}>
      <thead>
        <tr>
          <th scope="col">Model</th>
          <th scope="col">Context</th>
          <th scope="col">Tools</th>
          {onUseAsDefault === undefined ? null : <th scope="col">Default</th>}
        </tr>
      </thead>
      <tbody>
        {listing.models.map((model) => (
          <tr key={model.id}>
            <td className="settings-model-id">{model.id}</td>
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
        ))}
      </tbody>
    </table>
  )
}
