import { useState } from 'react'
import type { ReactNode, SubmitEvent } from 'react'
import type { FieldError, SettingsView } from '../../../../protocol/contract'
import type { Config } from '../../../../protocol/settings'
import { withDefaults, withProjectDefaults } from './config-edit'
import { DEFAULTS_TARGETS, placeFieldErrors } from './field-errors'
import type { DefaultsField, FieldMessages } from './field-errors'
import { Field, FormErrors } from './field'
import type { SaveSettings } from './use-settings'
import { Select } from '../../ui/select'

export interface DefaultsFormProps {
  readonly view: SettingsView
  readonly save: SaveSettings
  /** The open project, whose own defaults are offered below the global ones. */
  readonly projectDir?: string | undefined
}

/**
 * The endpoint and model new sessions use: the global defaults, and the open project's own
 * (which win for its sessions). Keyed by the saved values so that a default chosen elsewhere
 * (a model's "Use" button, another window) replaces the draft.
 */
export function DefaultsForm({ view, save, projectDir }: DefaultsFormProps) {
  const endpointId = view.config.defaultEndpoint ?? ''
  const model = view.config.defaultModel ?? ''
  const ids = Object.keys(view.config.endpoints)
  const own = projectDir === undefined ? undefined : view.config.projects[projectDir]
  return (
    <>
      <DefaultsDraft
        key={`${endpointId}\n${model}`}
        ids={ids}
        initial={{ endpointId, model }}
        save={save}
        scope={GLOBAL_SCOPE}
      />
      {projectDir !== undefined && (
        <DefaultsDraft
          key={`${projectDir}\n${own?.endpoint ?? ''}\n${own?.model ?? ''}`}
          ids={ids}
          initial={{ endpointId: own?.endpoint ?? '', model: own?.model ?? '' }}
          save={save}
          scope={projectScope(projectDir)}
        />
      )}
    </>
  )
}

interface Defaults {
  readonly endpointId: string
  readonly model: string
}

/** What differs between the global defaults and a project's: words, the edit, error paths. */
interface Scope {
  readonly name: string
  readonly title: ReactNode
  readonly endpointLabel: string
  readonly modelLabel: string
  readonly saveLabel: string
  readonly noEndpoint: string
  readonly endpointHint: string
  readonly modelHint: string
  readonly edit: (config: Config, draft: Defaults) => Config
  readonly targets: Readonly<Record<string, DefaultsField>>
}

const GLOBAL_SCOPE: Scope = {
  name: 'Defaults',
  title: 'Defaults for new sessions',
  endpointLabel: 'Default endpoint',
  modelLabel: 'Default model',
  saveLabel: 'Save defaults',
  noEndpoint: '(none)',
  endpointHint: 'None chosen: the only endpoint, if there is one.',
  modelHint: 'Empty: the server’s first model. Or pick one with “Use” in an endpoint’s models.',
  edit: withDefaults,
  targets: DEFAULTS_TARGETS,
}

function projectScope(projectDir: string): Scope {
  return {
    name: 'Project defaults',
    endpointLabel: 'Project endpoint',
    modelLabel: 'Project model',
    saveLabel: 'Save project defaults',
    title: (
      <>
        For this project <code>{projectDir}</code>
      </>
    ),
    noEndpoint: '(the global default)',
    endpointHint: 'New sessions in this folder use these instead of the global defaults.',
    modelHint:
      'Empty: the global default model (with the global endpoint), else the server’s first.',
    edit: (config, draft) => withProjectDefaults(config, projectDir, draft),
    targets: {
      [`projects.${projectDir}.endpoint`]: 'endpointId',
      [`projects.${projectDir}.model`]: 'model',
    },
  }
}

function DefaultsDraft({
  ids,
  initial,
  save,
  scope,
}: {
  readonly ids: readonly string[]
  readonly initial: Defaults
  readonly save: SaveSettings
  readonly scope: Scope
}) {
  const [draft, setDraft] = useState<Defaults>(initial)
  const [errors, setErrors] = useState<FieldMessages<DefaultsField>>({})
  const [unplaced, setUnplaced] = useState<readonly FieldError[]>([])
  const [message, setMessage] = useState<string | undefined>(undefined)
  const isChanged = draft.endpointId !== initial.endpointId || draft.model !== initial.model

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const outcome = await save((config) => scope.edit(config, draft))
    if (outcome.ok) return
    const placed = placeFieldErrors(outcome.error.fields ?? [], scope.targets)
    setErrors(placed.byField)
    setUnplaced(placed.unplaced)
    setMessage(outcome.error.fields === undefined ? outcome.error.message : undefined)
  }

  return (
    <form
      className="settings-form"
      aria-label={scope.name}
      onSubmit={(event) => void submit(event)}
    >
      <h3>{scope.title}</h3>
      <Field
        label={scope.endpointLabel}
        error={errors.endpointId}
        hint={draft.endpointId === '' ? scope.endpointHint : undefined}
      >
        {(wiring) => (
          <Select
            {...wiring}
            label={scope.endpointLabel}
            value={draft.endpointId}
            options={[
              { value: '', label: scope.noEndpoint },
              ...ids.map((id) => ({ value: id, label: id })),
            ]}
            onValueChange={(endpointId) => setDraft((old) => ({ ...old, endpointId }))}
          />
        )}
      </Field>
      <Field label={scope.modelLabel} error={errors.model} hint={scope.modelHint}>
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
          {scope.saveLabel}
        </button>
      </div>
    </form>
  )
}
