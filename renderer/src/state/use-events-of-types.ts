import { useMemo, useSyncExternalStore } from 'react'
import type { EventDto } from '../../../protocol/contract'
import type { EventCache } from './event-cache'

const NONE: readonly EventDto[] = []

/**
 * Every forwarded event of `types` in the open session's whole history (the feed holds only a
 * window of it), re-rendering as they change; empty until the part before the window is read.
 */
export function useEventsOfTypes(cache: EventCache, types: readonly string[]): readonly EventDto[] {
  const key = types.join(',')
  const wanted = useMemo(() => key.split(','), [key])
  return useSyncExternalStore(
    (listener) => cache.subscribe(listener),
    () => cache.ofTypes(wanted) ?? NONE,
  )
}
