import type { Virtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useRef } from 'react'
import type { RefObject } from 'react'
import type { SessionFeed } from '../feed'
import type { ChatItem } from './items'

/**
 * How close to the top (px) the view may come before the next older page is read: a few
 * screens, so a steady scroll up rarely reaches the top before the page is in.
 */
export const OLDER_PAGE_MARGIN = 2400

/**
 * The chat opens on the history's tail; this reads older pages as the user scrolls up, and keeps
 * the rows in view where they were when a page is prepended. Rows are placed from the top, so
 * rows added above would push the view down by their height: the scroll offset moves by as much
 * (the height the virtualizer gives the rows now above the previous first one).
 */
export function useOlderPages(
  scroller: RefObject<HTMLDivElement | null>,
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  feed: SessionFeed,
  loadOlder: () => Promise<void>,
): void {
  const first = useRef<{ key: string; seq: number } | undefined>(undefined)
  const firstSeq = feed.events[0]?.seq

  useLayoutEffect(() => {
    const before = first.current
    const key = items[0]?.key
    first.current = key === undefined || firstSeq === undefined ? undefined : { key, seq: firstSeq }
    const element = scroller.current
    // Only a page prepended moves the view: an item placed first for another reason (the
    // project's context shown above the first message) is not a page.
    if (before === undefined || firstSeq === undefined || firstSeq >= before.seq) return
    if (element === null || before.key === key) return
    const index = items.findIndex((item) => item.key === before.key)
    const start = index > 0 ? virtualizer.measurementsCache[index]?.start : undefined
    if (start !== undefined) element.scrollTop += start
  }, [items, firstSeq, scroller, virtualizer])

  const { hasOlder, isLoadingOlder, isLoading } = feed
  useEffect(() => {
    const element = scroller.current
    if (element === null || !hasOlder || isLoadingOlder || isLoading) return
    const check = () => {
      if (element.scrollTop < OLDER_PAGE_MARGIN) void loadOlder()
    }
    // A short window (the opening page fills less than the margin) reads on without a scroll.
    check()
    element.addEventListener('scroll', check, { passive: true })
    return () => element.removeEventListener('scroll', check)
  }, [scroller, hasOlder, isLoadingOlder, isLoading, loadOlder])
}
