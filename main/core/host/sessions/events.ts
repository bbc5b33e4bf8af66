import type { EventDto, ParamsOf, ResultOf } from '../../../../protocol/contract.js'
import { eventEnvelope } from '../../../../protocol/events.js'
import type { EventQuery, EventRow, Store } from '../../store/index.js'
import type { SessionSummaries } from './summary.js'

type EventsParams = ParamsOf<'session/events'>

/**
 * One page of a session's history for the inspector, read straight from the store (no writer,
 * no full-history load): one indexed query per fork segment, `limit + 1` rows at most, so a page
 * costs the same at seq 0 and at seq 200,000. The extra row tells where the next page starts;
 * with filters that is the next matching seq, so paging skips the gaps.
 */
export function readEventsPage(
  store: Store,
  summaries: SessionSummaries,
  params: EventsParams,
): ResultOf<'session/events'> {
  const row = summaries.row(params.sessionId)
  const limit = params.limit ?? 1000
  const range = narrowToTurn(store, params)
  if (range === undefined) return { events: [], nextSeq: null, length: row.nextSeq }
  const filters: EventQuery = {
    ...(params.types === undefined ? {} : { types: params.types }),
    ...(params.turn === undefined ? {} : { turn: params.turn }),
    ...(params.step === undefined ? {} : { step: params.step }),
  }
  if (params.tail === true) {
    const toSeq = Math.min(range.toSeq ?? row.nextSeq, row.nextSeq)
    const tail = readTail(store, params.sessionId, range.fromSeq, toSeq, filters, limit)
    return { ...tail, events: tail.events.map(toEventDto), nextSeq: null, length: row.nextSeq }
  }
  const rows = store.readEvents(params.sessionId, { ...range, ...filters, limit: limit + 1 })
  const next = rows[limit]
  return {
    events: rows.slice(0, limit).map(toEventDto),
    nextSeq: next === undefined ? null : next.seq,
    length: row.nextSeq,
  }
}

/**
 * The last `limit` matching rows in `[fromSeq, toSeq)`, found by reading back in growing spans
 * (the store reads forward only): a span of twice the limit finds them at once when most events
 * match (the chat's types leave out only chunks); sparse filters take a few more reads, each
 * four times longer, so a 200k-event history costs a handful of indexed queries at most.
 */
function readTail(
  store: Store,
  sessionId: string,
  fromSeq: number,
  toSeq: number,
  filters: EventQuery,
  limit: number,
): { events: EventRow[]; coveredFrom: number } {
  for (let span = limit * 2; ; span *= 4) {
    const from = Math.max(fromSeq, toSeq - span)
    const rows = store.readEvents(sessionId, { ...filters, fromSeq: from, toSeq })
    if (rows.length < limit && from > fromSeq) continue
    const events = rows.slice(-limit)
    const first = events[0]
    return { events, coveredFrom: rows.length > limit && first !== undefined ? first.seq : from }
  }
}

/**
 * The seq range to read. With a turn filter it is cut to that turn's `turn/start`..`turn/end`
 * (two seeks in the type index), so filtering by a late turn does not scan the whole history;
 * undefined when the turn never started. Turn 0 (events outside turns) is not narrowed.
 */
function narrowToTurn(
  store: Store,
  params: EventsParams,
): { fromSeq: number; toSeq?: number } | undefined {
  const fromSeq = params.fromSeq ?? 0
  const toSeq = params.toSeq
  const asked = { fromSeq, ...(toSeq === undefined ? {} : { toSeq }) }
  const { turn } = params
  if (turn === undefined || turn === 0) return asked
  const [start] = store.readEvents(params.sessionId, { types: ['turn/start'], turn, limit: 1 })
  if (start === undefined) return undefined
  const [end] = store.readEvents(params.sessionId, {
    fromSeq: start.seq,
    types: ['turn/end'],
    turn,
    limit: 1,
  })
  const turnTo = end === undefined ? undefined : end.seq + 1
  const to = toSeq === undefined ? turnTo : turnTo === undefined ? toSeq : Math.min(toSeq, turnTo)
  return { fromSeq: Math.max(fromSeq, start.seq), ...(to === undefined ? {} : { toSeq: to }) }
}

/**
 * A stored row as the renderer sees it; `data` parsed from its JSON text as written. Not checked
 * against its type here: `dispatchCall` parses every result with the contract's `EventDto` (the
 * log's union), which names a bad row and fills the defaults a later schema added.
 */
export function toEventDto(row: EventRow): EventDto {
  let data: unknown
  try {
    data = JSON.parse(row.data)
  } catch {
    data = undefined
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    // The log never stores such a row; one that is there is damage the user must hear about.
    throw new Error(`session ${row.sessionId} seq ${row.seq}: the stored data is not a JSON object`)
  }
  return eventEnvelope({ ...row, data }) as EventDto
}

/** Full-text hits (trashed sessions left out by the store), each with its session's title. */
export function searchSessions(
  store: Store,
  summaries: SessionSummaries,
  params: ParamsOf<'session/search'>,
): ResultOf<'session/search'> {
  if (params.sessionId !== undefined) summaries.row(params.sessionId)
  const hits = store.search(params.query, {
    limit: params.limit ?? 50,
    ...(params.sessionId === undefined ? {} : { sessionId: params.sessionId }),
  })
  const titles = new Map<string, string | null>()
  const titleOf = (sessionId: string): string | null => {
    if (!titles.has(sessionId)) titles.set(sessionId, store.getSession(sessionId)?.title ?? null)
    return titles.get(sessionId) ?? null
  }
  return {
    hits: hits.map((hit) => ({
      sessionId: hit.sessionId,
      title: titleOf(hit.sessionId),
      seq: hit.seq,
      type: hit.type,
      snippet: hit.snippet,
    })),
  }
}
