import { useDeferredValue, useMemo } from 'react'
import { toSessionFeed } from '../../state/feed-view'
import { useShell, useShellContext } from '../../state/shell-context'
import type { SessionPanelProps } from '../feed'

/**
 * The props every session panel gets, or undefined while no session (or its summary) is open.
 * The feed is deferred: the pages of a long history landing one after another re-render the
 * panels at low priority, so a click (a tab, a row) is answered between them, not after them.
 */
export function useSessionPanelProps(): SessionPanelProps | undefined {
  const { api } = useShellContext()
  const feedState = useDeferredValue(useShell((s) => s.feed))
  const cache = useShell((s) => s.eventCache)
  const selectedSeq = useShell((s) => s.selectedSeq)
  const selectSeq = useShell((s) => s.selectSeq)
  const openSession = useShell((s) => s.openSession)
  const showPanel = useShell((s) => s.showPanel)
  // The deferred feed can still be the last session's for a moment after another opens.
  const feed =
    feedState && cache?.sessionId === feedState.sessionId
      ? toSessionFeed(feedState, cache)
      : undefined
  return useMemo(
    () =>
      feed && {
        api,
        feed,
        ...(selectedSeq === undefined ? {} : { selectedSeq }),
        onSelectSeq: selectSeq,
        onOpenSession: (sessionId: string) => void openSession(sessionId),
        onShowPanel: showPanel,
      },
    [api, feed, selectedSeq, selectSeq, openSession, showPanel],
  )
}
