import { useState } from 'react'
import type { SubmitEvent } from 'react'
import type { FieldError, SettingsView } from '../../../../protocol/contract'
import { withCompaction } from './config-edit'
import { COMPACTION_TARGETS, parseCompactionText, placeFieldErrors } from './field-errors'
import type { CompactionField, FieldMessages } from './field-errors'
import { Field, FormErrors } from './field'
import type { SaveSettings } from './use-settings'

export interface CompactionSectionProps {
  readonly view: SettingsView
  readonly save: SaveSettings
}

/** When compaction starts, what stays verbatim, and whether old tool outputs are pruned first. */
export function CompactionSection({ view, save }: CompactionSectionProps) {
  const { threshold, keepUserTurns, prune } = view.config.compaction
  // Remounted when the saved values change, so the draft starts from what is saved.
  return (
    <CompactionForm
      key={`${threshold}/${keepUserTurns}/${prune === false ? 'off' : 'on'}`}
      initial={{
        threshold: String(threshold),
        keepUserTurns: String(keepUserTurns),
        isPruning: prune !== false,
      }}
      save={save}
    />
  )
}

interface Draft {
  readonly threshold: string
  readonly keepUserTurns: string
  readonly isPruning: boolean
}

function CompactionForm({
  initial,
  save,
}: {
  readonly initial: Draft
  readonly save: SaveSettings
}) {
  const [draft, setDraft] = useState<Draft>(initial)
  const [errors, setErrors] = useState<FieldMessages<CompactionField>>({})
  const [unplaced, setUnplaced] = useState<readonly FieldError[]>([])
  const [message, setMessage] = useState<string | undefined>(undefined)
  const change = (patch: Partial<Draft>) => setDraft((old) => ({ ...old, ...patch }))
  const isChanged =
    draft.threshold !== initial.threshold ||
    draft.keepUserTurns !== initial.keepUserTurns ||
    draft.isPruning !== initial.isPruning
  const percent = Math.round(Number(draft.threshold) * 100)

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const parsed = parseCompactionText(draft)
    if (!parsed.ok) {
      setErrors(parsed.errors)
      return
    }
    const outcome = await save((config) =>
      withCompaction(config, {
        threshold: parsed.threshold,
        keepUserTurns: parsed.keepUserTurns,
        isPruning: draft.isPruning,
      }),
    )
    if (outcome.ok) return
    const placed = placeFieldErrors(outcome.error.fields ?? [], COMPACTION_TARGETS)
    setErrors(placed.byField)
    setUnplaced(placed.unplaced)
    setMessage(outcome.error.fields === undefined ? outcome.error.message : undefined)
  }

  return (
    <section className="settings-section" aria-labelledby="settings-compaction">
      <h2 id="settings-compaction">Compaction</h2>
      <form
        className="settings-form"
        aria-label="Compaction"
        noValidate
        onSubmit={(event) => void submit(event)}
      >
        <Field
          label="Threshold"
          error={errors.threshold}
          hint={
            Number.isFinite(percent)
              ? `Compact when a request would fill more than ${percent}% of the context window.`
              : 'A share of the context window, from 0.1 to 0.95.'
          }
        >
          {(wiring) => (
            <div className="settings-slider">
              <input
                type="range"
                min={0.1}
                max={0.95}
                step={0.05}
                value={Number.isFinite(Number(draft.threshold)) ? draft.threshold : '0.8'}
                aria-label="Threshold (slider)"
                onChange={(event) => change({ threshold: event.target.value })}
              />
              <input
                {...wiring}
                type="number"
                min={0.1}
                max={0.95}
                step={0.05}
                value={draft.threshold}
                onChange={(event) => change({ threshold: event.target.value })}
              />
            </div>
          )}
        </Field>
        <Field
          label="Keep user turns"
          error={errors.keepUserTurns}
          hint="The last turns that always stay word for word."
        >
          {(wiring) => (
            <input
              {...wiring}
              type="number"
              min={0}
              max={50}
              step={1}
              value={draft.keepUserTurns}
              onChange={(event) => change({ keepUserTurns: event.target.value })}
            />
          )}
        </Field>
        <Field
          label="Prune old tool outputs first"
          isInline
          error={errors.prune}
          hint="Large outputs of older steps leave the view (a stub keeps their reference) before anything is summarised."
        >
          {(wiring) => (
            <input
              {...wiring}
              type="checkbox"
              checked={draft.isPruning}
              onChange={(event) => change({ isPruning: event.target.checked })}
            />
          )}
        </Field>
        <FormErrors message={message} fields={unplaced} />
        <div className="settings-actions">
          <button type="submit" className="primary" disabled={!isChanged}>
            Save compaction
          </button>
        </div>
      </form>
    </section>
  )
}
