import { useState } from 'react'
import type { FieldError, SettingsView } from '../../../../protocol/contract'
import { withSandbox } from './config-edit'
import type { SandboxMode } from './config-edit'
import { placeFieldErrors } from './field-errors'
import { FormErrors } from './field'
import { ModeChoices } from './mode-choices'
import type { SaveSettings } from './use-settings'
import { SANDBOX_MODES } from './words'

export interface SandboxSectionProps {
  readonly view: SettingsView
  readonly save: SaveSettings
}

/**
 * Where commands run (`sandbox`: auto, required, off), saved as soon as it is picked. Sessions
 * open already keep the setting they started with; the next session takes the new one.
 */
export function SandboxSection({ view, save }: SandboxSectionProps) {
  const [message, setMessage] = useState<string | undefined>(undefined)
  const [unplaced, setUnplaced] = useState<readonly FieldError[]>([])
  // Shown checked at once; the saved value takes over when the save returns (or fails).
  const [pending, setPending] = useState<SandboxMode | undefined>(undefined)
  const mode = pending ?? view.config.sandbox

  const pick = async (next: SandboxMode) => {
    setPending(next)
    const outcome = await save((config) => withSandbox(config, next))
    setPending(undefined)
    if (outcome.ok) {
      setMessage(undefined)
      setUnplaced([])
      return
    }
    const placed = placeFieldErrors(outcome.error.fields ?? [], { sandbox: 'mode' })
    setUnplaced(placed.unplaced)
    setMessage(
      placed.byField.mode ??
        (outcome.error.fields === undefined ? outcome.error.message : undefined),
    )
  }

  return (
    <section className="settings-section" aria-labelledby="settings-sandbox">
      <h2 id="settings-sandbox">Sandbox</h2>
      <p className="settings-hint">
        In the sandbox a command can change files only inside the project, and reaches the network
        only when you allow it.
      </p>
      <ModeChoices
        legend="Run commands"
        choices={SANDBOX_MODES}
        value={mode}
        onPick={(choice) => void pick(choice)}
      />
      <FormErrors message={message} fields={unplaced} />
    </section>
  )
}
