import { ChevronLeft, ChevronRight } from 'lucide-react'
import { useState } from 'react'
import type { KeyboardEvent } from 'react'
import { IconButton } from '../../ui/icon-button'

export interface TurnStepperProps {
  /** The session's turn numbers, in order. */
  readonly turns: readonly number[]
  readonly value: number | undefined
  readonly onChange: (turn: number) => void
}

/**
 * Which turn the Gantt shows: previous and next, or a number typed and taken with Enter (the
 * nearest turn there is). A drop-down of every turn would hold thousands of options on a long
 * session, each one a DOM node before the list even opens.
 */
export function TurnStepper({ turns, value, onChange }: TurnStepperProps) {
  const at = value === undefined ? -1 : turns.indexOf(value)
  // What is typed, until Enter or leaving the field takes it; undefined shows the turn.
  const [draft, setDraft] = useState<string | undefined>(undefined)
  const go = (index: number) => {
    const turn = turns[index]
    if (turn !== undefined && turn !== value) onChange(turn)
  }
  const take = () => {
    if (draft === undefined) return
    setDraft(undefined)
    const typed = Number(draft.trim())
    if (draft.trim() === '' || !Number.isFinite(typed)) return
    go(nearestIndex(turns, typed))
  }
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') take()
    else if (event.key === 'Escape') setDraft(undefined)
    else if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      event.preventDefault()
      setDraft(undefined)
      go(Math.max(0, at + (event.key === 'ArrowUp' ? 1 : -1)))
    }
  }
  const isEmpty = turns.length === 0
  return (
    <div className="turn-stepper">
      <IconButton
        icon={<ChevronLeft size={16} strokeWidth={2.5} />}
        label="Previous turn"
        hint="The turn before this one"
        className="turn-step"
        disabled={isEmpty || at <= 0}
        onClick={() => go(at - 1)}
      />
      <label className="tl-num-filter">
        Turn
        <input
          inputMode="numeric"
          aria-label="Gantt turn"
          title="Type a turn and press Enter; the up and down arrows step through the turns"
          disabled={isEmpty}
          value={draft ?? (value === undefined ? '' : String(value))}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          onBlur={take}
        />
      </label>
      <span className="muted">of {turns.length}</span>
      <IconButton
        icon={<ChevronRight size={16} strokeWidth={2.5} />}
        label="Next turn"
        hint="The turn after this one"
        className="turn-step"
        disabled={isEmpty || at === -1 || at >= turns.length - 1}
        onClick={() => go(at + 1)}
      />
    </div>
  )
}

/** The index of the turn nearest to `typed` (turns are in order; a tie goes to the earlier). */
export function nearestIndex(turns: readonly number[], typed: number): number {
  let best = 0
  for (let index = 1; index < turns.length; index++) {
    const turn = turns[index] as number
    if (Math.abs(turn - typed) < Math.abs((turns[best] as number) - typed)) best = index
    if (turn > typed) break
  }
  return best
}
