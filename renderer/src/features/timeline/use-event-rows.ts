import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react'
import type { BridleApi, EventDto } from '../../../../protocol/contract'
import { EventRows } from './event-rows'
import type { EventFilter, LoadPage } from './event-rows'

/** `session/events` as a LoadPage: a bridge error becomes a rejection with its code. */
export function pageLoader(api: BridleApi, sessionId: string): LoadPage {
  return async (request) => {
    const result = await api.call('session/events', {
      sessionId,
      fromSeq: request.fromSeq,
      limit: request.limit,
      ...(request.toSeq === undefined ? {} : { toSeq: request.toSeq }),
      ...(request.types === undefined ? {} : { types: [...request.types] }),
      ...(request.turn === undefined ? {} : { turn: request.turn }),
      ...(request.step === undefined ? {} : { step: request.step }),
    })
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
    return result.value
  }
}

/**
 * The rows of one session and filter, re-created when either changes, re-rendering the caller
 * whenever a page lands. Events the feed gains afterwards are appended, so live rows show up
 * without a fetch.
 */
export function useEventRows(
  api: BridleApi,
  sessionId: string,
  filter: EventFilter,
  liveEvents: readonly EventDto[],
): EventRows {
  const key = JSON.stringify(filter)
  const rows = useMemo(
    () => new EventRows(pageLoader(api, sessionId), JSON.parse(key) as EventFilter),
    [api, sessionId, key],
  )
  useSyncExternalStore(
    (listener) => rows.subscribe(listener),
    () => rows.version,
  )
  // The feed's length when these rows were created: what came before is in the pages.
  const seen = useRef<{ rows: EventRows; length: number } | undefined>(undefined)
  useEffect(() => {
    if (seen.current?.rows !== rows) seen.current = { rows, length: liveEvents.length }
    const from = Math.min(seen.current.length, liveEvents.length)
    if (liveEvents.length > from) rows.append(liveEvents.slice(from))
    seen.current = { rows, length: liveEvents.length }
  }, [rows, liveEvents])
  return rows
}
