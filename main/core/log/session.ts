import { randomUUID } from 'node:crypto'
import { COMMIT_BUSY_WAIT_MS, DEFAULT_BUSY_RETRY_MS } from '../store/constants.js'
import { isStoreFailure, storeBusy, storeRetrying } from '../store/failures.js'
import type { EventRow, SessionRow, Store } from '../store/types.js'
import { StoreError } from '../store/types.js'
import { buildEvent } from './build.js'
import { LogError } from './errors.js'
import type { Attachment } from '../../../protocol/attachments.js'
import type {
  EventDataInput,
  EventType,
  JsonValue,
  LogEvent,
  LogEventOf,
  SessionId,
} from '../../../protocol/events.js'
import { Lifecycle } from './lifecycle.js'
import type { CallProcess } from './lifecycle.js'
import { MessageCache, systemMessageOf } from './messages.js'
import type { Message } from './messages.js'
import { eventToRow, rowToEvent } from './rows.js'
import { Surface } from './surface.js'
import type { SurfaceMark, SurfaceNode } from './surface.js'
import { applyToSurface } from './derive.js'

export type SessionListener = (event: LogEvent) => void

export interface SessionOptions {
  /** Epoch milliseconds; a port so tests can fix time. */
  readonly clock?: () => number
  /**
   * Where a failing listener or a failed background commit is reported, and (once per wait, as
   * a StoreError STORE_BUSY) that a commit is being retried because another program holds the
   * database. A store failure (`isStoreFailure`) is not reported here: the next append or flush
   * throws it, and its caller says it once.
   */
  readonly report?: (error: unknown, context: string) => void
}

export interface CreateSessionOptions extends SessionOptions {
  readonly projectDir: string
  readonly model?: string
  /** The endpoint id (config.json) serving the model. */
  readonly endpoint?: string
  readonly title?: string
  readonly id?: string
  /** A subagent: the session and `task` call that started it (stored as its lineage). */
  readonly spawnedBy?: { readonly sessionId: string; readonly callId: string }
}

export interface OpenSessionOptions extends SessionOptions {
  /** `write` takes the writer lock and repairs what a crash left open; `read` does neither. */
  readonly mode?: 'write' | 'read'
  /**
   * Crash repair calls this for each command the crash left with a recorded process: it ends the
   * process only if it still runs and is provably the one this installation started, and says in
   * one sentence what it found (and why it did not stop it). Must not throw.
   */
  readonly endLeftoverProcess?: (process: CallProcess) => string
  /**
   * Crash repair asks this for each call the crash left started without a result, before giving
   * it TOOL_OUTCOME_UNKNOWN: an outcome found elsewhere (a subagent whose answer was committed in
   * its own log) becomes the call's result; a note is added to the unknown outcome's message.
   */
  readonly settleLeftoverCall?: (
    sessionId: string,
    call: LeftoverCall,
  ) => LeftoverOutcome | undefined
}

/** A call a crash left started without a result. */
export interface LeftoverCall {
  readonly callId: string
  readonly name: string
  /** The child session `subagent/started` named for it, when it started a subagent. */
  readonly subagent?: string
}

/** What crash repair learnt of a leftover call: its result after all, or a note on it. */
export type LeftoverOutcome =
  | { readonly output: string; readonly metadata?: Readonly<Record<string, JsonValue>> }
  | { readonly note: string }

interface Batch {
  readonly rows: EventRow[]
  readonly events: LogEvent[]
  readonly undo: (() => void)[]
  readonly lifecycle: unknown
  readonly surface: SurfaceMark
  readonly length: number
}

interface InboxEntry {
  readonly seq: number
  readonly message: string
  readonly attachments?: readonly Attachment[]
  readonly wake: boolean
  isClaimed: boolean
}

const defaultReport = (error: unknown, context: string) => {
  // A store failure's message is a sentence for the user: said as it is, with no stack trace.
  if (isStoreFailure(error)) console.error(`bridle: ${error.message}`)
  else console.error(`[bridle] ${context}:`, error)
}

/** Pauses between commit attempts while another program holds the write lock. */
const BUSY_RETRY_DELAYS_MS = [100, 200, 400, 800, 1000]

/** A wait for another program's write lock: since when (performance.now), and what was said. */
interface BusyWait {
  readonly since: number
  attempts: number
  isReported: boolean
  hasGivenUp: boolean
}

/**
 * One session's log, open in this process. `append` validates an event, gives it the next seq,
 * freezes it and updates the projections (lifecycle, surface, inbox) at once; the rows are
 * committed together at the end of the tick (group commit), and listeners hear of each event
 * only after its commit. That background commit skips the fsync: its rows survive a crash of
 * the process at once, and a power loss once the next `flush()` (which commits now and resolves
 * once the rows are durable) has paid one fsync for everything before it. If a
 * commit fails, every projection returns to where it was before the batch, and the next
 * `append` or flush throws the failure (so nothing is built on events that are gone). While
 * another program holds the database's write lock, commits are retried asynchronously for
 * DEFAULT_BUSY_RETRY_MS, the batch kept and growing, before they fail with STORE_BUSY.
 */
export class Session {
  private readonly events: LogEvent[] = []
  private readonly lifecycle = new Lifecycle()
  private readonly surface = new Surface()
  private readonly cache = new MessageCache()
  private readonly inbox = new Map<string, InboxEntry>()
  private readonly listeners = new Set<SessionListener>()
  private readonly clock: () => number
  private readonly report: (error: unknown, context: string) => void
  private batch: Batch | undefined
  private isCommitScheduled = false
  private retryTimer: NodeJS.Timeout | undefined
  private busy: BusyWait | undefined
  private failure: LogError | undefined
  private headerSeq: number | undefined
  private isClosed = false

  private constructor(
    readonly id: SessionId,
    private readonly store: Store,
    readonly mode: 'write' | 'read',
    private readonly release: (() => void) | undefined,
    opts: SessionOptions,
  ) {
    this.clock = opts.clock ?? Date.now
    this.report = opts.report ?? defaultReport
  }

  /** Creates a new root session, takes its writer lock and logs `session/created` durably. */
  static create(store: Store, opts: CreateSessionOptions): Session {
    const id = (opts.id ?? randomUUID()) as SessionId
    const at = (opts.clock ?? Date.now)()
    store.write(() =>
      store.createSession({
        id,
        parentId: null,
        forkSeq: null,
        projectDir: opts.projectDir,
        title: opts.title ?? null,
        createdAt: at,
        ...(opts.spawnedBy === undefined ? {} : { spawnedBy: opts.spawnedBy }),
      }),
    )
    const session = new Session(id, store, 'write', store.lockSession(id), opts)
    session.append('session/created', {
      projectDir: opts.projectDir,
      ...(opts.model === undefined ? {} : { model: opts.model }),
      ...(opts.endpoint === undefined ? {} : { endpoint: opts.endpoint }),
    })
    if (opts.title !== undefined) session.append('session/title', { title: opts.title })
    session.flushSync()
    return session
  }

  /**
   * Opens a stored session: reads its whole history (through its fork ancestry), validating
   * every row and every turn/step rule. In `write` mode it first takes the writer lock, then
   * closes whatever a crash left open (docs/ARCHITECTURE.md 3.7) and records `recovery/repaired`.
   */
  static open(store: Store, id: string, opts: OpenSessionOptions = {}): Session {
    const mode = opts.mode ?? 'write'
    const row = store.getSession(id)
    if (!row) throw new StoreError('NO_SUCH_SESSION', `there is no session ${id}`)
    const release = mode === 'write' ? store.lockSession(id) : undefined
    try {
      const session = new Session(id as SessionId, store, mode, release, opts)
      session.load(row)
      if (mode === 'write') session.repair(opts)
      return session
    } catch (error) {
      release?.()
      throw error
    }
  }

  /** The number of events in the whole history, which is also the next seq. */
  get length(): number {
    return this.events.length
  }
  get turn(): number {
    return this.lifecycle.turn
  }
  get step(): number {
    return this.lifecycle.step
  }
  get isTurnOpen(): boolean {
    return this.lifecycle.isTurnOpen
  }
  get lastTurn(): number {
    return this.lifecycle.lastTurn
  }
  pendingCalls() {
    return this.lifecycle.pendingCalls()
  }

  event(seq: number): LogEvent | undefined {
    return this.events[seq]
  }

  /** A copy of the events in [fromSeq, toSeq). */
  slice(fromSeq = 0, toSeq = this.events.length): LogEvent[] {
    return this.events.slice(fromSeq, toSeq)
  }

  /** The model's view: the surface nodes in order (checkpoints stand in for what they replaced). */
  surfaceNodes(): readonly SurfaceNode[] {
    return this.surface.nodes
  }

  /** The latest `request/header`: the system prompt and tools now in force. */
  latestHeader(): LogEventOf<'request/header'> | undefined {
    const header = this.headerSeq === undefined ? undefined : this.events[this.headerSeq]
    return header?.type === 'request/header' ? header : undefined
  }

  /** Queued input not yet claimed by a turn, oldest first. */
  queuedInput(): {
    requestId: string
    message: string
    attachments?: readonly Attachment[]
    wake: boolean
    seq: number
  }[] {
    return [...this.inbox]
      .filter(([, entry]) => !entry.isClaimed)
      .map(([requestId, entry]) => ({
        requestId,
        message: entry.message,
        ...(entry.attachments === undefined ? {} : { attachments: entry.attachments }),
        wake: entry.wake,
        seq: entry.seq,
      }))
  }

  hasRequest(requestId: string): boolean {
    return this.inbox.has(requestId)
  }

  /**
   * The messages the model would be sent now: the system prompt of the latest `request/header`
   * (if any), then the surface in order. O(new events) since the last call, plus one copy.
   */
  deriveMessages(): readonly Message[] {
    const messages = this.cache.derive(this.surface.nodes, this.surface.generation, (seq) =>
      this.eventAt(seq),
    )
    const header = this.headerSeq === undefined ? undefined : this.events[this.headerSeq]
    if (header?.type === 'request/header') messages.unshift(systemMessageOf(header))
    return Object.freeze(messages)
  }

  /**
   * Appends one event and returns it, frozen, with its seq. Throws a LogError, and changes
   * nothing, if the event is invalid or breaks an invariant. The write itself happens at the end
   * of the tick, or at `flush()`.
   */
  append<T extends EventType>(
    type: T,
    data: EventDataInput<T>,
    opts: { at?: number } = {},
  ): LogEventOf<T> {
    if (this.isClosed) throw new LogError('CLOSED', `session ${this.id} is closed`)
    if (this.mode === 'read')
      throw new LogError('READ_ONLY', `session ${this.id} is open for reading only`)
    this.throwFailure()
    const built = buildEvent(
      this.lifecycle,
      this.events.length,
      type,
      data,
      opts.at ?? this.clock(),
    )
    const event = built.event as LogEvent
    this.checkProjections(event)
    const batch = this.openBatch()
    this.events.push(event)
    this.applyProjections(event, batch)
    batch.rows.push(eventToRow(this.id, event, built.text))
    batch.events.push(event)
    this.scheduleCommit()
    return built.event
  }

  /**
   * The durability barrier: commits everything appended so far and resolves once it is on disk
   * (synchronous=FULL). Rejects with WRITE_FAILED if this or an earlier background commit
   * failed; the failed events are gone from memory as well as from disk. For a store failure
   * (`isStoreFailure(error.cause)`) the message is the store's sentence for the user. While
   * another program holds the write lock it waits (without blocking) and retries.
   *
   * `isSynced: false` commits without the fsync: when it resolves the rows survive a crash of
   * this process (they are in the WAL) and listeners have heard of them, but a power loss may
   * still take them until the next synced flush, which covers them with its one fsync. For a
   * record whose loss could not mislead anyone about the world (the request about to be sent).
   */
  async flush(opts: { isSynced?: boolean } = {}): Promise<void> {
    const isSynced = opts.isSynced ?? true
    while (this.commit(true, isSynced) === 'busy') await delay(this.retryDelay())
    this.throwFailure()
    if (isSynced) this.syncStore()
  }

  /** As `flush`, for callers that cannot wait: a held lock gets the store's busy_timeout only. */
  flushSync(): void {
    this.commit(false, true)
    this.throwFailure()
    this.syncStore()
  }

  /** Hears every event after it is committed, in seq order. Returns the disposer. */
  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** Commits what is pending, releases the writer lock. Idempotent. */
  close(): void {
    if (this.isClosed) return
    try {
      this.flushSync()
    } finally {
      this.isClosed = true
      clearTimeout(this.retryTimer)
      this.listeners.clear()
      this.release?.()
    }
  }

  // --- internals ---------------------------------------------------------------------------

  private eventAt(seq: number): LogEvent {
    const event = this.events[seq]
    if (!event) throw new Error(`session ${this.id} has no event ${seq}`)
    return event
  }

  private load(row: SessionRow): void {
    const rows = this.store.readEvents(this.id)
    if (rows.length !== row.nextSeq) {
      throw new LogError(
        'CORRUPT_LOG',
        `session ${this.id}: the store says ${row.nextSeq} events, ${rows.length} were read`,
      )
    }
    for (let seq = 0; seq < rows.length; seq++) {
      const stored = rows[seq]
      if (!stored) break
      const event = rowToEvent(stored, seq)
      try {
        const { turn, step } = this.lifecycle.check(event.type, event.data)
        if (turn !== event.turn || step !== event.step) {
          throw new Error(
            `stored turn ${event.turn} step ${event.step}, but the log implies turn ${turn} step ${step}`,
          )
        }
        this.checkProjections(event)
      } catch (error) {
        throw new LogError(
          'CORRUPT_LOG',
          `session ${stored.sessionId} seq ${seq}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        )
      }
      this.events.push(event)
      this.applyProjections(event, undefined)
    }
  }

  private repair(opts: OpenSessionOptions): void {
    const notes = new Map<string, string>()
    const answers = new Map<string, { output: string; metadata?: Record<string, JsonValue> }>()
    for (const call of this.lifecycle.pendingCalls()) {
      if (!call.isStarted) continue
      if (call.process !== undefined) {
        notes.set(
          call.callId,
          opts.endLeftoverProcess?.(call.process) ??
            `Its command (process ${call.process.pid}) may still be running.`,
        )
        continue
      }
      const outcome = opts.settleLeftoverCall?.(this.id, {
        callId: call.callId,
        name: call.name,
        ...(call.subagent === undefined ? {} : { subagent: call.subagent }),
      })
      if (outcome === undefined) continue
      if ('note' in outcome) notes.set(call.callId, outcome.note)
      else
        answers.set(call.callId, {
          output: outcome.output,
          ...(outcome.metadata === undefined ? {} : { metadata: { ...outcome.metadata } }),
        })
    }
    const closes = this.lifecycle.closes('crash', notes, answers)
    if (closes.length === 0) return
    const items = closes.map((close) => ({
      seq: this.append(close.type, close.data).seq,
      what: close.what,
    }))
    this.append('recovery/repaired', { cause: 'crash', items })
    this.flushSync()
  }

  /** Checks that need more than the lifecycle: inbox ids, surface ranges, header references. */
  private checkProjections(event: LogEvent): void {
    switch (event.type) {
      case 'inbox/queued':
        if (this.inbox.has(event.data.requestId)) {
          throw new LogError(
            'DUPLICATE_REQUEST',
            `request ${event.data.requestId} was already queued`,
          )
        }
        break
      case 'inbox/claimed':
        for (const requestId of event.data.requestIds) {
          const entry = this.inbox.get(requestId)
          if (!entry)
            throw new LogError(
              'INVALID_EVENT',
              `inbox/claimed: request ${requestId} was never queued`,
            )
          if (entry.isClaimed)
            throw new LogError(
              'INVALID_EVENT',
              `inbox/claimed: request ${requestId} was already claimed`,
            )
        }
        break
      case 'compaction/checkpoint':
        this.surface.checkReplace(event.data.fromSeq, event.data.toSeq)
        break
      case 'compaction/undone':
        this.surface.checkUndo(event.data.checkpointSeq)
        break
      case 'compaction/pruned':
        this.surface.checkPrune(event.data.seqs)
        break
      case 'request/start':
        if (this.events[event.data.headerSeq]?.type !== 'request/header') {
          throw new LogError(
            'INVALID_EVENT',
            `request/start: seq ${event.data.headerSeq} is not a request/header`,
          )
        }
        break
      default:
        break
    }
  }

  private applyProjections(event: LogEvent, batch: Batch | undefined): void {
    this.lifecycle.apply(event)
    switch (event.type) {
      case 'inbox/queued': {
        const { requestId } = event.data
        this.inbox.set(requestId, {
          seq: event.seq,
          message: event.data.message,
          ...(event.data.attachments === undefined ? {} : { attachments: event.data.attachments }),
          wake: event.data.wake,
          isClaimed: false,
        })
        batch?.undo.push(() => this.inbox.delete(requestId))
        break
      }
      case 'inbox/claimed':
        for (const requestId of event.data.requestIds) {
          const entry = this.inbox.get(requestId)
          if (!entry) continue
          entry.isClaimed = true
          batch?.undo.push(() => {
            entry.isClaimed = false
          })
        }
        break
      case 'request/header': {
        const previous = this.headerSeq
        this.headerSeq = event.seq
        batch?.undo.push(() => {
          this.headerSeq = previous
        })
        break
      }
      default:
        applyToSurface(this.surface, event)
    }
  }

  private openBatch(): Batch {
    this.batch ??= {
      rows: [],
      events: [],
      undo: [],
      lifecycle: this.lifecycle.snapshot(),
      surface: this.surface.mark(),
      length: this.events.length,
    }
    return this.batch
  }

  private scheduleCommit(): void {
    if (this.isCommitScheduled) return
    this.isCommitScheduled = true
    setImmediate(() => this.commitInBackground())
  }

  private commitInBackground(): void {
    this.isCommitScheduled = false
    // Nobody waits for this commit, so it skips the fsync; the next flush pays one for all.
    if (this.commit(true, false) !== 'busy' || this.isClosed) return
    this.isCommitScheduled = true
    this.retryTimer = setTimeout(() => this.commitInBackground(), this.retryDelay())
  }

  /**
   * The fsync for commits that skipped theirs (background ones), when this flush had nothing
   * of its own to commit. Their events are committed, so nothing is rolled back on failure.
   */
  private syncStore(): void {
    try {
      this.store.sync()
    } catch (error) {
      throw new LogError(
        'WRITE_FAILED',
        isStoreFailure(error)
          ? error.message
          : `session ${this.id}: committed events could not be made durable: ${
              error instanceof Error ? error.message : String(error)
            }`,
        { cause: error },
      )
    }
  }

  /** Throws the failure of a commit that nobody has heard of yet, once. */
  private throwFailure(): void {
    const failure = this.failure
    if (!failure) return
    this.failure = undefined
    throw failure
  }

  /**
   * Writes the pending batch in one transaction. `isPatient`: if another program holds the
   * write lock, wait only COMMIT_BUSY_WAIT_MS, keep the batch and return 'busy' so that the
   * caller retries later, until DEFAULT_BUSY_RETRY_MS have passed since the lock was first met.
   * Any other failure, or giving up, rolls every projection back and keeps the failure for the
   * next append or flush.
   */
  private commit(isPatient: boolean, isSynced: boolean): 'done' | 'busy' {
    const batch = this.batch
    if (!batch) return 'done'
    this.batch = undefined
    // Once given up, nobody waits long again until a commit gets through.
    const isBrief = isPatient || this.busy?.hasGivenUp === true
    try {
      this.store.commitEvents(
        this.id,
        batch.rows,
        isBrief ? { busyWaitMs: COMMIT_BUSY_WAIT_MS, isSynced } : { isSynced },
      )
    } catch (error) {
      if (isPatient && isBusy(error) && this.keepWaiting()) {
        this.batch = batch
        return 'busy'
      }
      this.fail(batch, error)
      return 'done'
    }
    this.busy = undefined
    for (const event of batch.events) {
      for (const listener of [...this.listeners]) {
        try {
          listener(event)
        } catch (error) {
          this.report(error, `a listener of session ${this.id} failed on seq ${event.seq}`)
        }
      }
    }
    return 'done'
  }

  /**
   * Whether a commit the write lock refused is tried again: yes until DEFAULT_BUSY_RETRY_MS
   * after the first refusal (wall time, not the injected clock: this is real waiting). The user
   * is told once that Bridle is retrying.
   */
  private keepWaiting(): boolean {
    const now = performance.now()
    const busy = (this.busy ??= { since: now, attempts: 0, isReported: false, hasGivenUp: false })
    if (busy.hasGivenUp || now - busy.since >= DEFAULT_BUSY_RETRY_MS) {
      busy.hasGivenUp = true
      return false
    }
    busy.attempts++
    if (!busy.isReported) {
      busy.isReported = true
      this.report(storeRetrying(this.store.path), 'the database is locked by another program')
    }
    return true
  }

  private retryDelay(): number {
    const attempts = this.busy?.attempts ?? 1
    return BUSY_RETRY_DELAYS_MS[Math.min(attempts, BUSY_RETRY_DELAYS_MS.length) - 1] ?? 1000
  }

  /** Rolls the batch back out of every projection and keeps the failure for the caller. */
  private fail(batch: Batch, error: unknown): void {
    for (const undo of batch.undo.reverse()) undo()
    this.lifecycle.restore(batch.lifecycle)
    this.surface.restore(batch.surface)
    this.events.length = batch.length
    this.cache.reset()
    const busy = this.busy
    const cause =
      busy?.hasGivenUp && isBusy(error)
        ? storeBusy(this.store.path, performance.now() - busy.since, error)
        : error
    if (isStoreFailure(cause)) {
      // Said once, by whoever hears of it (the next append or flush); not reported here too.
      this.failure = new LogError('WRITE_FAILED', cause.message, { cause })
      return
    }
    this.failure = new LogError(
      'WRITE_FAILED',
      `session ${this.id}: ${batch.rows.length} event(s) from seq ${batch.length} were not written: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    )
    this.report(this.failure, 'commit failed')
  }
}

function isBusy(error: unknown): boolean {
  return error instanceof StoreError && error.code === 'STORE_BUSY'
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
