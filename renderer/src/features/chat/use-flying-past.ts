import type { Virtualizer } from '@tanstack/react-virtual'
import { useState } from 'react'

/**
 * Whether the chat is flying past its rows: scrolling, and since the scroll began the view has
 * moved more than half its height between two renders (a scroll-bar drag, a jump), not a few
 * rows at a time (a wheel, keys). Then most rows in view are new every frame, and the full rows
 * cost more than a frame to build: rows are drawn plain (plain-row.tsx) until the scrolling
 * stops, which the virtualizer says 150 ms after the last scroll event.
 */
export function useFlyingPast(virtualizer: Virtualizer<HTMLDivElement, Element>): boolean {
  const offset = virtualizer.scrollOffset ?? 0
  const height = virtualizer.scrollRect?.height ?? 0
  const { isScrolling } = virtualizer
  const [seen, setSeen] = useState({ offset, isFlying: false })
  const hasLeapt = Math.abs(offset - seen.offset) > height / 2
  const isFlying = isScrolling && (seen.isFlying || hasLeapt)
  // Kept from the previous render, as React's guide to derived state does it.
  if (offset !== seen.offset || isFlying !== seen.isFlying) setSeen({ offset, isFlying })
  return isFlying
}
