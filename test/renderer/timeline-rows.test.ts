import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { matchesFilter, rowsFor } from '../../renderer/src/features/timeline/event-rows'
import { EventCache } from '../../renderer/src/state/event-cache'
import type { FeedEvents, PageRequest } from '../../renderer/src/state/event-cache'
import { asEvent } from './event-fixture'

const CHUNK = 'assistant/chunk'

/** Every 4th seq (1, 5, 9...) is a chunk, every 3rd other one a tool/call; turn = seq / 100. */
function typeOf(seq: number): string {
  if (seq % 4 === 1) return CHUNK
  return seq % 3 === 0 ? 'tool/call' : 'step/start'
}

const eventAt = (seq: number): EventDto =>
  asEvent({ seq, type: typeOf(seq), v: 1, turn: Math.floor(seq / 100), step: 1, at: seq, data: {} })

/** A fake `session/events` over a log that can grow, and the feed a shell would hold of it. */
function fakeLog(length: number) {
  const events: EventDto[] = Array.from({ length }, (_, seq) => eventAt(seq))
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
  /**
   * The feed once it paged the log up to `to`: every forwarded event below it, and the length
   * its first page told.
   */
  const feed = (to = events.length, isLoading = false): FeedEvents => ({
    events: events.filter((e) => e.seq < to && e.type !== CHUNK),
    coveredFrom: 0,
    coveredTo: to,
    length: events.length,
    isLoading,
  })
  const grow = (by: number) => {
    for (let i = 0; i < by; i++) events.push(eventAt(events.length))
  }
  return { events, requests, load, feed, grow }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

function cacheOver(log: ReturnType<typeof fakeLog>, window = 100, maxWindows?: number) {
  const cache = new EventCache('s1', log.load, window, maxWindows)
  cache.follow(log.feed())
  return cache
}

describe('EventCache', () => {
  it('serves forwarded events from the feed and reads only the chunks a window shows', async () => {
    const log = fakeLog(200_000)
    const cache = cacheOver(log)
    expect(cache.length).toBe(200_000)
    expect(cache.at(150_000)?.type).toBe('tool/call')
    expect(cache.at(150_001)).toBeUndefined()
    cache.ensure(150_000, 150_150)
    await settle()
    expect(cache.at(150_001)?.type).toBe(CHUNK)
    expect(cache.at(150_149)?.seq).toBe(150_149)
    expect(log.requests.map((r) => [r.fromSeq, r.toSeq, r.types])).toEqual([
      [150_000, 150_100, [CHUNK]],
      [150_100, 150_200, [CHUNK]],
    ])
    // Windows read are not read again, and a range the feed answers alone needs no read.
    cache.ensure(150_000, 150_150)
    cache.ensure(150_002, 150_005)
    await settle()
    expect(log.requests).toHaveLength(2)
  })

  it('reads every type past the feed, so a jump ahead of its paging shows rows at once', async () => {
    const log = fakeLog(10_000)
    const cache = new EventCache('s1', log.load, 100)
    cache.follow(log.feed(2000, true))
    cache.ensure(9000, 9010)
    await settle()
    expect(log.requests[0]).toEqual({ fromSeq: 9000, toSeq: 9100, limit: 100 })
    expect(cache.length).toBe(10_000)
    expect(cache.at(9003)?.type).toBe('tool/call')
    // 1500 forwarded in the feed, the whole window past it; counted once when the feed catches up.
    expect(cache.loadedCount).toBe(1500 + 100)
    cache.follow(log.feed())
    expect(cache.loadedCount).toBe(7500 + 25)
    expect(cache.loadedCount).toBe(cache.loaded().length)
  })

  it('reads every type below a feed that opened on the tail, and only chunks within it', async () => {
    const log = fakeLog(1000)
    const cache = new EventCache('s1', log.load, 100)
    const tail = log.feed()
    cache.follow({ ...tail, events: tail.events.filter((e) => e.seq >= 600), coveredFrom: 600 })
    cache.ensure(100, 150)
    cache.ensure(700, 750)
    await settle()
    expect(log.requests.map((r) => [r.fromSeq, r.types])).toEqual([
      [100, undefined],
      [700, [CHUNK]],
    ])
    expect(cache.at(102)?.type).toBe('tool/call')
    expect(cache.loaded().filter((e) => e.seq < 600 && e.type !== CHUNK).length).toBeGreaterThan(0)
  })

  it('gives the events of some types over the whole history: one read below the feed, then the feed', async () => {
    const log = fakeLog(1000)
    const cache = new EventCache('s1', log.load, 100)
    const tail = log.feed()
    const window = (events: readonly EventDto[], from: number): FeedEvents => ({
      ...tail,
      events: events.filter((e) => e.seq >= from && e.type !== CHUNK),
      coveredFrom: from,
      coveredTo: events.length,
      length: events.length,
    })
    cache.follow(window(log.events, 600))
    expect(cache.ofTypes(['tool/call'])).toBeUndefined()
    await settle()
    const expected = (to: number) =>
      log.events.filter((e) => e.seq < to && e.type === 'tool/call').map((e) => e.seq)
    expect(cache.ofTypes(['tool/call'])?.map((e) => e.seq)).toEqual(expected(1000))
    expect(log.requests.map((r) => [r.fromSeq, r.toSeq, r.types])).toEqual([
      [0, 600, ['tool/call']],
    ])
    // The same list until the feed moves; live events join it without another read.
    expect(cache.ofTypes(['tool/call'])).toBe(cache.ofTypes(['tool/call']))
    log.grow(10)
    cache.follow(window(log.events, 500))
    expect(cache.ofTypes(['tool/call'])?.map((e) => e.seq)).toEqual(expected(1010))
    expect(log.requests).toHaveLength(1)
  })

  it('drops the least recently used windows beyond its budget, keeping counts true', async () => {
    const log = fakeLog(10_000)
    const cache = cacheOver(log, 100, 2)
    const forwarded = log.feed().events.length
    for (const at of [0, 5000, 9000]) {
      cache.ensure(at, at + 10)
      await settle()
    }
    expect(cache.at(1)).toBeUndefined()
    expect(cache.at(9001)?.type).toBe(CHUNK)
    // Two windows of 25 chunks each.
    expect(cache.loadedCount).toBe(forwarded + 50)
    const loaded = cache.loaded()
    expect(loaded).toHaveLength(forwarded + 50)
    expect(loaded.every((e, i) => i === 0 || e.seq > (loaded[i - 1]?.seq ?? 0))).toBe(true)
  })

  it('reads the tail window again once the log grew past what it answered', async () => {
    const log = fakeLog(50)
    const cache = cacheOver(log)
    cache.ensure(0, 100)
    await settle()
    expect(log.requests).toHaveLength(1)
    // Live: the feed brings 50..59's forwarded events; chunk 53 and 57 come from no feed.
    log.grow(10)
    cache.follow(log.feed())
    expect(cache.length).toBe(60)
    expect(cache.at(53)).toBeUndefined()
    cache.ensure(0, 100)
    await settle()
    expect(log.requests).toHaveLength(2)
    expect(cache.at(53)?.type).toBe(CHUNK)
  })

  it('reads one event on its own, and keeps the error of a failed read', async () => {
    const log = fakeLog(1000)
    const cache = cacheOver(log)
    expect((await cache.read(501))?.type).toBe(CHUNK)
    expect(cache.at(501)?.seq).toBe(501)
    expect(await cache.read(5000)).toBeUndefined()
    const failing = new EventCache('s1', () => Promise.reject(new Error('DISCONNECTED')))
    failing.follow(log.feed())
    failing.ensure(0, 10)
    await settle()
    expect(failing.error).toBe('DISCONNECTED')
  })
})

describe('timeline rows', () => {
  it('unfiltered: row index is seq, the count is the log length', async () => {
    const log = fakeLog(1000)
    const rows = rowsFor(cacheOver(log), {})
    expect(rows.count).toBe(1000)
    expect(rows.rowAt(3)?.seq).toBe(3)
    rows.ensure(0, 9)
    await settle()
    expect(rows.rowAt(1)?.type).toBe(CHUNK)
    expect(await rows.locate(640)).toBe(640)
    expect(await rows.locate(4000)).toBeUndefined()
  })

  it('types without chunks come from the feed alone, live ones included', () => {
    const log = fakeLog(1000)
    const cache = cacheOver(log)
    const rows = rowsFor(cache, { types: ['tool/call'] })
    expect(rows.count).toBe(log.feed().events.filter((e) => e.type === 'tool/call').length)
    expect(rows.rowAt(1)?.seq).toBe(3)
    rows.ensure(0, 500)
    expect(log.requests).toHaveLength(0)
    const version = rows.version
    log.grow(4)
    cache.follow(log.feed())
    expect(rows.version).not.toBe(version)
    expect(rows.loaded().at(-1)?.seq).toBe(1002)
    expect(rows.hasMore).toBe(false)
  })

  it('says more may come while the feed is still paging', async () => {
    const log = fakeLog(1000)
    const cache = new EventCache('s1', log.load, 100)
    cache.follow(log.feed(300, true))
    const rows = rowsFor(cache, { types: ['tool/call'] })
    expect(rows.hasMore).toBe(true)
    expect(await rows.locate(3)).toBe(1)
  })

  it('a filter that can match chunks reads forward with the cursor', async () => {
    const log = fakeLog(10_000)
    const rows = rowsFor(cacheOver(log), { types: [CHUNK] }, 1000)
    rows.ensure(0, 20)
    await settle()
    expect(rows.count).toBe(1000)
    expect(rows.hasMore).toBe(true)
    expect(rows.rowAt(1)?.seq).toBe(5)
    expect(log.requests[0]).toMatchObject({ fromSeq: 0, types: [CHUNK], limit: 1000 })
    rows.ensure(900, 999)
    await settle()
    expect(rows.count).toBe(2000)
    expect(log.requests[1]?.fromSeq).toBe(4001)
    expect(await rows.locate(7205)).toBe(1801)
    expect(await rows.locate(7206)).toBeUndefined()
  })

  it('a turn filter appends live forwarded events that match once it read to the end', async () => {
    const log = fakeLog(30)
    const cache = cacheOver(log)
    const rows = rowsFor(cache, { turn: 0 })
    rows.ensure(0, 20)
    await settle()
    expect(rows.hasMore).toBe(false)
    expect(rows.count).toBe(30)
    log.grow(3)
    cache.follow(log.feed())
    // The feed brings 30..32 (none a chunk), all in turn 0.
    expect(
      rows
        .loaded()
        .map((e) => e.seq)
        .slice(-4),
    ).toEqual([29, 30, 31, 32])
    expect(rows.count).toBe(33)
  })

  it('keeps the error of a failed read for the panel to show', async () => {
    const cache = new EventCache('s1', () => Promise.reject(new Error('DISCONNECTED')))
    const rows = rowsFor(cache, { turn: 1 })
    rows.ensure(0, 10)
    await settle()
    expect(rows.error).toBe('DISCONNECTED')
    expect(rows.isLoading).toBe(false)
  })
})
