import type { Virtualizer } from '@tanstack/react-virtual'
import { useEffect, useState } from 'react'
import type { RefObject } from 'react'
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
 * the last scroll event. Only the user's own moves fly (`isUserMoving`: the scroll bar held, or
 * a paging key down); the chat's and the page's are no flight: following the end (`isStuck`),
 * holding the view on its row when a page lands above, a resize re-measuring the rows, a
 * `scrollIntoView`. (A resize counted as leaps once kept the chat in plain rows: their other
 * heights moved the view again, which counted as more leaps.)
 */
export function useFlyingPast(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  items: readonly ChatItem[],
  isStuck: boolean,
  isUserMoving: boolean,
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
  const isScrolling = virtualizer.isScrolling && !isStuck && isUserMoving
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

/** Keys that move the view by a page or more, held down: a flight when repeated. */
const PAGING_KEYS = new Set(['PageUp', 'PageDown', 'Home', 'End', 'ArrowUp', 'ArrowDown'])

/**
 * Whether the user is moving the view now: a press on the scroller itself (its scroll bar) not
 * yet released, or a paging key held down in it.
 */
export function useUserMoving(scroller: RefObject<HTMLElement | null>): boolean {
  const [isPressed, setPressed] = useState(false)
  const [isKeyDown, setKeyDown] = useState(false)
  useEffect(() => {
    const element = scroller.current
    if (!element) return
    const press = (event: PointerEvent) => {
      if (event.target === element) setPressed(true)
    }
    const release = () => setPressed(false)
    const key = (event: KeyboardEvent) => setKeyDown(PAGING_KEYS.has(event.key))
    const keyUp = () => setKeyDown(false)
    element.addEventListener('pointerdown', press)
    element.addEventListener('keydown', key)
    globalThis.addEventListener('pointerup', release)
    globalThis.addEventListener('pointercancel', release)
    globalThis.addEventListener('keyup', keyUp)
    globalThis.addEventListener('blur', keyUp)
    return () => {
      element.removeEventListener('pointerdown', press)
      element.removeEventListener('keydown', key)
      globalThis.removeEventListener('pointerup', release)
      globalThis.removeEventListener('pointercancel', release)
      globalThis.removeEventListener('keyup', keyUp)
      globalThis.removeEventListener('blur', keyUp)
    }
  }, [scroller])
  return isPressed || isKeyDown
}
