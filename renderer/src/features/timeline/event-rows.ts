/**
 * The inspector's rows, paged from `session/events` on demand so a 200k-event session costs a
 * few windows of memory, not the whole log. Two modes, because the server counts only the
 * whole history (`length`), never a filtered result:
 *
 * - unfiltered, a row's index is its seq (seqs are dense from 0), so any window can be fetched
 *   directly and the scroll bar is exact from the first page;
 * - filtered (types, turn, step), rows are read forward with the `nextSeq` cursor and the count
 *   grows as the table scrolls near the end of what is loaded.
 *
 * Live events (from the feed) extend either mode without a fetch; seqs the feed never carries
 * (`assistant/chunk`) are left as holes that the next `ensure` of their window fills.
 */
import type { EventDto } from '../../../../protocol/contract'

export interface EventFilter {
  readonly types?: readonly string[]
  readonly turn?: number
  readonly step?: number
}

export interface PageRequest extends EventFilter {
  readonly fromSeq: number
  /** Exclusive. */
  readonly toSeq?: number
  readonly limit: number
}

export interface Page {
  readonly events: readonly EventDto[]
  readonly nextSeq: number | null
  readonly length: number
}

/** Loads one page; rejects (or resolves an error string) when the bridge fails. */
export type LoadPage = (request: PageRequest) => Promise<Page>

/**
 * Small windows: a fast drag of the scroll bar shows ~50 rows 300 rows apart each frame, and a
 * small window fetches (and validates) what is shown, not the thousand rows around it.
 */
export const DEFAULT_PAGE_SIZE = 200
/** Windows kept in unfiltered mode: about 64k events, the rest dropped oldest-used first. */
export const DEFAULT_MAX_PAGES = 320

export const isFiltered = (filter: EventFilter): boolean =>
  (filter.types !== undefined && filter.types.length > 0) ||
  filter.turn !== undefined ||
  filter.step !== undefined

/** Whether `event` passes the server-side part of `filter` (for live appends). */
export function matchesFilter(event: EventDto, filter: EventFilter): boolean {
  if (filter.types !== undefined && filter.types.length > 0 && !filter.types.includes(event.type))
    return false
  if (filter.turn !== undefined && event.turn !== filter.turn) return false
  if (filter.step !== undefined && event.step !== filter.step) return false
  return true
}

/** The rows of one query. Not React: the hook in use-event-rows.ts subscribes to it. */
export class EventRows {
  private readonly filtered: boolean
  /** Unfiltered: windows by index (`seq / pageSize`), each a sparse array of its seqs. */
  private readonly windows = new Map<number, (EventDto | undefined)[]>()
  /** Filtered: the rows read so far, in seq order, and where reading continues. */
  private readonly list: EventDto[] = []
  private cursor: number | null = 0
  private total = 0
  private readonly inFlight = new Set<number>()
  /** The forward read in flight (filtered mode), so `locate` can wait for it. */
  private pending: Promise<void> | undefined
  private readonly listeners = new Set<() => void>()
  private hasLoaded = false
  error: string | undefined
  /** Changes whenever a row or the count changes; React re-renders on it. */
  version = 0

  constructor(
    private readonly load: LoadPage,
    readonly filter: EventFilter,
    private readonly pageSize = DEFAULT_PAGE_SIZE,
    private readonly maxPages = DEFAULT_MAX_PAGES,
  ) {
    this.filtered = isFiltered(filter)
  }

  /** How many rows the table has now (filtered: how many are loaded). */
  get count(): number {
    return this.filtered ? this.list.length : this.total
  }

  /** True until the first page has answered. */
  get isLoading(): boolean {
    return !this.hasLoaded && this.error === undefined
  }

  /** Filtered mode only: more matching rows exist past the loaded ones. */
  get hasMore(): boolean {
    return this.filtered && this.cursor !== null
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  rowAt(index: number): EventDto | undefined {
    if (this.filtered) return this.list[index]
    const page = this.windows.get(Math.floor(index / this.pageSize))
    return page?.[index % this.pageSize]
  }

  /** Loads what rows `start..end` (inclusive) need that is not there yet. */
  ensure(start: number, end: number): void {
    if (this.filtered) {
      if (this.cursor !== null && (end >= this.list.length - this.pageSize / 4 || !this.hasLoaded))
        void this.readForward()
      return
    }
    const last = this.hasLoaded ? Math.min(end, Math.max(this.total - 1, 0)) : end
    for (let page = Math.floor(start / this.pageSize); page * this.pageSize <= last; page++) {
      if (this.hasHole(page, start, last)) this.readWindow(page)
    }
  }

  /** Adds events the feed received after the pages were read. */
  append(events: readonly EventDto[]): void {
    let changed = false
    for (const event of events) {
      if (this.filtered) {
        const tail = this.list.at(-1)
        if (this.cursor !== null || !matchesFilter(event, this.filter)) continue
        if (tail !== undefined && event.seq <= tail.seq) continue
        this.list.push(event)
        changed = true
      } else {
        if (event.seq + 1 > this.total) {
          this.total = event.seq + 1
          changed = true
        }
        const page = this.windows.get(Math.floor(event.seq / this.pageSize))
        if (page !== undefined && page[event.seq % this.pageSize] === undefined) {
          page[event.seq % this.pageSize] = event
          this.windowRows++
          changed = true
        }
      }
    }
    if (changed) this.notify()
  }

  /**
   * The row of `seq`, reading forward in filtered mode until it is loaded or passed; undefined
   * when the query does not include it.
   */
  async locate(seq: number): Promise<number | undefined> {
    if (!this.filtered) return seq < this.total || !this.hasLoaded ? seq : undefined
    for (;;) {
      const index = this.indexInList(seq)
      if (index !== undefined) return index
      const tail = this.list.at(-1)
      if (this.cursor === null || (tail !== undefined && tail.seq > seq)) return undefined
      await this.readForward()
      if (this.error !== undefined) return undefined
    }
  }

  /** How many rows are loaded now (what the text filter searches). */
  get loadedCount(): number {
    return this.filtered ? this.list.length : this.windowRows
  }

  /** Rows held in `windows`, kept as they are filled and evicted rather than counted. */
  private windowRows = 0

  /** Every row loaded now, in seq order (for the client-side text filter). */
  loaded(): EventDto[] {
    if (this.filtered) return [...this.list]
    const rows: EventDto[] = []
    for (const key of [...this.windows.keys()].sort((a, b) => a - b)) {
      for (const event of this.windows.get(key) ?? []) if (event !== undefined) rows.push(event)
    }
    return rows
  }

  private indexInList(seq: number): number | undefined {
    let low = 0
    let high = this.list.length - 1
    while (low <= high) {
      const mid = (low + high) >> 1
      const at = this.list[mid]?.seq ?? 0
      if (at === seq) return mid
      if (at < seq) low = mid + 1
      else high = mid - 1
    }
    return undefined
  }

  private hasHole(page: number, start: number, end: number): boolean {
    if (this.inFlight.has(page)) return false
    const rows = this.windows.get(page)
    if (rows === undefined) return true
    // Touch for the least-recently-used order of eviction.
    this.windows.delete(page)
    this.windows.set(page, rows)
    const from = Math.max(start, page * this.pageSize)
    const to = Math.min(end, (page + 1) * this.pageSize - 1)
    for (let i = from; i <= to; i++) if (rows[i - page * this.pageSize] === undefined) return true
    return false
  }

  private readWindow(page: number): void {
    this.inFlight.add(page)
    const fromSeq = page * this.pageSize
    this.load({ ...this.query(), fromSeq, toSeq: fromSeq + this.pageSize, limit: this.pageSize })
      .then((result) => {
        const rows = this.windows.get(page) ?? []
        for (const event of result.events) {
          if (rows[event.seq - fromSeq] === undefined) this.windowRows++
          rows[event.seq - fromSeq] = event
        }
        this.windows.set(page, rows)
        this.total = Math.max(this.total, result.length)
        this.evict()
        this.settle()
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => this.inFlight.delete(page))
  }

  private readForward(): Promise<void> {
    const cursor = this.cursor
    if (cursor === null) return Promise.resolve()
    if (this.inFlight.has(cursor)) return this.pending ?? Promise.resolve()
    this.inFlight.add(cursor)
    this.pending = this.load({ ...this.query(), fromSeq: cursor, limit: this.pageSize })
      .then((result) => {
        const tail = this.list.at(-1)
        for (const event of result.events) {
          if (tail === undefined || event.seq > tail.seq) this.list.push(event)
        }
        this.cursor = result.nextSeq
        this.total = result.length
        this.settle()
      })
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.inFlight.delete(cursor)
        this.pending = undefined
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

  private evict(): void {
    while (this.windows.size > this.maxPages) {
      const oldest = this.windows.keys().next()
      if (oldest.done === true) return
      for (const event of this.windows.get(oldest.value) ?? []) if (event) this.windowRows--
      this.windows.delete(oldest.value)
    }
  }

  private settle(): void {
    this.hasLoaded = true
    this.error = undefined
    this.notify()
  }

  private fail(error: unknown): void {
    this.error = error instanceof Error ? error.message : String(error)
    this.notify()
  }

  private notify(): void {
    this.version++
    for (const listener of this.listeners) listener()
  }
}
