import { useState } from 'react'
import type { SubmitEvent } from 'react'
import type { FieldError, SettingsView } from '../../../../preload/contract'
import { withDefaults } from './config-edit'
import { DEFAULTS_TARGETS, placeFieldErrors } from './field-errors'
import type { DefaultsField, FieldMessages } from './field-errors'
import { Field, FormErrors } from './field'
import type { SaveSettings } from './use-settings'

export interface DefaultsFormProps {
  readonly view: SettingsView
  readonly save: SaveSettings
}

/**
 * The endpoint and model new sessions use. Keyed by the saved values so that a default chosen
 * elsewhere (a model's "Use" button, another window) replaces the draft.
 */
export function DefaultsForm({ view, save }: DefaultsFormProps) {
  const endpointId = view.config.defaultEndpoint ?? ''
  const model = view.config.defaultModel ?? ''
  return (
    <DefaultsDraft
      key={`${endpointId}\n${model}`}
      ids={Object.keys(view.config.endpoints)}
      initial={{ endpointId, model }}
      save={save}
    />
  )
}

interface Defaults {
  readonly endpointId: string
  readonly model: string
}

function DefaultsDraft({
  ids,
  initial,
  save,
}: {
  readonly ids: readonly string[]
  readonly initial: Defaults
  readonly save: SaveSettings
}) {
  const [draft, setDraft] = useState<Defaults>(initial)
  const [errors, setErrors] = useState<FieldMessages<DefaultsField>>({})
  const [unplaced, setUnplaced] = useState<readonly FieldError[]>([])
  const [message, setMessage] = useState<string | undefined>(undefined)
  const isChanged = draft.endpointId !== initial.endpointId || draft.model !== initial.model

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const outcome = await save((config) => withDefaults(config, draft))
    if (outcome.ok) return
    const placed = placeFieldErrors(outcome.error.fields ?? [], DEFAULTS_TARGETS)
    setErrors(placed.byField)
    setUnplaced(placed.unplaced)
    setMessage(outcome.error.fields === undefined ? outcome.error.message : undefined)
  }

  return (
    <form className="settings-form" aria-label="Defaults" onSubmit={(event) => void submit(event)}>
      <h4>Defaults for new sessions</h4>
      <Field
        label="Default endpoint"
        error={errors.endpointId}
        hint={
          draft.endpointId === '' ? 'None chosen: the only endpoint, if there is one.' : undefined
        }
      >
        {(wiring) => (
          <select
            {...wiring}
            value={draft.endpointId}
            onChange={(event) => setDraft((old) => ({ ...old, endpointId: event.target.value }))}
          >
            <option value="">(none)</option>
            {ids.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Default model"
        error={errors.model}
        hint="Empty: the server's first model. Or pick one with “Use” in an endpoint's models."
      >
        {(wiring) => (
          <input
            {...wiring}
            value={draft.model}
            placeholder="qwen3:8b"
            autoComplete="off"
            spellCheck={false}
            onChange={(event) => setDraft((old) => ({ ...old, model: event.target.value }))}
          />
        )}
      </Field>
      <FormErrors message={message} fields={unplaced} />
      <div className="settings-actions">
        <button type="submit" disabled={!isChanged}>
          Save defaults
        </button>
      </div>
    </form>
  )
}
