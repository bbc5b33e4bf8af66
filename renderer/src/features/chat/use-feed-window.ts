import type { VirtualItem, Virtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useRef } from 'react'
import type { RefObject } from 'react'
import type { SessionFeed } from '../feed'
import { trimRange, WINDOW_MAX } from './feed-window'
import type { Shown } from './feed-window'
import type { ChatItem } from './items'

/**
 * How close to an edge of the window (px) the view may come before the next page beyond it is
 * read: a few screens, so a steady scroll rarely reaches the edge before the page is in.
 */
export const PAGE_MARGIN = 2400

/** What the hook asks of the store. */
export interface FeedWindowOps {
  readonly loadOlder: () => Promise<void>
  readonly loadNewer: () => Promise<void>
  readonly trimFeed: (fromSeq: number, toSeq: number) => void
}

/** The row at the view's top and how far into it the view starts. */
interface Anchor {
  readonly key: string
  readonly offset: number
}

/**
 * The chat's window over the history (feed-window.ts says what it keeps). This reads pages as
 * the view nears an edge of the window, trims the far side once the window is large, and keeps
 * the rows in view where they were when rows come or go above them. Rows are placed from the
 * top, so rows added above would push the view down by their height, and rows let go of above
 * would pull it up: the view is held by the row at its top (its anchor), placed again at the
 * same offset after the window's first event changed.
 */
export function useFeedWindow(
  scroller: RefObject<HTMLDivElement | null>,
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  feed: SessionFeed,
  ops: FeedWindowOps,
): void {
  const anchor = useRef<Anchor | undefined>(undefined)
  const firstSeen = useRef<number | undefined>(undefined)
  const firstSeq = feed.events[0]?.seq

  // Every commit: put the view back on its anchor if the window's start moved, else take the
  // anchor from where the view is: the scroller's own offset, not the virtualizer's, which lags
  // a scroll set by code by a frame (its scroll event comes then). An anchor taken from it in
  // between, once the window's start moved, put the view pages back up.
  useLayoutEffect(() => {
    const before = firstSeen.current
    firstSeen.current = firstSeq
    const element = scroller.current
    const held = anchor.current
    if (element !== null && held !== undefined && before !== undefined && firstSeq !== before) {
      const start = startOf(virtualizer, items, held.key)
      if (start !== undefined) {
        element.scrollTop = start + held.offset
        return
      }
    }
    anchor.current = anchorAt(virtualizer, items, element?.scrollTop ?? 0)
  })

  const { hasOlder, isLoadingOlder, hasNewer, isLoadingNewer, isLoading } = feed
  const { loadOlder, loadNewer, trimFeed } = ops
  useEffect(() => {
    const element = scroller.current
    if (element === null || isLoading) return
    const wantsOlder = hasOlder && !isLoadingOlder
    const wantsNewer = hasNewer && !isLoadingNewer
    const check = () => {
      const top = element.scrollTop
      anchor.current = anchorAt(virtualizer, items, top)
      const bottom = virtualizer.getTotalSize() - top - (virtualizer.scrollRect?.height ?? 0)
      if (wantsOlder && top < PAGE_MARGIN) void loadOlder()
      if (wantsNewer && bottom < PAGE_MARGIN) void loadNewer()
    }
    // A short window (the opening page fills less than the margin) reads on without a scroll.
    check()
    element.addEventListener('scroll', check, { passive: true })
    return () => element.removeEventListener('scroll', check)
  }, [scroller, virtualizer, items, hasOlder, isLoadingOlder, hasNewer, isLoadingNewer, isLoading])

  // Once the window grew past its budget, the side it did not grow on is trimmed.
  const edges = useRef<{ first: number; last: number } | undefined>(undefined)
  const { events } = feed
  useEffect(() => {
    const first = events[0]?.seq
    const last = events.at(-1)?.seq
    const before = edges.current
    edges.current = first === undefined || last === undefined ? undefined : { first, last }
    if (before === undefined || first === undefined || last === undefined) return
    if (events.length <= WINDOW_MAX) return
    const side = first < before.first ? 'newer' : last > before.last ? 'older' : undefined
    const shown = side === undefined ? undefined : shownSeqs(virtualizer, items, anchor.current)
    const range =
      side === undefined || shown === undefined ? undefined : trimRange(events, shown, side)
    if (range !== undefined) trimFeed(range.fromSeq, range.toSeq)
    // Only a change of the events decides (items follow them; the virtualizer is one object).
  }, [events])
}

/** The row at `offset` and how far into it `offset` is. */
function anchorAt(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  offset: number,
): Anchor | undefined {
  const index = indexAt(virtualizer.measurementsCache, offset)
  const row = index === undefined ? undefined : virtualizer.measurementsCache[index]
  const item = index === undefined ? undefined : items[index]
  return row === undefined || item === undefined
    ? undefined
    : { key: item.key, offset: offset - row.start }
}

/** Where the row of `key` starts now, if it is still in the window. */
function startOf(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  key: string,
): number | undefined {
  const index = items.findIndex((item) => item.key === key)
  return index < 0 ? undefined : virtualizer.measurementsCache[index]?.start
}

/** The seqs of the rows in view, from the anchor down one viewport. */
function shownSeqs(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  held: Anchor | undefined,
): Shown | undefined {
  const start = held === undefined ? undefined : startOf(virtualizer, items, held.key)
  if (held === undefined || start === undefined) return undefined
  const top = start + held.offset
  const rows = virtualizer.measurementsCache
  const from = indexAt(rows, top) ?? 0
  const to = indexAt(rows, top + (virtualizer.scrollRect?.height ?? 0)) ?? from
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (let i = from; i <= to; i++) {
    const item = items[i]
    if (item === undefined || item.seq < 0) continue
    first = Math.min(first, item.seq)
    last = Math.max(last, item.rev)
  }
  return first <= last ? { first, last } : undefined
}

/** The index of the row that holds `offset` (binary search of rows placed in order). */
export function indexAt(rows: readonly VirtualItem[], offset: number): number | undefined {
  if (rows.length === 0) return undefined
  let low = 0
  let high = rows.length - 1
  while (low < high) {
    const mid = (low + high + 1) >> 1
    if ((rows[mid]?.start ?? 0) <= offset) low = mid
    else high = mid - 1
  }
  return low
}
