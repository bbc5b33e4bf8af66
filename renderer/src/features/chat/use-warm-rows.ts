import type { VirtualItem } from '@tanstack/react-virtual'
import { useEffect } from 'react'
import type { ChatItem } from './items'
import { warmMarkdown } from './markdown'

/** Rows beyond the rendered ones, on each side, whose markdown is parsed ahead. */
export const WARM_AHEAD = 8
/** Idle time (ms) left in a slice below which warming waits for the next one. */
const SLICE_RESERVE_MS = 3

/**
 * Parses the markdown of the rows just beyond those rendered while the page is idle, nearest
 * first: a row scrolling into view then finds its text parsed (markdown.tsx caches by text),
 * and the frame that shows it only builds its elements. Starts over whenever the rows in view
 * change; stops at once when the page gets busy again.
 */
export function useWarmRows(items: readonly ChatItem[], rows: readonly VirtualItem[]): void {
  const first = rows[0]?.index
  const last = rows.at(-1)?.index
  useEffect(() => {
    if (first === undefined || last === undefined) return
    const texts = textsAround(items, first, last)
    let next = 0
    let handle: number | undefined
    const warm = (deadline: IdleDeadline) => {
      while (next < texts.length && deadline.timeRemaining() > SLICE_RESERVE_MS) {
        warmMarkdown(texts[next] ?? '')
        next++
      }
      handle = next < texts.length ? requestIdleCallback(warm) : undefined
    }
    handle = requestIdleCallback(warm)
    return () => {
      if (handle !== undefined) cancelIdleCallback(handle)
    }
  }, [items, first, last])
}

/** The answers' texts of the `WARM_AHEAD` rows past each end of `first..last`, nearest first. */
function textsAround(items: readonly ChatItem[], first: number, last: number): string[] {
  const texts: string[] = []
  for (let step = 1; step <= WARM_AHEAD; step++) {
    for (const index of [last + step, first - step]) {
      const item = items[index]
      if (item?.kind === 'assistant' && item.text.trim() !== '') texts.push(item.text)
    }
  }
  return texts
}
