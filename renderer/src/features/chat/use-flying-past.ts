import type { Virtualizer } from '@tanstack/react-virtual'
import { useState } from 'react'
import type { ChatItem } from './items'
import { indexAt } from './use-feed-window'

/** Leaps in a row that make a flight: one is a jump to a place (a link, a key), not a flight. */
const LEAPS_TO_FLY = 2

/**
 * Whether the chat is flying past its rows: the user is scrolling, and since the scroll began
 * the row at the top of the view has gone more than half a view away between two renders, again
 * and again (a scroll-bar drag, jumps), not a few rows at a time (a wheel, keys). Then most rows
 * in view are new every frame, and the full rows cost more than a frame to build: rows are
 * drawn plain (plain-row.tsx) until the scrolling stops, which the virtualizer says 150 ms after
 * the last scroll event. The chat's own moves are no flight: following the end (`isStuck`), and
 * holding the view on its row when a page lands above (that row stays at the top).
 */
export function useFlyingPast(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  isStuck: boolean,
): boolean {
  const offset = virtualizer.scrollOffset ?? 0
  const height = virtualizer.scrollRect?.height ?? 0
  const rows = virtualizer.measurementsCache
  const topIndex = indexAt(rows, offset)
  const topKey = topIndex === undefined ? undefined : items[topIndex]?.key
  const into = topIndex === undefined ? 0 : offset - (rows[topIndex]?.start ?? 0)
  const [seen, setSeen] = useState({ topKey, into, leaps: 0, isFlying: false })
  // How far the view is from the last top row now, against how far it was then: rows placed
  // again above (a page landing) move both alike.
  const seenIndex =
    seen.topKey === topKey ? topIndex : items.findIndex((item) => item.key === seen.topKey)
  const seenStart = seenIndex === undefined ? undefined : rows[seenIndex]?.start
  const moved = seenStart === undefined ? 0 : Math.abs(offset - seenStart - seen.into)
  const leaps = moved > height / 2 ? seen.leaps + 1 : moved > 0 ? 0 : seen.leaps
  const isScrolling = virtualizer.isScrolling && !isStuck
  const isFlying = isScrolling && (seen.isFlying || leaps >= LEAPS_TO_FLY)
  const next = { topKey, into, leaps: isScrolling ? leaps : 0, isFlying }
  // Kept from the previous render, as React's guide to derived state does it. A still view
  // finds itself where it was on the next render: nothing changes, and no render follows.
  const isSame =
    next.topKey === seen.topKey &&
    next.into === seen.into &&
    next.leaps === seen.leaps &&
    next.isFlying === seen.isFlying
  if (!isSame) setSeen(next)
  return isFlying
}
