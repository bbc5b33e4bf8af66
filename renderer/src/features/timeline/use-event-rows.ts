import { useMemo, useSyncExternalStore } from 'react'
import type { EventCache } from '../../state/event-cache'
import { rowsFor } from './event-rows'
import type { EventFilter, EventRows } from './event-rows'

/**
 * The rows of one filter over the session's cache, re-created when the filter changes, and
 * re-rendering the caller whenever the cache moves (a window lands, the feed grows).
 */
export function useEventRows(cache: EventCache, filter: EventFilter): EventRows {
  const key = JSON.stringify(filter)
  const rows = useMemo(() => rowsFor(cache, JSON.parse(key) as EventFilter), [cache, key])
  useSyncExternalStore(
    (listener) => rows.subscribe(listener),
    () => rows.version,
  )
  return rows
}
