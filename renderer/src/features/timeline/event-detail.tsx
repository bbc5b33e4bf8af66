import { useEffect, useState } from 'react'
import type { EventDto } from '../../../../protocol/contract'
import type { EventCache } from '../../state/event-cache'
import { formatTime } from './event-table'
import type { SessionLink } from './subagent-link'

/**
 * The selected event, from the cache when it is there, else read on its own: a selection from
 * the chat can name a chunk no window has read.
 */
export function useSelectedEvent(cache: EventCache, seq: number | undefined): EventDto | undefined {
  const [fetched, setFetched] = useState<EventDto | undefined>(undefined)
  const known = seq === undefined ? undefined : cache.at(seq)
  useEffect(() => {
    if (seq === undefined || known !== undefined) return
    let isCurrent = true
    void cache.read(seq).then(
      (event) => {
        if (isCurrent) setFetched(event)
      },
      () => undefined,
    )
    return () => {
      isCurrent = false
    }
  }, [cache, seq, known])
  if (known !== undefined) return known
  return fetched?.seq === seq ? fetched : undefined
}

/** Events the chat shows as a message of their own; others are shown with their step's. */
const CHAT_TYPES = new Set(['user/message', 'assistant/message'])

export interface EventDetailProps {
  readonly event: EventDto | undefined
  readonly onShowInChat: (event: EventDto) => void
  readonly onOpenRequest: (startSeq: number) => void
  /**
   * A new session whose history ends with this event (a turn cut there is closed as
   * interrupted by the fork); resolves to what failed, or undefined once the fork is open.
   */
  readonly onFork: (seq: number) => Promise<string | undefined>
  /** "Restore files to here": the project's files as they were right after this event. */
  readonly onRestore: (event: EventDto) => void
  /** Another session the event leads to (a `task` call's subagent, a subagent's parent). */
  readonly link?: SessionLink | undefined
  readonly onOpenSession: (sessionId: string) => void
}

/** The pretty JSON of one event, with the ways on from it. */
export function EventDetail({
  event,
  onShowInChat,
  onOpenRequest,
  onFork,
  onRestore,
  link,
  onOpenSession,
}: EventDetailProps) {
  const [forkError, setForkError] = useState<{ seq: number; message: string } | undefined>()
  const [isForking, setForking] = useState(false)
  if (event === undefined) {
    return (
      <section className="tl-detail tl-detail-empty" aria-label="Event detail">
        <p className="muted">Select an event to see its JSON.</p>
      </section>
    )
  }
  return (
    <section className="tl-detail" aria-label="Event detail">
      <header className="tl-detail-head">
        <strong>
          #{event.seq} {event.type}
        </strong>
        <span className="muted">
          turn {event.turn} · step {event.step} · {formatTime(event.at)}
        </span>
        <span className="tl-spacer" />
        {link !== undefined && (
          <button type="button" onClick={() => onOpenSession(link.sessionId)}>
            {link.label}
          </button>
        )}
        {event.type === 'request/start' ? (
          <button type="button" onClick={() => onOpenRequest(event.seq)}>
            View request
          </button>
        ) : null}
        <button
          type="button"
          onClick={() => onShowInChat(event)}
          title={
            CHAT_TYPES.has(event.type)
              ? 'Scroll the chat to this message'
              : "Scroll the chat to this event's message"
          }
        >
          Show in chat
        </button>
        <button
          type="button"
          disabled={isForking}
          title="A new session with the history up to and including this event"
          onClick={() => {
            setForking(true)
            setForkError(undefined)
            void onFork(event.seq)
              .then((message) => {
                if (message !== undefined) setForkError({ seq: event.seq, message })
              })
              .finally(() => setForking(false))
          }}
        >
          Fork from here
        </button>
        <button
          type="button"
          title="Put the project's files back to how they were right after this event"
          onClick={() => onRestore(event)}
        >
          Restore files to here
        </button>
      </header>
      {forkError?.seq === event.seq && (
        <p role="alert" className="error-row">
          Could not fork: {forkError.message}
        </p>
      )}
      <pre className="tl-json" data-testid="event-json">
        {JSON.stringify(event, null, 2)}
      </pre>
    </section>
  )
}

/**
 * The seq the chat can scroll to for `event`: itself when it is a message, else the message of
 * its step (a tool call belongs to the assistant message that asked for it), else itself.
 */
export function chatSeqFor(event: EventDto, feedEvents: readonly EventDto[]): number {
  if (CHAT_TYPES.has(event.type) || event.turn === 0) return event.seq
  let best: number | undefined
  for (const candidate of feedEvents) {
    if (candidate.turn !== event.turn || !CHAT_TYPES.has(candidate.type)) continue
    if (candidate.step === event.step && candidate.type === 'assistant/message')
      return candidate.seq
    if (candidate.seq <= event.seq) best = candidate.seq
  }
  return best ?? event.seq
}
