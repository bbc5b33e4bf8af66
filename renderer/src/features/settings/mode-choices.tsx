import { useId } from 'react'

export interface ModeChoice<M extends string> {
  readonly mode: M
  readonly label: string
  readonly help: string
}

/**
 * One setting picked from a few modes, each with its label and a line of help (the approval mode,
 * the sandbox): radio buttons in a fieldset, the help read out with each.
 */
export function ModeChoices<M extends string>({
  legend,
  choices,
  value,
  onPick,
}: {
  readonly legend: string
  readonly choices: readonly ModeChoice<M>[]
  readonly value: M
  readonly onPick: (mode: M) => void
}) {
  const name = useId()
  return (
    <fieldset className="settings-modes">
      <legend>{legend}</legend>
      {choices.map(({ mode: choice, label, help }) => (
        <label key={choice} className="settings-mode">
          <input
            type="radio"
            name={name}
            value={choice}
            checked={value === choice}
            aria-describedby={`${name}-${choice}`}
            onChange={() => onPick(choice)}
          />
          <span>
            <strong>{label}</strong>
            <span id={`${name}-${choice}`} className="settings-hint">
              {help}
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  )
}
