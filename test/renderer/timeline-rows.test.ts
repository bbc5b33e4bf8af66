import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { EventRows, matchesFilter } from '../../renderer/src/features/timeline/event-rows'
import type { PageRequest } from '../../renderer/src/features/timeline/event-rows'
import { asEvent } from './event-fixture'

/** A fake `session/events` over `length` events: turn = seq / 100, every 3rd a tool/call. */
function fakeLog(length: number) {
  const events: EventDto[] = Array.from({ length }, (_, seq) =>
    asEvent({
      seq,
      type: seq % 3 === 0 ? 'tool/call' : 'step/start',
      v: 1,
      turn: Math.floor(seq / 100),
      step: 1,
      at: seq,
      data: {},
    }),
  )
  const requests: PageRequest[] = []
  const load = (request: PageRequest) => {
    requests.push(request)
    const to = request.toSeq ?? events.length
    const matching = events.filter(
      (event) => event.seq >= request.fromSeq && event.seq < to && matchesFilter(event, request),
    )
    const page = matching.slice(0, request.limit)
    const next = matching[request.limit]
    return Promise.resolve({ events: page, nextSeq: next?.seq ?? null, length: events.length })
  }
  return { events, requests, load }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('EventRows, unfiltered', () => {
  it('fetches only the windows the visible rows need, and knows the total from the first', async () => {
    const log = fakeLog(200_000)
    const rows = new EventRows(log.load, {}, 1000)
    rows.ensure(0, 40)
    await settle()
    expect(rows.count).toBe(200_000)
    expect(rows.rowAt(40)?.seq).toBe(40)
    rows.ensure(150_990, 151_010)
    await settle()
    expect(rows.rowAt(151_005)?.seq).toBe(151_005)
    expect(log.requests.map((r) => [r.fromSeq, r.toSeq])).toEqual([
      [0, 1000],
      [150_000, 151_000],
      [151_000, 152_000],
    ])
    // Loaded windows are not fetched again.
    rows.ensure(0, 40)
    await settle()
    expect(log.requests).toHaveLength(3)
  })

  it('drops the least recently used windows beyond its budget', async () => {
    const log = fakeLog(10_000)
    const rows = new EventRows(log.load, {}, 1000, 2)
    for (const at of [0, 5000, 9000]) {
      rows.ensure(at, at)
      await settle()
    }
    expect(rows.rowAt(0)).toBeUndefined()
    expect(rows.rowAt(9000)?.seq).toBe(9000)
  })

  it('keeps count of the loaded rows through pages, live events and evictions', async () => {
    const log = fakeLog(5000)
    const rows = new EventRows(log.load, {}, 1000, 2)
    expect(rows.loadedCount).toBe(0)
    rows.ensure(0, 10)
    await settle()
    expect(rows.loadedCount).toBe(1000)
    rows.ensure(4500, 4510)
    await settle()
    expect(rows.loadedCount).toBe(2000)
    // A third window evicts the least recently used one (the first).
    rows.ensure(2500, 2510)
    await settle()
    expect(rows.loadedCount).toBe(2000)
    expect(rows.loaded()).toHaveLength(2000)
    // A live event lands in a loaded window's hole only once.
    const added = { ...log.events[0], seq: 5000 } as EventDto
    log.events.push(added)
    rows.append([added])
    rows.append([added])
    expect(rows.loadedCount).toBe(2000)
    rows.ensure(4990, 5000)
    await settle()
    expect(rows.loadedCount).toBe(rows.loaded().length)
  })

  it('grows with live events and refetches the holes between them', async () => {
    const log = fakeLog(10)
    const rows = new EventRows(log.load, {}, 1000)
    rows.ensure(0, 50)
    await settle()
    expect(rows.count).toBe(10)
    // The log grew by 3 (a chunk at 10 the feed never carries), the feed brings 11 and 12.
    const added = [10, 11, 12].map((seq) => ({ ...log.events[0], seq }) as EventDto)
    log.events.push(...added)
    rows.append(added.slice(1))
    expect(rows.count).toBe(13)
    expect(rows.rowAt(12)?.seq).toBe(12)
    expect(rows.rowAt(10)).toBeUndefined()
    rows.ensure(0, 50)
    await settle()
    expect(rows.rowAt(10)?.seq).toBe(10)
  })
})

describe('EventRows, filtered', () => {
  it('reads forward with the cursor and counts what is loaded', async () => {
    const log = fakeLog(10_000)
    const rows = new EventRows(log.load, { types: ['tool/call'] }, 1000)
    rows.ensure(0, 20)
    await settle()
    expect(rows.count).toBe(1000)
    expect(rows.hasMore).toBe(true)
    expect(rows.rowAt(1)?.seq).toBe(3)
    expect(log.requests[0]).toMatchObject({ fromSeq: 0, types: ['tool/call'], limit: 1000 })
    rows.ensure(900, 999)
    await settle()
    expect(rows.count).toBe(2000)
    expect(log.requests[1]?.fromSeq).toBe(3000)
  })

  it('locates a seq by reading on, and says when the filter excludes it', async () => {
    const log = fakeLog(10_000)
    const rows = new EventRows(log.load, { types: ['tool/call'] }, 1000)
    expect(await rows.locate(7203)).toBe(2401)
    expect(await rows.locate(7204)).toBeUndefined()
  })

  it('appends live events that match once everything is loaded', async () => {
    const log = fakeLog(30)
    const rows = new EventRows(log.load, { types: ['tool/call'], turn: 0 }, 1000)
    rows.ensure(0, 20)
    await settle()
    expect(rows.hasMore).toBe(false)
    const base = { v: 1, turn: 0, step: 1, at: 0, data: {} }
    rows.append(
      [
        { ...base, seq: 30, type: 'tool/call' },
        { ...base, seq: 31, type: 'tool/result' },
        { ...base, seq: 32, type: 'tool/call', turn: 1 },
      ].map(asEvent),
    )
    expect(rows.loaded().map((e) => e.seq)).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30])
  })

  it('keeps the error of a failed load for the panel to show', async () => {
    const rows = new EventRows(() => Promise.reject(new Error('DISCONNECTED')), { turn: 1 })
    rows.ensure(0, 10)
    await settle()
    expect(rows.error).toBe('DISCONNECTED')
    expect(rows.isLoading).toBe(false)
  })
})
