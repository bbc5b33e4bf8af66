import { useState } from 'react'
import type { KeyboardEvent, ReactNode } from 'react'
import './chat.css'

export interface ComposerProps {
  readonly isRunning: boolean
  readonly disabled?: boolean
  readonly onSend: (text: string) => void
  readonly onStop: () => void
  /** Shown in the empty box; defaults to how to send. */
  readonly placeholder?: string
  /** Controls shown beside the buttons (the model picker). */
  readonly tools?: ReactNode
}

/**
 * The message box. Enter sends, Shift+Enter starts a new line (and Enter while an input method
 * composes a character does nothing: it confirms the character). While a turn runs, Stop is
 * offered next to Send: a message sent then steers the running turn at its next step. Escape
 * also stops; the shell binds it for the whole window (shell/shortcuts.ts), so it is not bound
 * here twice.
 */
export function Composer({
  isRunning,
  disabled,
  onSend,
  onStop,
  placeholder,
  tools,
}: ComposerProps) {
  const [text, setText] = useState('')
  const canSend = disabled !== true && text.trim() !== ''
  const send = () => {
    if (!canSend) return
    onSend(text)
    setText('')
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
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
    >
      <textarea
        name="message"
        aria-label="Message"
        className="composer-input"
        rows={1}
        value={text}
        disabled={disabled}
        placeholder={
          placeholder ??
          (isRunning
            ? 'Add to the running turn… (Enter sends, Escape stops)'
            : 'Message the agent… (Enter sends, Shift+Enter for a new line)')
        }
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
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
