/**
 * The `@` completion's listbox. The textarea keeps the focus (and its role, a textbox named
 * "Message"); it points at this list with aria-controls and at the highlighted option with
 * aria-activedescendant, so a screen reader reads each option as the arrows move. Project files
 * come first, then the MCP resources, each marked with its server; a resource that is not text
 * is listed disabled, saying so.
 */
import { baseName } from './complete'
import { resourceLabel } from './resources'
import type { CompletionItem } from './use-attachments'

export interface CompletionListProps {
  readonly listId: string
  readonly matches: readonly CompletionItem[]
  readonly active: number
  readonly optionId: (index: number) => string
  readonly onPick: (item: CompletionItem) => void
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
  const hasResources = matches.some((item) => item.kind === 'resource')
  return (
    <ul
      id={listId}
      role="listbox"
      aria-label={hasResources ? 'Project files and MCP resources' : 'Project files'}
      className="attach-completion"
    >
      {matches.map((item, index) => {
        const isDisabled = item.kind === 'resource' && !item.isText
        const classes = [index === active ? 'is-active' : '', isDisabled ? 'is-disabled' : '']
        return (
          <li
            key={item.kind === 'file' ? `file:${item.path}` : `mcp:${resourceKey(item)}`}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            aria-disabled={isDisabled || undefined}
            className={classes.filter(Boolean).join(' ') || undefined}
            // mousedown, not click: the textarea keeps the focus and the caret.
            onMouseDown={(event) => {
              event.preventDefault()
              onPick(item)
            }}
            onMouseEnter={() => onHover(index)}
          >
            {item.kind === 'file' ? (
              <>
                <span className="attach-completion-name">{baseName(item.path)}</span>
                <span className="attach-completion-path">{item.path}</span>
              </>
            ) : (
              <>
                <span className="attach-completion-name">{resourceLabel(item.resource)}</span>
                <span className="attach-completion-path">
                  {isDisabled
                    ? 'not text'
                    : item.resource.name === item.resource.uri
                      ? ''
                      : item.resource.name}
                </span>
              </>
            )}
          </li>
        )
      })}
    </ul>
  )
}

const resourceKey = (item: Extract<CompletionItem, { kind: 'resource' }>): string =>
  `${item.resource.server}:${item.resource.uri}`
