import { useMemo, useRef } from 'react'
import type { SessionFeed } from '../feed'
import { streamingItem } from './items'
import { ChatProjection } from './projection'
import type { ChatItem } from './items'

/**
 * The feed as chat items: the log's items (projected incrementally as events arrive, unchanged
 * items kept identical so their rows do not re-render) plus the streaming step at the end
 * (rebuilt per delta, without touching the log's projection).
 */
export function useChatItems(feed: SessionFeed): readonly ChatItem[] {
  const projection = useRef<{ sessionId: string; projection: ChatProjection }>(undefined)
  const sessionId = feed.session.id
  const logItems = useMemo(() => {
    if (projection.current?.sessionId !== sessionId) {
      projection.current = { sessionId, projection: new ChatProjection() }
    }
    return projection.current.projection.update(feed.events)
  }, [feed.events, sessionId])
  return useMemo(() => {
    const live = streamingItem(feed.streaming)
    return live ? [...logItems, live] : logItems
  }, [logItems, feed.streaming])
}
