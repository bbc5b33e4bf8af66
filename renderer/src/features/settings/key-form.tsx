import { useState } from 'react'
import type { SubmitEvent } from 'react'
import type { BridleApi, EndpointInfo } from '../../../../protocol/contract'
import { Field } from './field'

export interface KeyFormProps {
  readonly api: BridleApi
  readonly endpoint: EndpointInfo
}

/**
 * Stores or forgets an endpoint's API key. The key goes one way: the input is a password field
 * cleared as soon as the key is sent, and what comes back (and is shown) is only the key state.
 */
export function KeyForm({ api, endpoint }: KeyFormProps) {
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | undefined>(undefined)
  const [isBusy, setBusy] = useState(false)

  const store = async (event: SubmitEvent) => {
    event.preventDefault()
    if (value.trim() === '') {
      setError('paste the key first')
      return
    }
    setBusy(true)
    const result = await api.call('credential/set', { endpointId: endpoint.id, value })
    setBusy(false)
    // The key leaves the page's state either way: a failed key is typed again, not kept around.
    setValue('')
    setError(result.ok ? undefined : result.error.message)
  }

  const forget = async () => {
    setBusy(true)
    const result = await api.call('credential/delete', { endpointId: endpoint.id })
    setBusy(false)
    setError(result.ok ? undefined : result.error.message)
  }

  const isStored = endpoint.key === 'stored'
  return (
    <form
      className="settings-key"
      aria-label={`API key of ${endpoint.id}`}
      onSubmit={(event) => void store(event)}
    >
      <Field
        label={isStored ? `Replace the API key of ${endpoint.id}` : `API key for ${endpoint.id}`}
        error={error}
      >
        {(wiring) => (
          <input
            {...wiring}
            type="password"
            value={value}
            autoComplete="off"
            spellCheck={false}
            placeholder={isStored ? 'a key is stored' : 'paste the key'}
            onChange={(event) => setValue(event.target.value)}
          />
        )}
      </Field>
      <div className="settings-actions">
        <button type="submit" disabled={isBusy}>
          Store key
        </button>
        {isStored ? (
          <button type="button" disabled={isBusy} onClick={() => void forget()}>
            Forget key
          </button>
        ) : null}
      </div>
    </form>
  )
}
