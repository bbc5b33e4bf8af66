import { useEffect, useState } from 'react'
import type { BridleApi, EventDto } from '../../../../protocol/contract'
import { summarizeEvent } from '../timeline'

const PAGE = 500

interface OriginalEventsProps {
  readonly api: BridleApi
  readonly sessionId: string
  readonly fromSeq: number
  /** Inclusive, as the checkpoint names it. */
  readonly toSeq: number
  readonly onSelectSeq: (seq: number) => void
}

/**
 * The events a checkpoint hides from the model, read only when opened (a checkpoint can stand
 * for thousands), a page at a time. Chunks are left out: the messages they built are here.
 */
export function OriginalEvents({
  api,
  sessionId,
  fromSeq,
  toSeq,
  onSelectSeq,
}: OriginalEventsProps) {
  const [events, setEvents] = useState<EventDto[]>([])
  /** Where the page being read starts; "More" moves it to the last page's `nextSeq`. */
  const [from, setFrom] = useState(fromSeq)
  const [next, setNext] = useState<number | null>(null)
  const [error, setError] = useState<string | undefined>(undefined)
  const [isLoading, setLoading] = useState(true)

  useEffect(() => {
    let isCurrent = true
    setLoading(true)
    void api
      .call('session/events', { sessionId, fromSeq: from, toSeq: toSeq + 1, limit: PAGE })
      .then((result) => {
        if (!isCurrent) return
        setLoading(false)
        if (!result.ok) {
          setError(`${result.error.code}: ${result.error.message}`)
          return
        }
        const shown = result.value.events.filter((e) => e.type !== 'assistant/chunk')
        setEvents((before) => [...before.filter((e) => e.seq < from), ...shown])
        setNext(result.value.nextSeq)
      })
    return () => {
      isCurrent = false
    }
  }, [api, sessionId, from, toSeq])

  if (error)
    return (
      <p role="alert" className="error-row">
        {error}
      </p>
    )
  return (
    <div className="cp-originals">
      <ol className="cp-original-list" aria-label="Original events">
        {events.map((event) => (
          <li key={event.seq} data-testid="original-event">
            <button type="button" className="cp-seq" onClick={() => onSelectSeq(event.seq)}>
              {event.seq}
            </button>
            <span className="cp-type">{event.type}</span>
            <span className="cp-line">{summarizeEvent(event)}</span>
          </li>
        ))}
      </ol>
      {isLoading ? <p aria-busy="true">Reading…</p> : null}
      {!isLoading && next !== null ? (
        <button type="button" onClick={() => setFrom(next)}>
          More
        </button>
      ) : null}
    </div>
  )
}
