/**
 * The `/` list: the project's MCP prompts as options (the command, what it does, its server), in
 * the same pattern as the `@` list (the textarea keeps the focus and points here with
 * aria-controls and aria-activedescendant). Servers whose prompts could not be had are named in
 * a short line under the options.
 */
import type { McpPromptView } from '../../../../../protocol/mcp'

export interface SlashListProps {
  readonly listId: string
  readonly matches: readonly McpPromptView[]
  readonly failures: readonly { readonly server: string; readonly reason: string }[]
  readonly active: number
  readonly optionId: (index: number) => string
  readonly onPick: (prompt: McpPromptView) => void
  readonly onHover: (index: number) => void
}

export function SlashList({
  listId,
  matches,
  failures,
  active,
  optionId,
  onPick,
  onHover,
}: SlashListProps) {
  return (
    <div className="attach-completion slash-completion">
      <ul id={listId} role="listbox" aria-label="MCP prompts" className="slash-options">
        {matches.map((prompt, index) => (
          <li
            key={prompt.command}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            className={index === active ? 'is-active' : undefined}
            // mousedown, not click: the textarea keeps the focus and the caret.
            onMouseDown={(event) => {
              event.preventDefault()
              onPick(prompt)
            }}
            onMouseEnter={() => onHover(index)}
          >
            <span className="attach-completion-name">{prompt.command}</span>
            <span className="attach-completion-path">
              {prompt.description === '' ? '' : `${prompt.description} · `}MCP {prompt.server}
            </span>
          </li>
        ))}
      </ul>
      {failures.length > 0 && (
        <p
          className="slash-completion-footer"
          title={failures.map((f) => `${f.server}: ${f.reason}`).join('\n')}
        >
          Not available: {failures.map((f) => f.server).join(', ')}
        </p>
      )}
    </div>
  )
}
