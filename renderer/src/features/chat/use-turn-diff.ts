import { useCallback, useEffect, useState } from 'react'
import type { BridleApi, FileChange } from '../../../../protocol/contract'

export type TurnDiffState =
  | { readonly status: 'idle' }
  | { readonly status: 'loading' }
  | { readonly status: 'loaded'; readonly files: readonly FileChange[] }
  | { readonly status: 'failed'; readonly message: string }

/**
 * A turn's diff never changes once the turn has ended (it is computed from snapshots the log
 * names), so one answer per session and turn is kept for the page's life: the changes card and
 * the write cards of the same turn share it. Failures are not kept, so a retry asks again.
 */
const cache = new Map<string, Promise<TurnDiffState>>()

function fetchTurnDiff(api: BridleApi, sessionId: string, turn: number): Promise<TurnDiffState> {
  const key = `${sessionId}:${turn}`
  const known = cache.get(key)
  if (known) return known
  const pending = api.call('workspace/diff', { sessionId, turn }).then(
    (result): TurnDiffState => {
      if (result.ok) return { status: 'loaded', files: result.value.files }
      cache.delete(key)
      return { status: 'failed', message: result.error.message }
    },
    (error: unknown): TurnDiffState => {
      cache.delete(key)
      return { status: 'failed', message: error instanceof Error ? error.message : String(error) }
    },
  )
  cache.set(key, pending)
  return pending
}

/** The turn's per-file patches, fetched when `load` is first called (not on mount). */
export function useTurnDiff(
  api: BridleApi,
  sessionId: string,
  turn: number,
): { readonly state: TurnDiffState; readonly load: () => void } {
  const [state, setState] = useState<TurnDiffState>({ status: 'idle' })
  /** Bumped by `load` when there is nothing yet (or it failed): each bump asks once. */
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    if (attempt === 0) return
    let isCurrent = true
    setState({ status: 'loading' })
    void fetchTurnDiff(api, sessionId, turn).then((next) => {
      if (isCurrent) setState(next)
    })
    return () => {
      isCurrent = false
    }
  }, [api, sessionId, turn, attempt])
  const isSettledOrBusy = state.status === 'loaded' || state.status === 'loading'
  const load = useCallback(() => {
    if (!isSettledOrBusy) setAttempt((n) => n + 1)
  }, [isSettledOrBusy])
  return { state, load }
}
