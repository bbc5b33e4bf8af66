/**
 * The open session's events as every panel reads them. The feed (feed-reducer.ts) already holds
 * every forwarded event (each type but `assistant/chunk`), paged in whole at open and kept live
 * by notifications; the chat reads it as is. What the feed never carries, the chunks, are read
 * here from `session/events` in small windows, only when a panel shows them, and dropped oldest
 * first past a budget. So the log crosses the bridge once, whichever panels are open.
 *
 * The feed itself is a window of the history (it opens on the tail and reaches back as the chat
 * scrolls up), so a window outside its coverage is read with every type, and a panel that needs
 * a few types over the whole history (checkpoints, request starts) asks `ofTypes`: one filtered
 * read below the feed's window, joined to the feed's own events of those types.
 *
 * The window also lets go of pages far from what the chat shows. What it let go of is kept here
 * for the `ofTypes` reads (their types only), and windows read as chunks only over that range
 * are forgotten, to be read again with every type.
 */
import type { BridleApi, EventDto } from '../../../protocol/contract'

export const CHUNK_TYPE = 'assistant/chunk'

export interface PageRequest {
  readonly fromSeq: number
  /** Exclusive. */
  readonly toSeq?: number
  readonly limit: number
  readonly types?: readonly string[]
  readonly turn?: number
  readonly step?: number
}

export interface Page {
  readonly events: readonly EventDto[]
  readonly nextSeq: number | null
  readonly length: number
}

/** Loads one page of `session/events`; rejects with the bridge's error when it fails. */
export type LoadPage = (request: PageRequest) => Promise<Page>

/** `session/events` of one session as a LoadPage: a bridge error becomes a rejection. */
export function pageLoader(call: BridleApi['call'], sessionId: string): LoadPage {
  return async ({ fromSeq, toSeq, limit, types, turn, step }) => {
    const result = await call('session/events', {
      sessionId,
      fromSeq,
      limit,
      ...(toSeq === undefined ? {} : { toSeq }),
      ...(types === undefined ? {} : { types: [...types] }),
      ...(turn === undefined ? {} : { turn }),
      ...(step === undefined ? {} : { step }),
    })
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
    return result.value
  }
}

/** What the cache takes from the feed each time the feed's events change. */
export interface FeedEvents {
  /** Sorted by seq, without chunks. */
  readonly events: readonly EventDto[]
  /** Every forwarded event from `coveredFrom` up to `coveredTo` is in `events`. */
  readonly coveredFrom: number
  /** Every forwarded event below this seq (from `coveredFrom`) is in `events`. */
  readonly coveredTo: number
  /** The log's length as last heard (pages and notifications). */
  readonly length: number
  readonly isLoading: boolean
}

/**
 * Windows of 500 seqs: a table scrolled by the wheel (about 10 rows a frame) needs a new one
 * every 50 frames. Windows of 200 came every 20 frames, and the frames a window lands in (its
 * text parsed, its events checked) were the 5% that a frame-time p95 counts (the inspector bench:
 * 18 ms in 3 runs of 4, against 10.4-11.6 ms in 3 of 4 with 500). A drag reads nothing until
 * the view rests (event-table.tsx), so a bigger window costs it nothing while it moves.
 */
export const DEFAULT_WINDOW = 500
/** Windows kept: 64k seqs' worth; the least recently used go first. */
export const DEFAULT_MAX_WINDOWS = 128
/** Events a page of an `ofTypes` read asks for (the most `session/events` gives). */
const TYPED_PAGE = 5000

interface Window {
  /** Sparse, indexed by `seq - start`. */
  readonly rows: (EventDto | undefined)[]
  /** Seqs of the window below this were answered by its read (the log may have grown since). */
  settledTo: number
}

const EMPTY_FEED: FeedEvents = {
  events: [],
  coveredFrom: 0,
  coveredTo: 0,
  length: 0,
  isLoading: true,
}

/** Events of some types read below the feed's window, and the list joined with the feed's. */
interface TypedRead {
  readonly types: readonly string[]
  /** The read covers seqs below this (the feed's `coveredFrom` when it was asked). */
  readonly below: number
  older: readonly EventDto[] | undefined
  /**
   * Events of the types from `below` on that are not in the feed's window: those it let go of,
   * and those past a window whose newer side was let go before the read. Seq order.
   */
  kept: readonly EventDto[]
  joinedFor: readonly EventDto[] | undefined
  joined: readonly EventDto[] | undefined
}

export class EventCache {
  private feed: FeedEvents = EMPTY_FEED
  private readonly windows = new Map<number, Window>()
  private readonly inFlight = new Set<number>()
  private chunkRows = 0
  private readLength = 0
  private readonly listeners = new Set<() => void>()
  private readonly typed = new Map<string, TypedRead>()
  /** Changes whenever anything a reader sees changes (the feed or a window). */
  version = 0
  error: string | undefined

  constructor(
    readonly sessionId: string,
    private readonly load: LoadPage,
    readonly windowSize = DEFAULT_WINDOW,
    private readonly maxWindows = DEFAULT_MAX_WINDOWS,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The store calls this whenever the feed's events (or their coverage) change. */
  follow(feed: FeedEvents): void {
    const before = this.feed
    if (
      feed.events === before.events &&
      feed.coveredFrom === before.coveredFrom &&
      feed.coveredTo === before.coveredTo &&
      feed.length === before.length &&
      feed.isLoading === before.isLoading
    )
      return
    if (feed.coveredFrom > before.coveredFrom || feed.coveredTo < before.coveredTo) {
      this.keepLetGo(before, feed)
    }
    this.feed = feed
    this.notify()
  }

  /** See the module comment: what the feed's window let go of, going from `before` to `feed`. */
  private keepLetGo(before: FeedEvents, feed: FeedEvents): void {
    const isOut = (seq: number) => seq < feed.coveredFrom || seq >= feed.coveredTo
    const letGo = before.events.filter(
      (event) => isOut(event.seq) && findBySeq(feed.events, event.seq) === undefined,
    )
    for (const read of this.typed.values()) {
      const ofRead = letGo.filter(
        (event) => event.seq >= read.below && read.types.includes(event.type),
      )
      if (ofRead.length > 0) read.kept = mergeSorted(read.kept, ofRead)
      read.joinedFor = undefined
    }
    for (const [w, window] of this.windows) {
      const start = w * this.windowSize
      const end = start + this.windowSize
      const wasIn = start < before.coveredTo && end > before.coveredFrom
      const isIn = start >= feed.coveredFrom && end <= feed.coveredTo
      if (!wasIn || isIn) continue
      for (const event of window.rows) if (event?.type === CHUNK_TYPE) this.chunkRows--
      this.windows.delete(w)
    }
  }

  /** The forwarded events, as the feed holds them. */
  get forwarded(): FeedEvents {
    return this.feed
  }

  /** The log's length as far as anyone has heard. */
  get length(): number {
    const last = this.feed.events.at(-1)
    return Math.max(this.readLength, this.feed.length, last === undefined ? 0 : last.seq + 1)
  }

  /** True while nothing is known yet: no feed page and no window has answered. */
  get isLoading(): boolean {
    return this.length === 0 && this.feed.isLoading && this.error === undefined
  }

  /** The event of `seq` if it is in memory. */
  at(seq: number): EventDto | undefined {
    return findBySeq(this.feed.events, seq) ?? this.inWindow(seq)
  }

  /** Reads the windows that seqs `from..to` (exclusive) need and do not have. */
  ensure(from: number, to: number): void {
    const end = Math.min(to, this.length)
    for (let w = Math.floor(from / this.windowSize); w * this.windowSize < end; w++) {
      if (this.hasHole(w, Math.max(from, w * this.windowSize), end)) this.readWindow(w)
    }
  }

  /**
   * Every forwarded event of `types` in the whole history, in seq order, or undefined while the
   * part below the feed's window is being read (once per set of types; later events come from
   * the feed). The same list is returned until something of it changes.
   */
  ofTypes(types: readonly string[]): readonly EventDto[] | undefined {
    if (this.feed.isLoading) return undefined
    const key = [...types].sort().join(',')
    let read = this.typed.get(key)
    if (read === undefined) {
      const { coveredFrom: below, coveredTo, length } = this.feed
      // A feed that holds the history from its start (to its end) needs no read.
      const older = below === 0 ? [] : undefined
      read = { types: [...types], below, older, kept: [], joinedFor: undefined, joined: [] }
      this.typed.set(key, read)
      if (below > 0) this.readTyped(read, types)
      if (coveredTo < length) this.readTypedPast(read, types, coveredTo)
    }
    if (read.older === undefined) return undefined
    if (read.joinedFor !== this.feed.events) {
      const { below, kept } = read
      const { coveredFrom, coveredTo } = this.feed
      const inFeed = this.feed.events.filter((e) => e.seq >= below && types.includes(e.type))
      const lower = kept.filter((e) => e.seq < coveredFrom)
      const upper = kept.filter((e) => e.seq >= coveredTo && findBySeq(inFeed, e.seq) === undefined)
      const isOlderOnly = inFeed.length + lower.length + upper.length === 0
      read.joined = isOlderOnly ? read.older : [...read.older, ...lower, ...inFeed, ...upper]
      read.joinedFor = this.feed.events
    }
    return read.joined
  }

  /** A page of this session's log for a query the cache does not keep (a filtered read). */
  loadPage(request: PageRequest): Promise<Page> {
    return this.load(request)
  }

  /** Tells readers something built on the cache changed (a filtered read landed). */
  touch(): void {
    this.notify()
  }

  /** One event, from memory or read on its own (a selection can name any seq). */
  async read(seq: number): Promise<EventDto | undefined> {
    const known = this.at(seq)
    if (known !== undefined) return known
    const page = await this.load({ fromSeq: seq, toSeq: seq + 1, limit: 1 })
    const event = page.events[0]
    if (event?.seq === seq) this.keep(event)
    return event?.seq === seq ? event : undefined
  }

  /** How many events are in memory (what a search of the loaded rows looks through). */
  get loadedCount(): number {
    return this.feed.events.length + this.chunkRows + this.pastCoverage().length
  }

  /** Every event in memory, in seq order. */
  loaded(): EventDto[] {
    const extra: EventDto[] = [...this.pastCoverage()]
    for (const [, window] of this.windows)
      for (const event of window.rows) if (event?.type === CHUNK_TYPE) extra.push(event)
    extra.sort((a, b) => a.seq - b.seq)
    return mergeSorted(this.feed.events, extra)
  }

  /** Reads `types` below `read.below`, a page at a time, then tells the readers. */
  private readTyped(read: TypedRead, types: readonly string[]): void {
    const found: EventDto[] = []
    const next = (fromSeq: number): Promise<void> =>
      this.load({ fromSeq, toSeq: read.below, limit: TYPED_PAGE, types }).then((page) => {
        found.push(...page.events)
        return page.nextSeq === null ? undefined : next(page.nextSeq)
      })
    next(0)
      .then(() => {
        read.older = found
        this.notify()
      })
      .catch((error: unknown) => {
        this.error = error instanceof Error ? error.message : String(error)
        this.notify()
      })
  }

  /** Reads `types` from `fromSeq` to the log's end into `read.kept` (past a let-go newer side). */
  private readTypedPast(read: TypedRead, types: readonly string[], fromSeq: number): void {
    const found: EventDto[] = []
    const next = (from: number): Promise<void> =>
      this.load({ fromSeq: from, limit: TYPED_PAGE, types }).then((page) => {
        found.push(...page.events)
        return page.nextSeq === null ? undefined : next(page.nextSeq)
      })
    next(fromSeq)
      .then(() => {
        read.kept = mergeSorted(read.kept, found)
        read.joinedFor = undefined
        this.notify()
      })
      .catch((error: unknown) => {
        this.error = error instanceof Error ? error.message : String(error)
        this.notify()
      })
  }

  /** Forwarded events the windows hold outside the feed's window. */
  private pastCoverage(): EventDto[] {
    const { coveredFrom, coveredTo } = this.feed
    const isOutside = (seq: number) => seq < coveredFrom || seq >= coveredTo
    const found: EventDto[] = []
    for (const [w, window] of this.windows) {
      const start = w * this.windowSize
      if (start >= coveredFrom && start + this.windowSize <= coveredTo) continue
      for (const event of window.rows) {
        if (event !== undefined && event.type !== CHUNK_TYPE && isOutside(event.seq))
          found.push(event)
      }
    }
    return found
  }

  private inWindow(seq: number): EventDto | undefined {
    return this.windows.get(Math.floor(seq / this.windowSize))?.rows[seq % this.windowSize]
  }

  private hasHole(w: number, from: number, to: number): boolean {
    if (this.inFlight.has(w)) return false
    const window = this.windows.get(w)
    if (window !== undefined) {
      // Touched for the least-recently-used order of eviction.
      this.windows.delete(w)
      this.windows.set(w, window)
    }
    const start = w * this.windowSize
    const last = Math.min(to, start + this.windowSize)
    for (let seq = from; seq < last; seq++) {
      if (window !== undefined && (seq < window.settledTo || window.rows[seq - start])) continue
      if (findBySeq(this.feed.events, seq) === undefined) return true
    }
    return false
  }

  private readWindow(w: number): void {
    const fromSeq = w * this.windowSize
    const toSeq = fromSeq + this.windowSize
    // Within the feed's coverage every other type is in the feed already.
    const chunksOnly = fromSeq >= this.feed.coveredFrom && toSeq <= this.feed.coveredTo
    this.inFlight.add(w)
    this.load({
      fromSeq,
      toSeq,
      limit: this.windowSize,
      ...(chunksOnly ? { types: [CHUNK_TYPE] } : {}),
    })
      .then((page) => {
        for (const event of page.events) this.keep(event)
        const window = this.windows.get(w)
        if (window !== undefined) window.settledTo = Math.min(toSeq, page.length)
        this.readLength = Math.max(this.readLength, page.length)
        this.evict()
        this.error = undefined
        this.notify()
      })
      .catch((error: unknown) => {
        this.error = error instanceof Error ? error.message : String(error)
        this.notify()
      })
      .finally(() => this.inFlight.delete(w))
  }

  private keep(event: EventDto): void {
    const w = Math.floor(event.seq / this.windowSize)
    let window = this.windows.get(w)
    if (window === undefined) {
      window = { rows: [], settledTo: w * this.windowSize }
      this.windows.set(w, window)
    }
    const at = event.seq - w * this.windowSize
    if (window.rows[at] === undefined && event.type === CHUNK_TYPE) this.chunkRows++
    window.rows[at] = event
  }

  private evict(): void {
    while (this.windows.size > this.maxWindows) {
      const oldest = this.windows.keys().next()
      if (oldest.done === true) return
      for (const event of this.windows.get(oldest.value)?.rows ?? [])
        if (event?.type === CHUNK_TYPE) this.chunkRows--
      this.windows.delete(oldest.value)
    }
  }

  private notify(): void {
    this.version++
    for (const listener of this.listeners) listener()
  }
}

/** Binary search of a seq-sorted list. */
export function findBySeq(events: readonly EventDto[], seq: number): EventDto | undefined {
  const index = indexOfSeq(events, seq)
  return index === undefined ? undefined : events[index]
}

/** The index of `seq` in a seq-sorted list, or undefined. */
export function indexOfSeq(events: readonly EventDto[], seq: number): number | undefined {
  const index = firstIndexFrom(events, seq)
  return events[index]?.seq === seq ? index : undefined
}

/**
 * The index of the first event at `seq` or after it in a seq-sorted list (which may have gaps),
 * or the list's length when there is none.
 */
export function firstIndexFrom(events: readonly EventDto[], seq: number): number {
  let low = 0
  let high = events.length
  while (low < high) {
    const mid = (low + high) >> 1
    if ((events[mid]?.seq ?? 0) < seq) low = mid + 1
    else high = mid
  }
  return low
}

function mergeSorted(a: readonly EventDto[], b: readonly EventDto[]): EventDto[] {
  if (b.length === 0) return [...a]
  const out: EventDto[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = a[i]
    const y = b[j]
    if (y === undefined || (x !== undefined && x.seq < y.seq)) {
      if (x !== undefined) out.push(x)
      i++
    } else {
      if (x?.seq === y.seq) i++
      out.push(y)
      j++
    }
  }
  return out
}
