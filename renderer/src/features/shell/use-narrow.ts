import { useSyncExternalStore } from 'react'

/**
 * Below this width the sidebar and the inspector leave the row and open as sheets: beside a
 * readable chat column (about 760 px) there is no room for both.
 */
export const NARROW_MAX_PX = 1099

const QUERY = `(max-width: ${NARROW_MAX_PX}px)`

/** True while the window is narrower than 1100 px; re-renders when that changes. */
export function useIsNarrow(): boolean {
  return useSyncExternalStore(subscribe, snapshot, snapshot)
}

function subscribe(listener: () => void): () => void {
  const media = globalThis.matchMedia(QUERY)
  media.addEventListener('change', listener)
  return () => media.removeEventListener('change', listener)
}

function snapshot(): boolean {
  return globalThis.matchMedia(QUERY).matches
}
