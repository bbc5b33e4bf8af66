/**
 * The feed as panels see it (features/feed.ts `SessionFeed`). One object per reducer state, kept
 * in a WeakMap, so a panel's memo sees the same feed until the log actually moved.
 */
import type { SessionFeed } from '../features/feed'
import type { EventCache } from './event-cache'
import type { FeedState } from './feed-reducer'

const views = new WeakMap<FeedState, SessionFeed>()

/** Undefined until `session/get` has answered: a feed always has its session. */
export function toSessionFeed(state: FeedState, cache: EventCache): SessionFeed | undefined {
  const { session } = state
  if (!session) return undefined
  let view = views.get(state)
  if (!view) {
    view = {
      session,
      events: state.events,
      cache,
      isLoading: state.isLoading,
      hasOlder: state.coveredFrom > 0,
      isLoadingOlder: state.isLoadingOlder,
      hasNewer: state.hasNewer,
      isLoadingNewer: state.isLoadingNewer,
      streaming: state.streaming,
      pendingApprovals: state.pendingApprovals,
      childApprovals: state.childApprovals,
      isRunning: state.isRunning,
      ...(state.contextWindow === undefined ? {} : { contextWindow: state.contextWindow }),
      ...(state.profile === undefined ? {} : { profile: state.profile }),
      ...(state.codeMode === undefined ? {} : { codeMode: state.codeMode }),
    }
    views.set(state, view)
  }
  return view
}
