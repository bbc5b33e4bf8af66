import { describe, expect, it } from 'vitest'
import { initialFeed, newerStart, reduceFeed } from '../../renderer/src/state/feed-reducer'
import type { FeedAction, FeedState } from '../../renderer/src/state/feed-reducer'
import { EventCache } from '../../renderer/src/state/event-cache'
import { trimRange } from '../../renderer/src/features/chat/feed-window'
import { asEvent } from './event-fixture'

const SESSION = 's1'

/** Turns of three events each (start, message, end), seqs 3t..3t+2, for turns `from..to`. */
function turns(from: number, to: number) {
  const events = []
  for (let turn = from; turn <= to; turn++) {
    for (const [i, type] of ['turn/start', 'user/message', 'turn/end'].entries()) {
      const seq = turn * 3 + i
      events.push(asEvent({ seq, type, v: 1, turn, step: 0, at: seq, data: {} }))
    }
  }
  return events
}

const run = (actions: readonly FeedAction[], from: FeedState = initialFeed(SESSION)) =>
  actions.reduce(reduceFeed, from)

/** A feed opened on turns 10..19 of a 20-turn log (seqs 30..59). */
const opened = () =>
  run([{ type: 'tail', coveredFrom: 30, toSeq: 60, events: turns(10, 19), length: 60 }])

const seqs = (state: FeedState) => state.events.map((event) => event.seq)

/** The first event of turn 20, the one past the log above. */
const turn20 = turns(20, 20).slice(0, 1)

describe('trimRange', () => {
  const events = turns(0, 99)

  it('cuts the newer side at the first turn start past the kept events', () => {
    // Shown: turns 10..11 (seqs 30..35); 11 events kept past seq 35 end at seq 46, inside turn
    // 15, so the cut waits for turn 16.
    expect(trimRange(events, { first: 30, last: 35 }, 'newer', 11)).toEqual({
      fromSeq: 0,
      toSeq: 48,
    })
  })

  it('cuts the older side at the last turn start before the kept events', () => {
    // Shown from seq 150 (turn 50); 10 events back is seq 140, inside turn 46, which is kept.
    expect(trimRange(events, { first: 150, last: 155 }, 'older', 10)).toEqual({
      fromSeq: 138,
      toSeq: Number.POSITIVE_INFINITY,
    })
  })

  it('keeps everything when the far side is closer than what is kept', () => {
    expect(trimRange(events, { first: 290, last: 295 }, 'newer', 10)).toBeUndefined()
    expect(trimRange(events, { first: 6, last: 9 }, 'older', 10)).toBeUndefined()
  })
})

describe('a feed window that lets go of pages', () => {
  it('trims the older side: coverage starts at the cut, which reads as older again', () => {
    const state = run([{ type: 'trim', fromSeq: 45, toSeq: Number.POSITIVE_INFINITY }], opened())
    expect(seqs(state)[0]).toBe(45)
    expect(state.coveredFrom).toBe(45)
    expect(state.coveredTo).toBe(60)
    expect(state.hasNewer).toBe(false)
  })

  it('trims the newer side: notifications past it wait, newer pages bring the end back', () => {
    const trimmed = run([{ type: 'trim', fromSeq: 0, toSeq: 45 }], opened())
    expect(seqs(trimmed).at(-1)).toBe(44)
    expect(trimmed.coveredTo).toBe(45)
    expect(trimmed.hasNewer).toBe(true)
    expect(newerStart(trimmed)).toBe(45)
    // A notification past the window moves only the length.
    const notified = run(
      [...turn20.map((event) => ({ type: 'event' as const, event, prevSeq: 59 }))],
      trimmed,
    )
    expect(notified.events).toBe(trimmed.events)
    expect(notified.length).toBe(61)
    const asked = run([{ type: 'newer' }], notified)
    expect(newerStart(asked)).toBeUndefined()
    const page = turns(15, 17)
    const partway = run(
      [{ type: 'page', fromSeq: 45, events: page, nextSeq: 54, length: 61 }],
      asked,
    )
    expect(partway.coveredTo).toBe(54)
    expect(partway.hasNewer).toBe(true)
    const rest = [...turns(18, 19), ...turn20]
    const whole = run(
      [{ type: 'newer' }, { type: 'page', fromSeq: 54, events: rest, nextSeq: null, length: 61 }],
      partway,
    )
    expect(whole.hasNewer).toBe(false)
    expect(whole.coveredTo).toBe(61)
    expect(seqs(whole).at(-1)).toBe(60)
  })

  it('keeps the newer side while the session runs', () => {
    const running = run([{ type: 'running', isRunning: true }], opened())
    const state = run([{ type: 'trim', fromSeq: 0, toSeq: 45 }], running)
    expect(state.events).toBe(running.events)
    expect(state.hasNewer).toBe(false)
  })

  it('replaces the window with the tail on a jump to the end', () => {
    const trimmed = run([{ type: 'trim', fromSeq: 0, toSeq: 36 }], opened())
    const reset = run(
      [
        { type: 'newer' },
        {
          type: 'tail',
          coveredFrom: 51,
          toSeq: 60,
          events: turns(17, 19),
          length: 60,
          isReset: true,
        },
      ],
      trimmed,
    )
    expect(seqs(reset)).toEqual(turns(17, 19).map((event) => event.seq))
    expect(reset.coveredFrom).toBe(51)
    expect(reset.hasNewer).toBe(false)
    expect(reset.isLoadingNewer).toBe(false)
  })

  it('prepends an older page without merging by seq', () => {
    const state = run(
      [
        { type: 'older' },
        { type: 'tail', coveredFrom: 15, toSeq: 30, events: turns(5, 9), length: 60 },
      ],
      opened(),
    )
    expect(seqs(state)).toEqual(turns(5, 19).map((event) => event.seq))
  })
})

describe('the event cache over a window that lets go', () => {
  it('keeps the typed events the window let go of, on both sides', async () => {
    const cache = new EventCache(SESSION, (request) =>
      Promise.resolve({
        events: turns(0, 9).filter(
          (event) => event.seq < (request.toSeq ?? 60) && request.types?.includes(event.type),
        ),
        nextSeq: null,
        length: 60,
      }),
    )
    const state = opened()
    cache.follow(state)
    expect(cache.ofTypes(['turn/start'])).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 0))
    const starts = (list: ReturnType<EventCache['ofTypes']>) => list?.map((event) => event.seq)
    const all = turns(0, 19)
      .filter((event) => event.type === 'turn/start')
      .map((e) => e.seq)
    expect(starts(cache.ofTypes(['turn/start']))).toEqual(all)
    const trimmed = run([{ type: 'trim', fromSeq: 39, toSeq: 51 }], state)
    cache.follow(trimmed)
    expect(starts(cache.ofTypes(['turn/start']))).toEqual(all)
  })
})
