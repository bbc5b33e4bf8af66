import { describe, expect, it } from 'vitest'
import { GROUNDED, LEAP_GAP_MS, nextFlight } from '../../renderer/src/features/chat/use-flying-past'
import type { Flight } from '../../renderer/src/features/chat/use-flying-past'

const HEIGHT = 1000

/**
 * The views of a scroll, one per render: `offset` is where the view is, `at` the time. The top
 * row is named after the 100 px slot the view starts in, and nothing is placed again, so the
 * last top row starts where it started.
 */
function fly(moves: readonly { offset: number; at: number; isScrolling?: boolean }[]): Flight[] {
  let seen: Flight = { ...GROUNDED, topKey: 'row0', into: 0 }
  const starts = new Map([['row0', 0]])
  return moves.map(({ offset, at, isScrolling = true }) => {
    const start = Math.floor(offset / 100) * 100
    const topKey = `row${start}`
    starts.set(topKey, start)
    seen = nextFlight(seen, {
      topKey,
      into: offset - start,
      offset,
      height: HEIGHT,
      seenStart: seen.topKey === undefined ? undefined : starts.get(seen.topKey),
      isScrolling,
      now: at,
    })
    return seen
  })
}

const flying = (flights: readonly Flight[]) => flights.map((flight) => flight.isFlying)

describe('the chat flies past its rows', () => {
  it('on two leaps of more than half a view in a row, and stays up while scrolling', () => {
    const drag = [0, 1, 2, 3, 4].map((i) => ({ offset: 20_000 + i * 3000, at: i * 16 }))
    expect(flying(fly(drag))).toEqual([false, true, true, true, true])
  })

  it('when the rows just drawn are measured between the leaps (a small move each time)', () => {
    // A jump, then the view moved 60 px as a row above is measured taller, again and again:
    // these small moves once reset the count, and jumps over full rows never took off.
    const moves = [
      { offset: 5000, at: 0 },
      { offset: 5060, at: 4 },
      { offset: 30_000, at: 16 },
      { offset: 30_060, at: 20 },
    ]
    expect(flying(fly(moves))).toEqual([false, false, true, true])
  })

  it('not on leaps far apart in time: two links followed are two jumps', () => {
    const moves = [
      { offset: 5000, at: 0 },
      { offset: 30_000, at: LEAP_GAP_MS + 1 },
      { offset: 60_000, at: 2 * LEAP_GAP_MS + 2 },
    ]
    expect(flying(fly(moves))).toEqual([false, false, false])
  })

  it('not on a wheel: a few rows at a time, however long', () => {
    const wheel = Array.from({ length: 50 }, (_, i) => ({ offset: 9000 - i * 120, at: i * 16 }))
    expect(fly(wheel).some((flight) => flight.isFlying)).toBe(false)
  })

  it('lands once the scrolling stops, and starts again from no leaps', () => {
    const moves = [
      { offset: 5000, at: 0 },
      { offset: 30_000, at: 16 },
      { offset: 30_000, at: 200, isScrolling: false },
      { offset: 60_000, at: 216 },
    ]
    const flights = fly(moves)
    expect(flying(flights)).toEqual([false, true, false, false])
    expect(flights[2]?.leaps).toBe(0)
  })
})
