import type { SessionPanelProps } from '../feed'

/** The conversation of the open session (placeholder: being built). */
export function ChatPanel({ feed }: SessionPanelProps) {
  return <p className="muted">{feed.events.length} events</p>
}

export interface ComposerProps {
  readonly isRunning: boolean
  readonly disabled?: boolean
  readonly onSend: (text: string) => void
  readonly onStop: () => void
}

/** The message box with send and stop (placeholder: being built). */
export function Composer({ isRunning, disabled, onSend, onStop }: ComposerProps) {
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        const box = event.currentTarget.elements.namedItem('message')
        if (box instanceof HTMLTextAreaElement && box.value.trim() !== '') {
          onSend(box.value)
          box.value = ''
        }
      }}
    >
      <textarea name="message" aria-label="Message" disabled={disabled} />
      {isRunning ? (
        <button type="button" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" disabled={disabled}>
          Send
        </button>
      )}
    </form>
  )
}
