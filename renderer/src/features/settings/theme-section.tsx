import { useId } from 'react'
import { setTheme, useTheme } from '../../state/theme'
import type { ThemeChoice } from '../../state/theme'

const CHOICES: readonly { readonly choice: ThemeChoice; readonly label: string }[] = [
  { choice: 'system', label: 'System' },
  { choice: 'light', label: 'Light' },
  { choice: 'dark', label: 'Dark' },
]

/** Light, dark, or the OS's; kept by the shell's theme module (this window only, not config). */
export function ThemeSection() {
  const theme = useTheme()
  const name = useId()
  return (
    <section className="settings-section" aria-labelledby="settings-theme">
      <h2 id="settings-theme">Theme</h2>
      <fieldset className="settings-segmented">
        <legend className="visually-hidden">Theme</legend>
        {CHOICES.map(({ choice, label }) => (
          <label key={choice} className={theme.choice === choice ? 'is-selected' : undefined}>
            <input
              type="radio"
              name={name}
              value={choice}
              checked={theme.choice === choice}
              onChange={() => setTheme(choice)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {theme.choice === 'system' ? (
        <p className="settings-hint">Following the system: {theme.resolved} now.</p>
      ) : null}
    </section>
  )
}
