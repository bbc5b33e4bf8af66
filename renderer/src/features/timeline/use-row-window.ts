/**
 * Which rows of a fixed-height list are in view, from the scroller's offset and height alone.
 * Every row is ROW_HEIGHT tall, so nothing is measured and nothing is kept per row: a list of
 * 200k rows costs what a list of 200 does, also when it grows by one row at a time (a general
 * virtualiser keeps an offset for every row and rebuilds them all when the count changes).
 */
import { useCallback, useLayoutEffect, useRef, useState } from 'react'
import type { RefObject } from 'react'
import { flushSync } from 'react-dom'

export type Align = 'start' | 'center' | 'end' | 'auto'

export interface RowWindow {
  /** The first and last row index in view, overscan included (last < first when empty). */
  readonly first: number
  readonly last: number
  /** Rows the view holds when full (its height in rows, plus overscan at each end). */
  readonly slots: number
  /** Scrolls so that row `index` is in view, placed as `align` says. */
  readonly scrollToIndex: (index: number, align: Align) => void
  /** The scroller's onScroll: updates the window when the rows in view changed. */
  readonly onScroll: () => void
}

interface View {
  readonly top: number
  readonly height: number
}

/** The scroll offset that shows row `index` as `align` says, or undefined to stay. */
export function offsetFor(
  index: number,
  align: Align,
  view: View,
  rowHeight: number,
): number | undefined {
  const rowTop = index * rowHeight
  const alignEnd = rowTop + rowHeight - view.height
  if (align === 'start') return rowTop
  if (align === 'end') return alignEnd
  if (align === 'center') return rowTop - (view.height - rowHeight) / 2
  if (rowTop < view.top) return rowTop
  if (rowTop + rowHeight > view.top + view.height) return alignEnd
  return undefined
}

/** The rows of `view` in a list of `count` rows, `overscan` more at each end. */
export function rowsInView(view: View, count: number, rowHeight: number, overscan: number) {
  const first = Math.max(0, Math.floor(view.top / rowHeight) - overscan)
  const last = Math.min(count - 1, Math.ceil((view.top + view.height) / rowHeight) - 1 + overscan)
  return { first, last }
}

export function useRowWindow(
  scroller: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan: number,
): RowWindow {
  const [view, setView] = useState<View>({ top: 0, height: 0 })
  const viewRef = useRef(view)
  viewRef.current = view

  const read = useCallback((): View | undefined => {
    const element = scroller.current
    if (element === null) return undefined
    return { top: element.scrollTop, height: element.clientHeight }
  }, [scroller])

  /**
   * Takes the scroller's view when its rows changed; from a scroll, rendered at once, so the
   * frame that shows the new offset shows its rows too.
   */
  const update = useCallback(
    (isScroll: boolean) => {
      const next = read()
      if (next === undefined) return
      const before = viewRef.current
      const isSameRows =
        Math.floor(next.top / rowHeight) === Math.floor(before.top / rowHeight) &&
        Math.ceil((next.top + next.height) / rowHeight) ===
          Math.ceil((before.top + before.height) / rowHeight)
      if (isSameRows && next.height === before.height) return
      viewRef.current = next
      if (isScroll) flushSync(() => setView(next))
      else setView(next)
    },
    [read, rowHeight],
  )

  useLayoutEffect(() => {
    const element = scroller.current
    if (element === null) return
    update(false)
    const observer = new ResizeObserver(() => update(false))
    observer.observe(element)
    return () => observer.disconnect()
  }, [scroller, update])

  const scrollToIndex = useCallback(
    (index: number, align: Align) => {
      const element = scroller.current
      const current = read()
      if (element === null || current === undefined) return
      const top = offsetFor(index, align, current, rowHeight)
      if (top !== undefined) element.scrollTop = Math.max(0, top)
    },
    [scroller, read, rowHeight],
  )

  const { first, last } = rowsInView(view, count, rowHeight, overscan)
  const slots = Math.ceil(view.height / rowHeight) + 1 + 2 * overscan
  const onScroll = useCallback(() => update(true), [update])
  return { first, last, slots, scrollToIndex, onScroll }
}
