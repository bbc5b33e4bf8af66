/**
 * The inspector's rows over the session's event cache (state/event-cache.ts), in one of three
 * views chosen by the filter, because the server counts only the whole history, never a
 * filtered result:
 *
 * - unfiltered, a row's index is its seq (seqs are dense from 0): the feed's events and chunk
 *   windows read as the table scrolls, with an exact scroll bar from the feed's first page;
 * - types that leave chunks out, once the feed holds the history from its start: the feed's
 *   events filtered in memory, no read at all;
 * - anything that can match chunks (a chunk type, a turn or step alone): read forward from
 *   `session/events` with the `nextSeq` cursor, the count growing as the table nears the end.
 */
import type { EventDto } from '../../../../protocol/contract'
import { CHUNK_TYPE, indexOfSeq } from '../../state/event-cache'
import type { EventCache, PageRequest } from '../../state/event-cache'

export interface EventFilter {
  readonly types?: readonly string[]
  readonly turn?: number
  readonly step?: number
}

export const isFiltered = (filter: EventFilter): boolean =>
  (filter.types !== undefined && filter.types.length > 0) ||
  filter.turn !== undefined ||
  filter.step !== undefined

/** Whether `event` passes `filter` (what the server applies to a filtered read). */
export function matchesFilter(event: EventDto, filter: EventFilter): boolean {
  if (filter.types !== undefined && filter.types.length > 0 && !filter.types.includes(event.type))
    return false
  if (filter.turn !== undefined && event.turn !== filter.turn) return false
  if (filter.step !== undefined && event.step !== filter.step) return false
  return true
}

/** What the table, the status line and the text filter read. */
export interface EventRows {
  readonly count: number
  /** Changes whenever a row or the count changes. */
  readonly version: number
  readonly isLoading: boolean
  /** More matching rows exist past the loaded ones (the count is a lower bound). */
  readonly hasMore: boolean
  readonly error: string | undefined
  /** How many rows are in memory (what the text filter searches). */
  readonly loadedCount: number
  rowAt(index: number): EventDto | undefined
  /** Loads what rows `start..end` (inclusive) need that is not there yet. */
  ensure(start: number, end: number): void
  /** Every row in memory, in seq order. */
  loaded(): EventDto[]
  /** The row of `seq`, reading on if needed; undefined when the view does not include it. */
  locate(seq: number): Promise<number | undefined>
  subscribe(listener: () => void): () => void
}

/** The rows `filter` selects from `cache`. */
export function rowsFor(cache: EventCache, filter: EventFilter, pageSize?: number): EventRows {
  if (!isFiltered(filter)) return new AllRows(cache)
  const { types } = filter
  // The feed answers a filter alone only once it holds the history from its start.
  // The chat's window may have let go of either end: whole only when it holds both.
  const { coveredFrom, coveredTo, length, isLoading } = cache.forwarded
  const isWhole = coveredFrom === 0 && coveredTo >= length && !isLoading
  if (isWhole && types !== undefined && types.length > 0 && !types.includes(CHUNK_TYPE))
    return new FeedRows(cache, filter)
  return new QueryRows(cache, filter, pageSize)
}

/** Every event: row index = seq. */
class AllRows implements EventRows {
  constructor(private readonly cache: EventCache) {}
  get count() {
    return this.cache.length
  }
  get version() {
    return this.cache.version
  }
  get isLoading() {
    return this.cache.isLoading
  }
  readonly hasMore = false
  get error() {
    return this.cache.error
  }
  get loadedCount() {
    return this.cache.loadedCount
  }
  rowAt(index: number) {
    return this.cache.at(index)
  }
  ensure(start: number, end: number) {
    this.cache.ensure(start, end + 1)
  }
  loaded() {
    return this.cache.loaded()
  }
  locate(seq: number) {
    return Promise.resolve(seq < this.count || this.isLoading ? seq : undefined)
  }
  subscribe(listener: () => void) {
    return this.cache.subscribe(listener)
  }
}

/** The feed's events that pass a filter which leaves chunks out: all in memory already. */
class FeedRows implements EventRows {
  private list: EventDto[] = []
  private from: readonly EventDto[] | undefined

  constructor(
    private readonly cache: EventCache,
    private readonly filter: EventFilter,
  ) {}

  private rows(): EventDto[] {
    const { events } = this.cache.forwarded
    if (events === this.from) return this.list
    // The feed only grows at its end, except when a refetch fills a gap: then filter it all.
    const before = this.from
    const isAppend =
      before !== undefined &&
      before.length <= events.length &&
      before.at(-1) === events[before.length - 1]
    const fresh = isAppend ? events.slice(before.length) : events
    const matching = fresh.filter((event) => matchesFilter(event, this.filter))
    this.list = isAppend ? [...this.list, ...matching] : matching
    this.from = events
    return this.list
  }

  get count() {
    return this.rows().length
  }
  get version() {
    return this.cache.version
  }
  get isLoading() {
    return this.cache.forwarded.isLoading && this.rows().length === 0
  }
  get hasMore() {
    return this.cache.forwarded.isLoading
  }
  readonly error = undefined
  get loadedCount() {
    return this.rows().length
  }
  rowAt(index: number) {
    return this.rows()[index]
  }
  ensure() {}
  loaded() {
    return [...this.rows()]
  }
  locate(seq: number) {
    return Promise.resolve(indexOfSeq(this.rows(), seq))
  }
  subscribe(listener: () => void) {
    return this.cache.subscribe(listener)
  }
}

/** A filter the feed cannot answer alone: read forward from the server, a page at a time. */
class QueryRows implements EventRows {
  private readonly list: EventDto[] = []
  private cursor: number | null = 0
  private pending: Promise<void> | undefined
  private hasRead = false
  /**
   * How far into the feed's events live ones have been looked at. Those past the server's last
   * page are new; any the page already had are at or below its tail and skipped.
   */
  private seenFeed: number
  error: string | undefined
  private ownVersion = 0

  constructor(
    private readonly cache: EventCache,
    private readonly filter: EventFilter,
    private readonly pageSize = 200,
  ) {
    this.seenFeed = cache.forwarded.events.length
  }

  get count() {
    this.takeLive()
    return this.list.length
  }
  get version() {
    return this.cache.version + this.ownVersion
  }
  get isLoading() {
    return !this.hasRead && this.error === undefined
  }
  get hasMore() {
    return this.cursor !== null
  }
  get loadedCount() {
    return this.count
  }
  rowAt(index: number) {
    return this.list[index]
  }
  ensure(_start: number, end: number) {
    if (this.cursor !== null && (!this.hasRead || end >= this.list.length - this.pageSize / 4))
      void this.readForward()
  }
  loaded() {
    this.takeLive()
    return [...this.list]
  }
  async locate(seq: number) {
    for (;;) {
      const index = indexOfSeq(this.list, seq)
      if (index !== undefined) return index
      const tail = this.list.at(-1)
      if (this.cursor === null || (tail !== undefined && tail.seq > seq)) return undefined
      await this.readForward()
      if (this.error !== undefined) return undefined
    }
  }
  subscribe(listener: () => void) {
    return this.cache.subscribe(listener)
  }

  /** Forwarded events that arrived live extend the list once the reading reached the end. */
  private takeLive(): void {
    const { events } = this.cache.forwarded
    if (this.cursor !== null) return
    for (const event of events.slice(this.seenFeed)) {
      const tail = this.list.at(-1)
      if (matchesFilter(event, this.filter) && (tail === undefined || event.seq > tail.seq))
        this.list.push(event)
    }
    this.seenFeed = events.length
  }

  private readForward(): Promise<void> {
    const cursor = this.cursor
    if (cursor === null) return Promise.resolve()
    if (this.pending !== undefined) return this.pending
    const request: PageRequest = { ...this.query(), fromSeq: cursor, limit: this.pageSize }
    this.pending = this.cache
      .loadPage(request)
      .then((page) => {
        const tail = this.list.at(-1)
        for (const event of page.events)
          if (tail === undefined || event.seq > tail.seq) this.list.push(event)
        this.cursor = page.nextSeq
        this.hasRead = true
        this.error = undefined
      })
      .catch((error: unknown) => {
        this.error = error instanceof Error ? error.message : String(error)
      })
      .finally(() => {
        this.pending = undefined
        this.ownVersion++
        this.cache.touch()
      })
    return this.pending
  }

  private query(): EventFilter {
    const { types, turn, step } = this.filter
    return {
      ...(types !== undefined && types.length > 0 ? { types } : {}),
      ...(turn === undefined ? {} : { turn }),
      ...(step === undefined ? {} : { step }),
    }
  }
}
