/**
 * What the Gantt reads of a long session, without reading the whole log: the feed holds only a
 * window of the history (its tail, reaching back as the chat scrolls up), so
 *
 * - the turns are the history's `turn/start` events, one type-filtered read below the feed's
 *   window (the cache's `ofTypes`, kept for the session), joined to the feed's own;
 * - one turn's bars come from the feed when the turn lies inside its window (live as it runs),
 *   else from one read of the turn's seq range, its Gantt types only. Only the turn shown is
 *   kept.
 */
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import type { EventDto } from '../../../../protocol/contract'
import type { EventCache } from '../../state/event-cache'

/** The events `layoutGantt` pairs into bars (see gantt.ts). */
export const GANTT_TYPES: readonly string[] = [
  'request/start',
  'assistant/message',
  'tool/call',
  'tool/result',
  'subagent/started',
]

const TURN_START: readonly string[] = ['turn/start']

/** The most `session/events` gives in one page. */
const PAGE_LIMIT = 5000

/** A turn's place in the log: its `turn/start`, up to the next turn's (or the end). */
export interface TurnSpan {
  readonly turn: number
  readonly fromSeq: number
  /** Exclusive; undefined for the last turn. */
  readonly toSeq?: number
}

/** The spans of the turns whose `turn/start` events are `starts` (seq order). */
export function turnSpans(starts: readonly EventDto[]): TurnSpan[] {
  return starts.map((event, i) => {
    const next = starts[i + 1]
    return next === undefined
      ? { turn: event.turn, fromSeq: event.seq }
      : { turn: event.turn, fromSeq: event.seq, toSeq: next.seq }
  })
}

/** Every turn of the history, or undefined while the part below the feed's window is read. */
export function useTurnSpans(cache: EventCache): readonly TurnSpan[] | undefined {
  const starts = useSyncExternalStore(
    (listener) => cache.subscribe(listener),
    () => cache.ofTypes(TURN_START),
  )
  return useMemo(() => (starts === undefined ? undefined : turnSpans(starts)), [starts])
}

export interface TurnEvents {
  /** The turn's Gantt events in seq order (empty while read). */
  readonly events: readonly EventDto[]
  readonly isLoading: boolean
  readonly error: string | undefined
}

interface OlderRead {
  /** Which turn and range the read was for. */
  readonly key: string
  readonly events: readonly EventDto[] | undefined
  readonly error?: string
}

/** Reads `types` of seqs `fromSeq..toSeq` page by page; `turn` keeps the turn's own events. */
async function readRange(
  cache: EventCache,
  fromSeq: number,
  toSeq: number,
  turn: number,
): Promise<EventDto[]> {
  const found: EventDto[] = []
  let next: number | null = fromSeq
  while (next !== null) {
    const page = await cache.loadPage({
      fromSeq: next,
      toSeq,
      limit: PAGE_LIMIT,
      types: GANTT_TYPES,
      turn,
    })
    found.push(...page.events)
    next = page.nextSeq
  }
  return found
}

/**
 * The Gantt events of `span`'s turn: the feed's `events` when the turn lies inside its window
 * (live as it runs), else one read of the turn's range (up to the window, when the turn runs
 * into it from below: the feed has the rest). The window may end before the log does
 * (the chat scrolled far up and let go of the newest pages), so the last turn is inside only
 * when the window reaches the log's end.
 */
export function useTurnEvents(
  cache: EventCache,
  events: readonly EventDto[],
  span: TurnSpan | undefined,
): TurnEvents {
  const { coveredFrom, coveredTo, length } = cache.forwarded
  const end = span === undefined ? 0 : (span.toSeq ?? length)
  const isInside = span === undefined || (span.fromSeq >= coveredFrom && end <= coveredTo)
  // A turn that runs into the window from below is read up to the window, the rest from the feed.
  const readTo = end <= coveredTo && end > coveredFrom ? coveredFrom : end
  const key = isInside ? '' : `${span.turn}:${span.fromSeq}:${readTo}`
  const [older, setOlder] = useState<OlderRead>({ key: '', events: [] })

  useEffect(() => {
    if (span === undefined || key === '') return
    let isCurrent = true
    setOlder({ key, events: undefined })
    readRange(cache, span.fromSeq, readTo, span.turn).then(
      (found) => {
        if (isCurrent) setOlder({ key, events: found })
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error)
        if (isCurrent) setOlder({ key, events: [], error: message })
      },
    )
    return () => {
      isCurrent = false
    }
    // The range read is described in full by `key`.
  }, [cache, key])

  const turn = span?.turn
  const fromSeq = span?.fromSeq ?? 0
  const olderEvents = older.key === key ? older.events : undefined
  const joined = useMemo(() => {
    if (turn === undefined) return []
    // What the read did not cover: the whole turn inside the window, or what came after it.
    const after = key === '' ? fromSeq : readTo
    const recent = events.filter(
      (event) => event.turn === turn && event.seq >= after && isGanttEvent(event),
    )
    return key === '' ? recent : [...(olderEvents ?? []), ...recent]
  }, [events, turn, fromSeq, readTo, key, olderEvents])
  return {
    events: joined,
    isLoading: key !== '' && olderEvents === undefined,
    error: older.key === key ? older.error : undefined,
  }
}

function isGanttEvent(event: EventDto): boolean {
  return GANTT_TYPES.includes(event.type)
}
