/**
 * Following the end of a scrolling log. While the user is at the bottom the view is "stuck" and
 * is kept at the end after every change; scrolling up (wheel, keys, a press on the scroll bar)
 * lets go until they come back down or ask to jump. "Away" is whether the end is out of view:
 * a let-go view that still shows the end (a wheel turned up over a short chat) needs no jump.
 * While the chat's window ends before the log does (`hasNewer`: it scrolled far up and let go of
 * the newest pages) its last row is not the end: reaching it reads on, and only a jump sticks.
 */
import { useEffect, useLayoutEffect, useState } from 'react'
import type { KeyboardEvent, PointerEvent, RefObject, WheelEvent } from 'react'

/** Within this many pixels of the end counts as "at the bottom". */
const BOTTOM_SLACK = 48

export interface FollowEnd {
  readonly isStuck: boolean
  readonly isAway: boolean
  readonly setStuck: (isStuck: boolean) => void
  /** For the scrolling element. */
  readonly handlers: {
    readonly onScroll: () => void
    readonly onWheel: (event: WheelEvent<HTMLElement>) => void
    readonly onPointerDown: (event: PointerEvent<HTMLElement>) => void
    readonly onKeyDown: (event: KeyboardEvent<HTMLElement>) => void
  }
}

/**
 * `content` is what can move the end (rows, streamed text, measured heights): any change of it
 * scrolls a stuck view back down. A new `resetKey` (another session) starts stuck.
 * `isUserMoving` is the scroll bar held or a paging key down (use-flying-past.ts): a view moved
 * away from the end then is the user's move, even with no new press (a drag that went down to
 * the end and comes back up without letting go).
 */
export function useFollowEnd(
  scroller: RefObject<HTMLElement | null>,
  resetKey: string,
  content: unknown,
  hasNewer: boolean,
  isUserMoving: boolean,
): FollowEnd {
  const [isStuck, setStuck] = useState(true)
  const [isAway, setAway] = useState(false)
  const distance = () => {
    const element = scroller.current
    return element ? element.scrollHeight - element.scrollTop - element.clientHeight : 0
  }

  useLayoutEffect(() => {
    const element = scroller.current
    if (isStuck && element && !hasNewer) element.scrollTop = element.scrollHeight
    setAway(hasNewer || distance() > BOTTOM_SLACK)
  }, [isStuck, content, hasNewer])

  useEffect(() => {
    setStuck(true)
  }, [resetKey])

  /** Only the user's own scrolling lets go of the end; the virtualiser's adjustments do not. */
  const letGo = () => {
    if (distance() > BOTTOM_SLACK) setStuck(false)
  }
  const handlers = {
    onScroll: () => {
      const away = distance()
      if (away <= BOTTOM_SLACK && !hasNewer) setStuck(true)
      else if (away > BOTTOM_SLACK && isUserMoving) setStuck(false)
      setAway(hasNewer || away > BOTTOM_SLACK)
    },
    onWheel: (event: WheelEvent<HTMLElement>) => {
      if (event.deltaY < 0) setStuck(false)
      else letGo()
    },
    onPointerDown: (event: PointerEvent<HTMLElement>) => {
      if (event.target === event.currentTarget) setStuck(false)
    },
    onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
      if (['PageUp', 'ArrowUp', 'Home'].includes(event.key)) setStuck(false)
    },
  }
  return { isStuck, isAway, setStuck, handlers }
}
