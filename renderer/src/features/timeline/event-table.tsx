import { memo, useEffect, useRef, useState } from 'react'
import type { KeyboardEvent, ReactNode } from 'react'
import type { EventDto } from '../../../../protocol/contract'
import { summarizeEvent } from './event-summary'
import { useRowWindow } from './use-row-window'

/** What the table reads rows from: paged rows, or the loaded rows through the text filter. */
export interface RowModel {
  readonly count: number
  rowAt(index: number): EventDto | undefined
  /** Asks for rows `start..end` (inclusive) to be loaded; a no-op for in-memory rows. */
  ensure(start: number, end: number): void
  /** Changes whenever rows change, so memoised rows re-render. */
  readonly version: number
}

export const ROW_HEIGHT = 24

/** `12:03:04.567`: the inspector is about ordering and durations, so milliseconds show. */
export function formatTime(at: number): string {
  const date = new Date(at)
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
}

/**
 * The call an event's call was made by (code mode: a `run_code` program's inner call carries
 * `parent`), or undefined. Such rows are indented under their program's call.
 */
export function parentCallOf(event: EventDto): string | undefined {
  switch (event.type) {
    case 'tool/call':
    case 'tool/result':
    case 'approval/requested':
    case 'approval/decided':
      return event.data.parent?.callId
    default:
      return undefined
  }
}

/** The table's columns, in order: the header and every row are drawn from this one list. */
interface Column {
  readonly name: string
  readonly className: string
  /** More classes for one row's cell, each starting with a space. */
  readonly extraClass?: (event: EventDto) => string
  readonly value: (event: EventDto, summary: string) => ReactNode
}

const COLUMNS: readonly Column[] = [
  { name: 'seq', className: 'tl-cell-seq', value: (event) => event.seq },
  { name: 'time', className: 'tl-cell-time', value: (event) => formatTime(event.at) },
  {
    name: 'type',
    className: 'tl-cell-type',
    extraClass: (event) =>
      ` tl-type-${event.type.split('/')[0] ?? ''}${parentCallOf(event) === undefined ? '' : ' tl-nested'}`,
    value: (event) => event.type,
  },
  { name: 'turn', className: 'tl-cell-num', value: (event) => event.turn },
  { name: 'step', className: 'tl-cell-num', value: (event) => event.step },
  { name: 'summary', className: 'tl-cell-summary', value: (_event, summary) => summary },
]

interface EventRowProps {
  readonly event: EventDto | undefined
  readonly index: number
  readonly top: number
  readonly isSelected: boolean
  /** The one row in the Tab order (a roving tabindex); the arrows move it. */
  readonly isTabStop: boolean
  readonly onSelect: (seq: number) => void
  readonly onFocusRow: (index: number) => void
}

/**
 * One row; memoised, so a page landing re-renders only rows whose event changed. A row not read
 * yet has the same cells, empty, so it turns into a loaded row by changing text, not elements.
 */
const EventRow = memo(function EventRow({
  event,
  index,
  top,
  isSelected,
  isTabStop,
  onSelect,
  onFocusRow,
}: EventRowProps) {
  const style = { transform: `translateY(${top}px)` }
  const focus = {
    tabIndex: isTabStop ? 0 : -1,
    'data-index': index,
    onFocus: () => onFocusRow(index),
  }
  if (event === undefined) {
    return (
      <div
        className="tl-row tl-row-pending"
        role="row"
        aria-rowindex={index + 2}
        style={style}
        {...focus}
      >
        {COLUMNS.map((column) => (
          <span key={column.name} role="gridcell" className={column.className}>
            {column.name === 'seq' ? '…' : ''}
          </span>
        ))}
      </div>
    )
  }
  const summary = summarizeEvent(event)
  const parent = parentCallOf(event)
  const inside = parent === undefined ? '' : ` (inside call ${parent})`
  return (
    <div
      className={`tl-row${isSelected ? ' tl-row-selected' : ''}${parent === undefined ? '' : ' tl-row-nested'}`}
      title={`#${event.seq} ${event.type}${inside} at ${formatTime(event.at)}${summary ? `\n${summary}` : ''}`}
      data-parent={parent}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={isSelected}
      data-seq={event.seq}
      data-type={event.type}
      style={style}
      {...focus}
      onClick={() => onSelect(event.seq)}
    >
      {COLUMNS.map((column) => (
        <span
          key={column.name}
          role="gridcell"
          className={`${column.className}${column.extraClass?.(event) ?? ''}`}
        >
          {column.value(event, summary)}
        </span>
      ))}
    </div>
  )
})

export interface EventTableProps {
  readonly rows: RowModel
  /** `rows.version` when the parent rendered: the table re-renders when it changes. */
  readonly version: number
  readonly selectedSeq: number | undefined
  /** Must keep its identity across renders, or every row re-renders with the table. */
  readonly onSelect: (seq: number) => void
  /** A row index to bring into view (set when the selection came from outside the table). */
  readonly scrollTo: { readonly index: number } | undefined
}

/** Rows kept in the page beyond each end of the view. */
const OVERSCAN = 6
/** Rows read beyond each end of the view, so a slow scroll finds them loaded. */
const READ_AHEAD = 50
/**
 * How long the view must stay within a page of where it was before the rows of a jump are read.
 * A drag of the scroll bar or a fast flick passes a page or more a frame: reading the windows it
 * passes would fill the frames with work for rows nobody sees, so they show "…" until it rests.
 */
const SETTLE_MS = 80

/**
 * Asks `rows` for what the view needs: at once when the view moved less than a page since the
 * last move, or after a single jump (a scroll bar click, End, following the tail); a jump that
 * follows another within SETTLE_MS waits until the view rests that long.
 */
function useReadWhenSettled(rows: RowModel, first: number, last: number): void {
  const lastMove = useRef<{ first: number; at: number } | undefined>(undefined)
  useEffect(() => {
    const read = () => rows.ensure(Math.max(0, first - READ_AHEAD), last + READ_AHEAD)
    const now = performance.now()
    const previous = lastMove.current
    const isJump = previous !== undefined && Math.abs(first - previous.first) > last - first + 1
    const isFast = isJump && now - previous.at < SETTLE_MS
    if (previous?.first !== first) lastMove.current = { first, at: now }
    if (!isFast) {
      read()
      return
    }
    const timer = setTimeout(read, SETTLE_MS)
    return () => clearTimeout(timer)
  }, [rows, first, last, rows.count])
}

/**
 * The rows in the page: always `slots` of them (the view's height in rows, plus overscan; fewer
 * only when the table has fewer), from `first` on, listed by slot (`index % slots`). A row
 * scrolled out hands its slot, and so its element, to the row scrolled in, and the list's order
 * never changes: a scroll updates the text and place of the rows that came into view and
 * nothing else, never adding, removing or moving an element. The rows are placed by transform,
 * so the page's order is the slots', not the rows' (each row carries `aria-rowindex`).
 */
export function rowsBySlot(first: number, count: number, slots: number): number[] {
  const shown = Math.min(slots, count)
  const start = Math.max(0, Math.min(first, count - shown))
  return Array.from({ length: shown }, (_, slot) => start + mod(slot - start, shown))
}

const mod = (a: number, n: number) => ((a % n) + n) % n

/**
 * The virtualised table: only the rows in view (plus overscan) exist in the DOM, and only their
 * windows are asked for, so 200k rows scroll like 200 (see `rowsBySlot`). It is a grid for the
 * keyboard: one row is in the Tab order (the last focused while it exists, else the first in
 * view, so the scroll region always holds a focusable row), Up/Down/Home/End/Page Up/Page Down
 * move the focus (scrolling the row into view first) and Enter selects the focused row.
 */
export const EventTable = memo(function EventTable({
  rows,
  selectedSeq,
  onSelect,
  scrollTo,
}: EventTableProps) {
  const scroller = useRef<HTMLDivElement>(null)
  const view = useRowWindow(scroller, rows.count, ROW_HEIGHT, OVERSCAN)
  const { first, last, slots, scrollToIndex } = view
  useReadWhenSettled(rows, first, last)

  useEffect(() => {
    if (scrollTo !== undefined) scrollToIndex(scrollTo.index, 'center')
  }, [scrollTo, scrollToIndex])

  // Following the end, as a log tail: at the bottom, new rows scroll into view; scrolled up,
  // the view stays and counts what arrived below it.
  const [follow, setFollow] = useState({ isFollowing: true, seenCount: rows.count })
  const latest = rows.count - 1
  // Where the view was when last seen at the end. Following moves the view only from there: a
  // view the user moved since, whose scroll event has not run yet, is left where it is (a wheel
  // that began in the frame after a drag reached the end was pulled back to the end before its
  // first scroll event, and stayed there).
  const endTop = useRef<number | undefined>(undefined)
  useEffect(() => {
    const element = scroller.current
    if (!follow.isFollowing || latest < 0 || element === null) return
    if (endTop.current !== undefined && element.scrollTop < endTop.current - 1) return
    scrollToIndex(latest, 'end')
    endTop.current = element.scrollTop
  }, [follow.isFollowing, latest, scrollToIndex])
  // Reads the scroller before the window renders the new rows: reading it after would make the
  // browser lay out the changed rows at once, inside the scroll event.
  const onScroll = () => {
    const element = scroller.current
    if (element === null) return
    const isAtEnd = element.scrollTop + element.clientHeight >= element.scrollHeight - ROW_HEIGHT
    if (isAtEnd) endTop.current = element.scrollTop
    view.onScroll()
    if (isAtEnd !== follow.isFollowing) setFollow({ isFollowing: isAtEnd, seenCount: rows.count })
  }
  const newCount = follow.isFollowing ? 0 : Math.max(0, rows.count - follow.seenCount)

  const [focusIndex, setFocusIndex] = useState<number | undefined>(undefined)
  const tabStop =
    focusIndex !== undefined && focusIndex >= first && focusIndex <= last ? focusIndex : first
  // A row asked for by the keyboard may exist only after the scroll renders it: focused then.
  const pendingFocus = useRef<number | undefined>(undefined)
  useEffect(() => {
    const index = pendingFocus.current
    if (index === undefined) return
    const row = scroller.current?.querySelector<HTMLElement>(`[data-index="${index}"]`)
    if (row === null || row === undefined) return
    pendingFocus.current = undefined
    row.focus({ preventScroll: true })
  })
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const current = Number((event.target as HTMLElement).dataset['index'] ?? tabStop)
    const page = Math.max(1, last - first + 1 - 2 * OVERSCAN)
    let next: number
    if (event.key === 'ArrowDown') next = current + 1
    else if (event.key === 'ArrowUp') next = current - 1
    else if (event.key === 'PageDown') next = current + page
    else if (event.key === 'PageUp') next = current - page
    else if (event.key === 'Home') next = 0
    else if (event.key === 'End') next = rows.count - 1
    else if (event.key === 'Enter' || event.key === ' ') {
      const seq = rows.rowAt(current)?.seq
      if (seq !== undefined) onSelect(seq)
      event.preventDefault()
      return
    } else return
    event.preventDefault()
    const target = Math.min(Math.max(next, 0), rows.count - 1)
    if (target < 0) return
    setFocusIndex(target)
    pendingFocus.current = target
    scrollToIndex(target, 'auto')
    scroller.current?.querySelector<HTMLElement>(`[data-index="${target}"]`)?.focus()
  }

  return (
    <>
      <div
        className="tl-table"
        role="grid"
        aria-label="Events"
        aria-readonly="true"
        aria-rowcount={rows.count + 1}
      >
        <div className="tl-row tl-head" role="row" aria-rowindex={1}>
          {COLUMNS.map((column) => (
            <span key={column.name} role="columnheader" className={column.className}>
              {column.name}
            </span>
          ))}
        </div>
        <div className="tl-scroll" ref={scroller} data-testid="timeline-scroll" onScroll={onScroll}>
          <div
            className="tl-rows"
            role="rowgroup"
            style={{ height: rows.count * ROW_HEIGHT }}
            onKeyDown={onKeyDown}
          >
            {rowsBySlot(first, rows.count, slots).map((index) => {
              const event = rows.rowAt(index)
              return (
                <EventRow
                  key={index % slots}
                  event={event}
                  index={index}
                  top={index * ROW_HEIGHT}
                  isSelected={event !== undefined && event.seq === selectedSeq}
                  isTabStop={index === tabStop}
                  onSelect={onSelect}
                  onFocusRow={setFocusIndex}
                />
              )
            })}
          </div>
        </div>
      </div>
      {newCount > 0 && (
        <button
          type="button"
          className="tl-new-events"
          onClick={() => {
            // Asked for: from wherever the view is.
            endTop.current = undefined
            setFollow({ isFollowing: true, seenCount: rows.count })
          }}
        >
          {newCount} new event{newCount === 1 ? '' : 's'}
        </button>
      )}
    </>
  )
})
