import { FORWARDED_EVENT_TYPES } from '../../../../protocol/contract'

/** Every type the log writes: the forwarded ones plus the chunks only the log keeps. */
export const FILTERABLE_TYPES: readonly string[] = [
  ...FORWARDED_EVENT_TYPES,
  'assistant/chunk',
].sort()

export interface FilterState {
  readonly types: readonly string[]
  /** Empty string: any. Kept as text so a half-typed number does not jump. */
  readonly turn: string
  readonly step: string
  readonly text: string
}

export const EMPTY_FILTERS: FilterState = { types: [], turn: '', step: '', text: '' }

/** A turn or step field's value, or undefined when empty or not a whole number. */
export function parseWhole(value: string): number | undefined {
  if (!/^\d+$/.test(value.trim())) return undefined
  return Number(value.trim())
}

interface EventFiltersProps {
  readonly value: FilterState
  readonly onChange: (next: FilterState) => void
}

/** The filter bar: types, turn and step go to the server; the text filter stays local. */
export function EventFilters({ value, onChange }: EventFiltersProps) {
  const toggle = (type: string) =>
    onChange({
      ...value,
      types: value.types.includes(type)
        ? value.types.filter((t) => t !== type)
        : [...value.types, type],
    })
  return (
    <div className="tl-filters" role="search" aria-label="Event filters">
      <details className="tl-types">
        <summary>Types{value.types.length > 0 ? ` (${value.types.length})` : ''}</summary>
        <fieldset aria-label="Event types">
          {FILTERABLE_TYPES.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                checked={value.types.includes(type)}
                onChange={() => toggle(type)}
              />
              {type}
            </label>
          ))}
          {value.types.length > 0 ? (
            <button type="button" onClick={() => onChange({ ...value, types: [] })}>
              Clear types
            </button>
          ) : null}
        </fieldset>
      </details>
      <label className="tl-num-filter">
        Turn
        <input
          inputMode="numeric"
          aria-label="Turn"
          value={value.turn}
          onChange={(e) => onChange({ ...value, turn: e.target.value })}
        />
      </label>
      <label className="tl-num-filter">
        Step
        <input
          inputMode="numeric"
          aria-label="Step"
          value={value.step}
          onChange={(e) => onChange({ ...value, step: e.target.value })}
        />
      </label>
      <input
        className="tl-text-filter"
        type="search"
        aria-label="Filter text"
        placeholder="Text in loaded rows"
        title="Searches the rows loaded so far, not the whole log"
        value={value.text}
        onChange={(e) => onChange({ ...value, text: e.target.value })}
      />
    </div>
  )
}
