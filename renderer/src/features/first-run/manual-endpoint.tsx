import { useState } from 'react'
import type { SubmitEvent } from 'react'
import type { BridleApi, FieldError } from '../../../../protocol/contract'
import { withDefaultEndpoint } from '../settings'
import type { EndpointDraft } from '../settings'
import { Field, FormErrors } from '../settings'
import { checkEndpointDraft, endpointTargets, hasErrors, placeFieldErrors } from '../settings'
import type { EndpointField, FieldMessages } from '../settings'
import type { SaveSettings } from '../settings'

export interface ManualEndpointProps {
  readonly api: BridleApi
  readonly save: SaveSettings
  readonly existingIds: readonly string[]
  readonly onDone: () => void
}

type ManualField = EndpointField | 'key' | 'model'

interface Problems {
  readonly byField: FieldMessages<ManualField>
  readonly unplaced: readonly FieldError[]
  readonly message?: string | undefined
}

const NONE: Problems = { byField: {}, unplaced: [] }

/**
 * An API endpoint by hand: its address tried first (with the key, if any), then saved as the
 * default endpoint, its key stored (a key can only be bound to a saved endpoint's server), and
 * tested again as saved. A failed try or test is shown with the choice to go on anyway, since
 * the server may just not be up yet.
 */
export function ManualEndpoint({ api, save, existingIds, onDone }: ManualEndpointProps) {
  const [draft, setDraft] = useState<EndpointDraft>({ id: 'api', baseUrl: '', apiKeyEnv: '' })
  const [key, setKey] = useState('')
  const [model, setModel] = useState('')
  const [problems, setProblems] = useState<Problems>(NONE)
  const [isBusy, setBusy] = useState(false)
  // Once saved, submitting again (say, after a rejected key) updates it rather than clashing.
  const [savedId, setSavedId] = useState<string | undefined>(undefined)
  const [failedTest, setFailedTest] = useState<string | undefined>(undefined)

  // The address did not answer, or refused the key: said with what to try, and not saved
  // unless asked to. `withKey` says whether the key went with the try.
  const [refused, setRefused] = useState<{ message: string; withKey: boolean } | undefined>(
    undefined,
  )
  const submit = async (event: SubmitEvent | undefined, isSavingAnyway = false) => {
    event?.preventDefault()
    setFailedTest(undefined)
    const isNew = draft.id.trim() !== savedId
    const local = checkEndpointDraft(draft, { existingIds, isNew })
    if (hasErrors(local)) {
      setProblems({ byField: local, unplaced: [] })
      return
    }
    setBusy(true)
    // The address is tried, with the key when there is one, before anything is saved.
    if (!isSavingAnyway) {
      const apiKey = key.trim() === '' ? undefined : key
      const probe = await api.call('endpoint/test', { baseUrl: draft.baseUrl.trim(), apiKey })
      if (!(probe.ok && probe.value.ok)) {
        setBusy(false)
        const message = capitalize(probe.ok ? probe.value.message : probe.error.message)
        setRefused({ message, withKey: apiKey !== undefined })
        return
      }
    }
    setRefused(undefined)
    const failure = await saveAll()
    setBusy(false)
    if (failure !== undefined) setProblems(failure)
  }

  /** Undefined when everything worked (and onDone was called or the failed test is shown). */
  const saveAll = async (): Promise<Problems | undefined> => {
    const id = draft.id.trim()
    const outcome = await save((config) => withDefaultEndpoint(config, draft, model))
    if (!outcome.ok) {
      const placed = placeFieldErrors<ManualField>(outcome.error.fields ?? [], {
        ...endpointTargets(id),
        defaultModel: 'model',
      })
      const isExplained = Object.keys(placed.byField).length + placed.unplaced.length > 0
      return isExplained ? placed : { ...NONE, message: outcome.error.message }
    }
    setSavedId(id)
    if (key.trim() !== '') {
      const stored = await api.call('credential/set', { endpointId: id, value: key })
      setKey('')
      if (!stored.ok) return { byField: { key: stored.error.message }, unplaced: [] }
    }
    setProblems(NONE)
    const test = await api.call('endpoint/test', { endpointId: id })
    if (test.ok && test.value.ok) {
      onDone()
      return undefined
    }
    setFailedTest(test.ok ? test.value.message : test.error.message)
    return undefined
  }

  const change = (patch: Partial<EndpointDraft>) => setDraft((old) => ({ ...old, ...patch }))
  return (
    <form
      className="first-run-manual"
      aria-label="Enter an API endpoint"
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <Field
        label="Base URL"
        error={problems.byField.baseUrl}
        hint="e.g. https://api.openai.com/v1"
      >
        {(wiring) => (
          <input
            {...wiring}
            type="url"
            value={draft.baseUrl}
            placeholder="https://api.example.com/v1"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => change({ baseUrl: event.target.value })}
          />
        )}
      </Field>
      <Field
        label="API key (optional)"
        error={problems.byField.key}
        hint="Kept in the OS keychain (or a private file), never in config.json."
      >
        {(wiring) => (
          <input
            {...wiring}
            type="password"
            value={key}
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setKey(event.target.value)}
          />
        )}
      </Field>
      <div className="first-run-row">
        <Field label="Name" error={problems.byField.id}>
          {(wiring) => (
            <input
              {...wiring}
              value={draft.id}
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => change({ id: event.target.value })}
            />
          )}
        </Field>
        <Field label="Model (optional)" error={problems.byField.model}>
          {(wiring) => (
            <input
              {...wiring}
              value={model}
              placeholder="the server's first"
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => setModel(event.target.value)}
            />
          )}
        </Field>
      </div>
      {problems.byField.apiKeyEnv === undefined ? null : (
        <p className="settings-field-error" role="alert">
          {problems.byField.apiKeyEnv}
        </p>
      )}
      <FormErrors message={problems.message} fields={problems.unplaced} />
      {refused === undefined ? null : (
        <div className="settings-test is-failed" role="alert">
          <strong>Not saved</strong>
          <p>{refused.message}</p>
          {refused.withKey ? null : (
            <p className="muted">
              Ollama listens on 11434, LM Studio on 1234, llama.cpp on 8080 and vLLM on 8000.
            </p>
          )}
          <button type="button" onClick={() => void submit(undefined, true)}>
            Save anyway
          </button>
        </div>
      )}
      {failedTest === undefined ? null : (
        <div className="settings-test is-failed" role="status">
          <strong>Saved, but not working yet</strong>
          <p>{failedTest}</p>
        </div>
      )}
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={isBusy}>
          {isBusy
            ? 'Connecting…'
            : savedId === undefined
              ? 'Save and connect'
              : 'Save and try again'}
        </button>
        {failedTest === undefined ? null : (
          <button type="button" onClick={onDone}>
            Continue anyway
          </button>
        )}
      </div>
    </form>
  )
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
