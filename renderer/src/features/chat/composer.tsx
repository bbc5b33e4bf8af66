import { useState } from 'react'
import type { KeyboardEvent, ReactNode } from 'react'
import type { AttachmentInput } from '../../../../protocol/attachments'
import { AttachmentChips } from './attach/attachment-chips'
import { CompletionList } from './attach/completion-list'
import { PromptForm } from './attach/prompt-form'
import { SlashList } from './attach/slash-list'
import { useAttachments } from './attach/use-attachments'
import { useMcpCatalog } from './attach/use-mcp-catalog'
import type { McpSource } from './attach/use-mcp-source'
import { useSlash } from './attach/use-slash'
import './attach/attach.css'
import './chat.css'

export interface ComposerProps {
  readonly isRunning: boolean
  readonly disabled?: boolean
  /**
   * Sends the text and its attachments. Resolving to false means the send was refused and
   * nothing was logged: the composer puts the text and attachments back.
   */
  readonly onSend: (
    text: string,
    attachments: readonly AttachmentInput[],
  ) => Promise<boolean> | undefined
  readonly onStop: () => void
  /** Shown in the empty box; defaults to how to send. */
  readonly placeholder?: string
  /** Controls shown beside the buttons (the model picker). */
  readonly tools?: ReactNode
  /** The project's files for `@` completion; absent: `@` is plain text. */
  readonly listFiles?: () => Promise<readonly string[]>
  /** The project's MCP servers: their prompts as `/` commands, their resources after `@`. */
  readonly mcp?: McpSource | undefined
}

/**
 * What is typed and not sent yet: kept outside the component, so opening the settings page or
 * resizing across the narrow layout (both remount the chat) loses nothing.
 */
let unsentDraft = ''

/**
 * The message box. Enter sends, Shift+Enter starts a new line (and Enter while an input method
 * composes a character does nothing: it confirms the character). While a turn runs, Stop is
 * offered next to Send: a message sent then steers the running turn at its next step. Escape
 * also stops; the shell binds it for the whole window (shell/shortcuts.ts), so it is not bound
 * here twice. `@` completes a project file (or an MCP resource) and attaches its text; pasted or
 * dropped images are attached too; `/` at the start lists the MCP prompts (attach/).
 */
export function Composer({
  isRunning,
  disabled,
  onSend,
  onStop,
  placeholder,
  tools,
  listFiles,
  mcp,
}: ComposerProps) {
  const [text, setTextState] = useState(() => unsentDraft)
  const setText = (next: string | ((now: string) => string)) => {
    setTextState((now) => {
      unsentDraft = typeof next === 'function' ? next(now) : next
      return unsentDraft
    })
  }
  const mcpCatalog = useMcpCatalog(mcp)
  const attach = useAttachments({
    text,
    setText,
    ...(listFiles ? { listFiles } : {}),
    resources: mcpCatalog.catalog?.resources,
    onMention: mcpCatalog.want,
  })
  const slash = useSlash({
    text,
    setText,
    inputRef: attach.inputRef,
    source: mcp,
    catalog: mcpCatalog.catalog,
    onOpen: mcpCatalog.want,
  })
  const { completion } = attach
  const open = slash.list.isOpen ? slash.list : completion.isOpen ? completion : undefined
  const error = slash.error ?? attach.error
  const canSend = disabled !== true && text.trim() !== ''
  const send = () => {
    if (!canSend) return
    const sent = attach.attachments
    const result = onSend(text, attach.toSend())
    const typed = text
    setText('')
    attach.reset()
    slash.clearError()
    void result?.then((ok) => {
      if (ok) return
      setText((now) => (now === '' ? typed : now))
      attach.reset(sent)
    })
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (slash.onKeyDown(event) || attach.onKeyDown(event)) return
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    send()
  }
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault()
        send()
      }}
      onDragOver={(event) => {
        if ([...event.dataTransfer.types].includes('Files')) event.preventDefault()
      }}
      onDrop={(event) => {
        if (event.dataTransfer.files.length === 0) return
        event.preventDefault()
        void attach.addImages(event.dataTransfer)
      }}
    >
      <div className="composer-field">
        {completion.isOpen && (
          <CompletionList
            listId={completion.listId}
            matches={completion.matches}
            active={completion.active}
            optionId={completion.optionId}
            onPick={completion.pick}
            onHover={completion.setActive}
          />
        )}
        {slash.list.isOpen && (
          <SlashList
            listId={slash.list.listId}
            matches={slash.list.matches}
            failures={slash.list.failures}
            active={slash.list.active}
            optionId={slash.list.optionId}
            onPick={slash.list.pick}
            onHover={slash.list.setActive}
          />
        )}
        {slash.request && (
          <PromptForm
            key={slash.request.prompt.command}
            prompt={slash.request.prompt}
            isFilling={slash.request.isFilling}
            onSubmit={slash.submit}
            onCancel={slash.cancel}
          />
        )}
        <AttachmentChips attachments={attach.attachments} onRemove={attach.remove} />
        {error !== undefined && (
          <p role="alert" className="attach-error">
            {error}
          </p>
        )}
        <textarea
          ref={attach.inputRef}
          name="message"
          aria-label="Message"
          className="composer-input"
          rows={1}
          value={text}
          disabled={disabled}
          aria-autocomplete={listFiles || mcp ? 'list' : undefined}
          aria-controls={open?.listId}
          aria-activedescendant={open?.optionId(open.active)}
          placeholder={
            placeholder ??
            (isRunning
              ? 'Add to the running turn… (Enter sends, Escape stops)'
              : 'Message the agent… (Enter sends, Shift+Enter for a new line, @ attaches a file)')
          }
          onChange={(event) => {
            setText(event.target.value)
            attach.track(event.target.value, event.target.selectionStart)
            slash.track(event.target.value, event.target.selectionStart)
          }}
          onSelect={(event) => {
            attach.track(event.currentTarget.value, event.currentTarget.selectionStart)
            slash.track(event.currentTarget.value, event.currentTarget.selectionStart)
          }}
          onKeyDown={onKeyDown}
          onPaste={(event) => {
            if ([...event.clipboardData.files].some((file) => file.type.startsWith('image/'))) {
              event.preventDefault()
              void attach.addImages(event.clipboardData)
            }
          }}
        />
      </div>
      <div className="composer-actions">
        {tools}
        {isRunning && (
          <button type="button" className="danger" onClick={onStop} title="Stop the turn (Escape)">
            Stop
          </button>
        )}
        <button type="submit" className="primary" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  )
}
