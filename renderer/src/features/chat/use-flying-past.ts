import type { Virtualizer } from '@tanstack/react-virtual'
import { useEffect, useState } from 'react'
import type { RefObject } from 'react'
import type { ChatItem } from './items'
import { indexAt } from './use-feed-window'

/** Leaps that make a flight: one is a jump to a place (a link, a key), not a flight. */
const LEAPS_TO_FLY = 2

/**
 * How soon (ms) a leap must follow the one before to count towards a flight: a drag or held
 * jumps leap every frame; two links followed a second apart are two jumps, not a flight.
 */
export const LEAP_GAP_MS = 300

/** What the chat knows of its flight from one render to the next. */
export interface Flight {
  /** The row at the top of the view, and how far into it the view starts. */
  readonly topKey: string | undefined
  readonly into: number
  /** Leaps in a row, each within `LEAP_GAP_MS` of the one before; the last one's time. */
  readonly leaps: number
  readonly leptAt: number
  readonly isFlying: boolean
}

export const GROUNDED: Flight = {
  topKey: undefined,
  into: 0,
  leaps: 0,
  leptAt: Number.NEGATIVE_INFINITY,
  isFlying: false,
}

/** One render's view: where the last top row is now (`seenStart`) and where the view is. */
export interface FlightView {
  readonly topKey: string | undefined
  readonly into: number
  readonly offset: number
  readonly height: number
  /** Where the row at the top last time starts now (undefined once let go of). */
  readonly seenStart: number | undefined
  /** The user is moving the view and the virtualizer sees it scroll. */
  readonly isScrolling: boolean
  readonly now: number
}

/**
 * The flight after one more render. A leap is the view more than half a view away from where
 * the last top row said it was; moves of less neither count nor break a run of leaps. They come
 * between leaps when the rows just drawn are measured (the virtualizer moves the view by what a
 * row above grew), and when they broke the run, jumps over full rows never took off: each full
 * row measured reset the count. Only time breaks a run. A flight lasts while the user scrolls.
 */
export function nextFlight(seen: Flight, view: FlightView): Flight {
  const { topKey, into, isScrolling, now } = view
  if (!isScrolling) return { ...GROUNDED, topKey, into }
  const moved =
    view.seenStart === undefined ? 0 : Math.abs(view.offset - view.seenStart - seen.into)
  const isLeap = moved > view.height / 2
  const leaps = !isLeap ? seen.leaps : now - seen.leptAt <= LEAP_GAP_MS ? seen.leaps + 1 : 1
  const leptAt = isLeap ? now : seen.leptAt
  return { topKey, into, leaps, leptAt, isFlying: seen.isFlying || leaps >= LEAPS_TO_FLY }
}

/**
 * Whether the chat is flying past its rows: the user is scrolling, and the row at the top of the
 * view has gone more than half a view away between two renders, again and again within moments
 * (a scroll-bar drag, jumps), not a few rows at a time (a wheel, keys). Then most rows in view
 * are new every frame, and the full rows cost more than a frame to build: rows are drawn plain
 * (plain-row.tsx) until the scrolling stops, which the virtualizer says 150 ms after the last
 * scroll event. Only the user's own moves fly (`isUserMoving`: the scroll bar held, or a paging
 * key down); the chat's and the page's are no flight: following the end (`isStuck`), holding
 * the view on its row when a page lands above, a resize re-measuring the rows, a
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
  const rows = virtualizer.measurementsCache
  const topIndex = indexAt(rows, offset)
  const topKey = topIndex === undefined ? undefined : items[topIndex]?.key
  const into = topIndex === undefined ? 0 : offset - (rows[topIndex]?.start ?? 0)
  const [seen, setSeen] = useState<Flight>(() => ({ ...GROUNDED, topKey, into }))
  // Where the last top row is now: rows placed again above (a page landing) move it and the
  // view alike, which is no move of the user's.
  const seenIndex =
    seen.topKey === topKey ? topIndex : items.findIndex((item) => item.key === seen.topKey)
  const next = nextFlight(seen, {
    topKey,
    into,
    offset,
    height: virtualizer.scrollRect?.height ?? 0,
    seenStart: seenIndex === undefined ? undefined : rows[seenIndex]?.start,
    isScrolling: virtualizer.isScrolling && !isStuck && isUserMoving,
    now: performance.now(),
  })
  // Kept from the previous render, as React's guide to derived state does it. A still view
  // finds itself where it was on the next render: nothing changes, and no render follows.
  const isSame =
    next.topKey === seen.topKey &&
    next.into === seen.into &&
    next.leaps === seen.leaps &&
    next.leptAt === seen.leptAt &&
    next.isFlying === seen.isFlying
  if (!isSame) setSeen(next)
  return next.isFlying
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
