import { useState, useSyncExternalStore } from 'react'
import type { EventDto } from '../../../../protocol/contract'
import type { EventCache } from '../../state/event-cache'
import { firstIndexFrom } from '../../state/event-cache'
import { summarizeEvent } from '../timeline'

const PAGE = 500

interface OriginalEventsProps {
  readonly cache: EventCache
  readonly fromSeq: number
  /** Inclusive, as the checkpoint names it. */
  readonly toSeq: number
  readonly onSelectSeq: (seq: number) => void
}

/**
 * The events a checkpoint hides from the model, from the session's cache (the feed holds them
 * all), shown a page at a time: a checkpoint can stand for thousands. Chunks are left out: the
 * messages they built are here.
 */
export function OriginalEvents({ cache, fromSeq, toSeq, onSelectSeq }: OriginalEventsProps) {
  const [shown, setShown] = useState(PAGE)
  useSyncExternalStore(
    (listener) => cache.subscribe(listener),
    () => cache.version,
  )
  const { events, coveredTo } = cache.forwarded
  const inRange = between(events, fromSeq, toSeq)
  const isReading = coveredTo <= toSeq && cache.forwarded.isLoading
  return (
    <div className="cp-originals">
      <ol className="cp-original-list" aria-label="Original events">
        {inRange.slice(0, shown).map((event) => (
          <li key={event.seq} data-testid="original-event">
            <button type="button" className="cp-seq" onClick={() => onSelectSeq(event.seq)}>
              {event.seq}
            </button>
            <span className="cp-type">{event.type}</span>
            <span className="cp-line">{summarizeEvent(event)}</span>
          </li>
        ))}
      </ol>
      {isReading ? <p aria-busy="true">Reading…</p> : null}
      {inRange.length > shown ? (
        <button type="button" onClick={() => setShown(shown + PAGE)}>
          More
        </button>
      ) : null}
    </div>
  )
}

/** The events with `from <= seq <= to` of a seq-sorted list. */
function between(events: readonly EventDto[], from: number, to: number): readonly EventDto[] {
  const first = firstIndexFrom(events, from)
  return events.slice(first, firstIndexFrom(events, to + 1))
}
