/**
 * The `@` completion's listbox. The textarea keeps the focus (and its role, a textbox named
 * "Message"); it points at this list with aria-controls and at the highlighted option with
 * aria-activedescendant, so a screen reader reads each option as the arrows move.
 */
import { baseName } from './complete'

export interface CompletionListProps {
  readonly listId: string
  readonly matches: readonly string[]
  readonly active: number
  readonly optionId: (index: number) => string
  readonly onPick: (path: string) => void
  readonly onHover: (index: number) => void
}

export function CompletionList({
  listId,
  matches,
  active,
  optionId,
  onPick,
  onHover,
}: CompletionListProps) {
  return (
    <ul id={listId} role="listbox" aria-label="Project files" className="attach-completion">
      {matches.map((path, index) => (
        <li
          key={path}
          id={optionId(index)}
          role="option"
          aria-selected={index === active}
          className={index === active ? 'is-active' : undefined}
          // mousedown, not click: the textarea keeps the focus and the caret.
          onMouseDown={(event) => {
            event.preventDefault()
            onPick(path)
          }}
          onMouseEnter={() => onHover(index)}
        >
          <span className="attach-completion-name">{baseName(path)}</span>
          <span className="attach-completion-path">{path}</span>
        </li>
      ))}
    </ul>
  )
}
