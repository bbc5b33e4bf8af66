import { useState } from 'react'
import type { SubmitEvent } from 'react'
import type { BridleApi, FieldError } from '../../../../protocol/contract'
import { withEndpoint } from './config-edit'
import type { EndpointDraft } from './config-edit'
import { checkEndpointDraft, endpointTargets, hasErrors, placeFieldErrors } from './field-errors'
import type { EndpointField, FieldMessages } from './field-errors'
import { Field, FormErrors } from './field'
import { TestResultView } from './test-result'
import type { EndpointTestResult } from './test-result'
import type { SaveSettings } from './use-settings'

export interface EndpointFormProps {
  readonly api: BridleApi
  readonly save: SaveSettings
  /** `add`: a new id; `edit`: the id is fixed (a key belongs to its endpoint's id). */
  readonly mode: 'add' | 'edit'
  readonly initial: EndpointDraft
  readonly existingIds: readonly string[]
  /** After a successful save, or on cancel. */
  readonly onClose: () => void
}

interface Problems {
  readonly byField: FieldMessages<EndpointField>
  readonly unplaced: readonly FieldError[]
  readonly message?: string
}

const NO_PROBLEMS: Problems = { byField: {}, unplaced: [] }

/**
 * Adds or edits one endpoint. Obvious mistakes are caught here; the rest come back from
 * `settings/update` as field paths and are put next to their inputs the same way.
 */
export function EndpointForm({
  api,
  save,
  mode,
  initial,
  existingIds,
  onClose,
}: EndpointFormProps) {
  const [draft, setDraft] = useState<EndpointDraft>(initial)
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS)
  const [isBusy, setBusy] = useState(false)
  const [test, setTest] = useState<EndpointTestResult | undefined>(undefined)
  const change = (patch: Partial<EndpointDraft>) => setDraft((old) => ({ ...old, ...patch }))

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const local = checkEndpointDraft(draft, { existingIds, isNew: mode === 'add' })
    if (hasErrors(local)) {
      setProblems({ byField: local, unplaced: [] })
      return
    }
    setBusy(true)
    const outcome = await save((config) => withEndpoint(config, draft))
    setBusy(false)
    if (outcome.ok) {
      onClose()
      return
    }
    const placed = placeFieldErrors(outcome.error.fields ?? [], endpointTargets(draft.id))
    const isExplained = Object.keys(placed.byField).length > 0 || placed.unplaced.length > 0
    setProblems({ ...placed, ...(isExplained ? {} : { message: outcome.error.message }) })
  }

  /** Tries the address as typed, before saving (sent without any key). */
  const tryUrl = async () => {
    const local = checkEndpointDraft(draft, { existingIds, isNew: false })
    if (local.baseUrl !== undefined) {
      setProblems({ byField: { baseUrl: local.baseUrl }, unplaced: [] })
      return
    }
    setTest(undefined)
    const result = await api.call('endpoint/test', { baseUrl: draft.baseUrl.trim() })
    if (result.ok) setTest(result.value)
    else setProblems({ ...NO_PROBLEMS, message: result.error.message })
  }

  const title = mode === 'add' ? 'Add an endpoint' : `Edit ${initial.id}`
  return (
    <form
      className="settings-form"
      aria-label={title}
      noValidate
      onSubmit={(event) => void submit(event)}
    >
      <h3>{title}</h3>
      <Field label="Name" error={problems.byField.id}>
        {(wiring) => (
          <input
            {...wiring}
            value={draft.id}
            disabled={mode === 'edit'}
            placeholder="local"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => change({ id: event.target.value })}
          />
        )}
      </Field>
      <Field
        label="Base URL"
        error={problems.byField.baseUrl}
        hint={
          mode === 'edit'
            ? 'A stored key stays with its server: pointing this endpoint at another server means setting the key again.'
            : 'The OpenAI-compatible address, usually ending in /v1.'
        }
      >
        {(wiring) => (
          <input
            {...wiring}
            type="url"
            value={draft.baseUrl}
            placeholder="http://127.0.0.1:11434/v1"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => change({ baseUrl: event.target.value })}
          />
        )}
      </Field>
      <Field
        label="API key variable (optional)"
        error={problems.byField.apiKeyEnv}
        hint="The name of an environment variable holding the key. Or store the key itself after saving."
      >
        {(wiring) => (
          <input
            {...wiring}
            value={draft.apiKeyEnv}
            placeholder="OPENAI_API_KEY"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => change({ apiKeyEnv: event.target.value })}
          />
        )}
      </Field>
      <FormErrors message={problems.message} fields={problems.unplaced} />
      {test === undefined ? null : <TestResultView result={test} />}
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={isBusy}>
          {isBusy ? 'Saving…' : 'Save endpoint'}
        </button>
        <button type="button" onClick={() => void tryUrl()}>
          Try this URL
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  )
}
