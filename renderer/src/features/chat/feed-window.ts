/**
 * How much of a long history the chat keeps in memory. The feed is a window over the log: pages
 * are read as the chat scrolls towards either of its edges (use-feed-window.ts), and once the
 * window holds more than `WINDOW_MAX` events, the side away from where the user is heading is
 * trimmed to `KEEP_BEYOND` events past what is shown. Pure (no React, no DOM), so unit-tested as
 * is (test/renderer/feed-window.test.ts).
 *
 * Cuts fall where a turn starts, so the window never begins or ends inside a turn it trimmed: a
 * tool call is never kept without its result, nor an answer without its question.
 */
import type { EventDto } from '../../../../protocol/contract'
import { firstIndexFrom } from '../../state/event-cache'

/**
 * Events the window may hold before it is trimmed: about a thousand messages, a few MB. A page
 * read while scrolling is at most `OLDER_PAGE_MAX` (5000), so the window peaks near
 * `WINDOW_MAX + OLDER_PAGE_MAX` and settles back, however long the history.
 */
export const WINDOW_MAX = 4000

/**
 * Events kept beyond what is shown on the trimmed side: hundreds of screens, far past the few
 * screens from an edge at which the next page is read, so a trimmed side is never read again
 * just because the view moved a little back.
 */
export const KEEP_BEYOND = 1200

/** The seqs the chat shows: the first row's first event to the last row's last change. */
export interface Shown {
  readonly first: number
  readonly last: number
}

/** Which side to let go of: the one behind the direction the window last grew in. */
export type TrimSide = 'older' | 'newer'

/**
 * The range of seqs to keep (`toSeq` exclusive; an untouched side is 0 or Infinity), or
 * undefined when nothing is far enough to go. `events` are the feed's, sorted by seq.
 */
export function trimRange(
  events: readonly EventDto[],
  shown: Shown,
  side: TrimSide,
  keep = KEEP_BEYOND,
): { readonly fromSeq: number; readonly toSeq: number } | undefined {
  if (side === 'newer') {
    const cut = lastIndexAtOrBelow(events, shown.last) + keep
    const at = turnStartFrom(events, cut, 1)
    const event = at === undefined ? undefined : events[at]
    return event === undefined ? undefined : { fromSeq: 0, toSeq: event.seq }
  }
  const cut = firstIndexFrom(events, shown.first) - keep
  const at = turnStartFrom(events, cut, -1)
  const event = at === undefined ? undefined : events[at]
  return event === undefined ? undefined : { fromSeq: event.seq, toSeq: Number.POSITIVE_INFINITY }
}

/**
 * The first index from `index` on (step +1) or back (step -1) where a new turn starts, inside
 * the list and never at its first event (a cut there would keep everything).
 */
function turnStartFrom(
  events: readonly EventDto[],
  index: number,
  step: 1 | -1,
): number | undefined {
  for (let i = index; i > 0 && i < events.length; i += step) {
    if (events[i]?.turn !== events[i - 1]?.turn) return i
  }
  return undefined
}

function lastIndexAtOrBelow(events: readonly EventDto[], seq: number): number {
  return firstIndexFrom(events, seq + 1) - 1
}
