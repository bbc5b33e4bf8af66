import { closeSync, openSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import Database from 'better-sqlite3'
import { EventAppender } from './appender.js'
import { COMMIT_BUSY_WAIT_MS, DEFAULT_BUSY_TIMEOUT_MS, FILE_MODE } from './constants.js'
import { ArmedFault, faultFromEnv } from './fault.js'
import type { StoreFault } from './fault.js'
import { classifyStoreFailure } from './failures.js'
import { EventReader, segmentsOf } from './history.js'
import { SessionLocks } from './locks.js'
import { userVersion } from './migrations.js'
import { openDatabase } from './open.js'
import type { PragmaReport } from './pragmas.js'
import { readPragmas } from './pragmas.js'
import { CatchUp } from './catch-up.js'
import { SearchIndex } from './search.js'
import { SessionTable } from './sessions.js'
import type {
  EventQuery,
  EventRow,
  NewSession,
  SearchHit,
  Segment,
  SessionFilter,
  SessionPage,
  SessionRow,
  Store,
  WriteOptions,
} from './types.js'

export interface StoreOptions {
  /** Epoch milliseconds; used for lock timestamps. Defaults to Date.now. */
  readonly clock?: () => number
  /**
   * Tests only (fault.ts): make SQLite refuse appends from an event type on. Defaults to
   * `BRIDLE_TEST_STORE_FAULT`, so a test can arm it in a child process; unset, nothing changes.
   */
  readonly fault?: StoreFault
}

/**
 * Opens the Bridle database at `path` (see openDatabase for the checks and refusals) and returns
 * the store. The caller owns it and must `close()` it. A disk that refuses the file (read-only,
 * full, failing) is a StoreError STORE_READONLY, STORE_FULL or STORE_IO saying so.
 */
export function openStore(path: string, opts: StoreOptions = {}): SqliteStore {
  const fault = opts.fault ?? faultFromEnv(process.env)
  let opened: ReturnType<typeof openDatabase>
  try {
    opened = openDatabase(path)
  } catch (error) {
    throw classifyStoreFailure(error, resolve(path)) ?? error
  }
  const { db, path: canonical } = opened
  try {
    return new SqliteStore(db, canonical, opts.clock ?? Date.now, fault)
  } catch (error) {
    db.close()
    throw classifyStoreFailure(error, canonical) ?? error
  }
}

/** The WAL is checkpointed this long after the last write. */
const IDLE_CHECKPOINT_MS = 500
/**
 * The search index and the sessions' summaries catch up this long after the first append they
 * have not seen: a step's events are taken up in one batch, and a search or a read of the
 * summaries in between catches up first anyway.
 */
const CATCH_UP_DELAY_MS = 200
/** The inline checkpoint backstop: about 40 MB of WAL at 4 KB pages. */
const WAL_AUTOCHECKPOINT_PAGES = 10_000
/** After a checkpoint the WAL file is truncated back to at most this size. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024

/** What the store has committed since it opened (for the bench and tests). */
export interface StoreCounters {
  /** Outermost write transactions that changed something. */
  readonly commits: number
  /** Those of them committed with synchronous=FULL: each paid one fsync of the WAL. */
  readonly syncedCommits: number
}

/**
 * The Store port on better-sqlite3: one connection, synchronous calls, BEGIN IMMEDIATE writes.
 * Construct it through `openStore`, which does the file checks, pragmas and migrations.
 */
export class SqliteStore implements Store {
  private readonly sessions: SessionTable
  private readonly reader: EventReader
  private readonly index: SearchIndex
  private readonly catchUp: CatchUp
  private readonly appender: EventAppender
  private readonly locks: SessionLocks
  private readonly transaction: Database.Transaction<(body: () => unknown) => unknown>
  private idleCheckpoint: NodeJS.Timeout | undefined
  private catchUpTimer: NodeJS.Timeout | undefined
  /** Sessions this connection appended to since their index and summary last caught up. */
  private readonly behind = new Set<string>()
  /** Whether a commit since the last synced one skipped its fsync (what `sync()` makes good). */
  private hasUnsyncedCommits = false
  private readonly totalChanges: Database.Statement<[], number>
  private counts = { commits: 0, syncedCommits: 0 }
  /** The connection's busy_timeout as last set (openDatabase sets the default). */
  private busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    clock: () => number,
    fault?: StoreFault,
  ) {
    this.sessions = new SessionTable(db, (ids) => this.catchUpNow(ids, 0))
    this.reader = new EventReader(db)
    this.index = new SearchIndex(db)
    this.catchUp = new CatchUp(db, this.index)
    this.appender = new EventAppender(db, fault && new ArmedFault(db, fault))
    this.locks = new SessionLocks(db, clock)
    // better-sqlite3 turns a call made inside another transaction into a savepoint, which gives
    // write() its nesting contract; a body that returns a promise is refused by the library.
    this.transaction = db.transaction((body: () => unknown) => body())
    // Checkpoints move WAL pages into the database file and fsync it. Inline (SQLite's default,
    // every 1000 pages) they land on an append's commit and stall it; so they run when writes
    // pause, and the inline threshold is only a backstop for a writer that never pauses.
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`)
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`)
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck()
    // What a crash (or another process's crash) left behind the marks.
    this.catchUpNow(undefined, DEFAULT_BUSY_TIMEOUT_MS)
  }

  write<T>(body: () => T, opts: WriteOptions = {}): T {
    // A nested write joins the outer transaction (a savepoint); only the outermost one commits.
    if (this.db.inTransaction) return this.inTransaction(() => this.transaction(body) as T, {})
    const changesBefore = this.totalChanges.get()
    const result = this.inTransaction(() => this.transaction.immediate(body) as T, opts)
    this.afterCommit(this.totalChanges.get() !== changesBefore, opts)
    return result
  }

  commitEvents(sessionId: string, rows: readonly EventRow[], opts: WriteOptions = {}): void {
    // Inside a write it joins that write, whose commit is the caller's.
    if (this.db.inTransaction || rows.length === 0) {
      this.write(() => this.appendEvents(sessionId, rows), opts)
      return
    }
    this.behind.add(sessionId)
    this.inTransaction(() => this.appender.commit(sessionId, rows), opts)
    this.afterCommit(true, opts)
  }

  /**
   * Runs `start`, which opens a transaction (or a savepoint) and commits it, with the lock wait
   * and fsync the options ask for, and says what went wrong in the store's words.
   */
  private inTransaction<T>(start: () => T, opts: WriteOptions): T {
    const wait = opts.busyWaitMs ?? DEFAULT_BUSY_TIMEOUT_MS
    const isSynced = opts.isSynced ?? true
    if (!this.db.inTransaction) this.waitForLocks(wait)
    // The connection rests at synchronous=FULL (docs/ARCHITECTURE.md 3.1); an unsynced write
    // lowers it for its own commit only.
    if (!isSynced) this.db.pragma('synchronous = NORMAL')
    try {
      return start()
    } catch (error) {
      throw classifyStoreFailure(error, this.path, wait) ?? error
    } finally {
      if (!isSynced) this.db.pragma('synchronous = FULL')
    }
  }

  /** After an outermost commit: the counters, then the idle checkpoint and index catch-up. */
  private afterCommit(isChanged: boolean, opts: WriteOptions): void {
    if (isChanged) this.countCommit(opts.isSynced ?? true)
    this.scheduleCheckpoint()
    this.catchUpSoon()
  }

  /** Commits and fsync-bearing commits since this store opened. */
  counters(): StoreCounters {
    return { ...this.counts }
  }

  sync(): void {
    if (!this.hasUnsyncedCommits) return
    // A synced commit needs a page to write: the header's user_version, set to what it is.
    this.write(() => this.db.pragma(`user_version = ${userVersion(this.db)}`))
    this.counts.commits++
    this.counts.syncedCommits++
    this.hasUnsyncedCommits = false
  }

  private countCommit(isSynced: boolean): void {
    this.counts.commits++
    if (isSynced) this.counts.syncedCommits++
    this.hasUnsyncedCommits = !isSynced
  }

  /**
   * Sets how long the next write waits for another connection's lock. Only when it changes: the
   * log's commits all ask for the same brief wait, and a pragma per commit costs ~10% of one.
   */
  private waitForLocks(ms: number): void {
    if (this.busyTimeoutMs === ms) return
    this.db.pragma(`busy_timeout = ${ms}`)
    this.busyTimeoutMs = ms
  }

  private scheduleCheckpoint(): void {
    if (this.idleCheckpoint) this.idleCheckpoint.refresh()
    else {
      this.idleCheckpoint = setTimeout(() => {
        this.idleCheckpoint = undefined
        if (!this.db.open) return
        try {
          this.db.pragma('wal_checkpoint(PASSIVE)')
        } catch {
          // Busy or closed: the next pause (or the inline backstop) checkpoints instead.
        }
      }, IDLE_CHECKPOINT_MS)
      this.idleCheckpoint.unref()
    }
  }

  private catchUpSoon(): void {
    if (this.catchUpTimer !== undefined || this.behind.size === 0 || !this.db.open) return
    this.catchUpTimer = setTimeout(() => {
      this.catchUpTimer = undefined
      this.catchUpNow(this.behind, 0)
    }, CATCH_UP_DELAY_MS)
    this.catchUpTimer.unref()
  }

  /**
   * Brings the search index and the sessions' summaries up to the log for `sessionIds`
   * (undefined: every session behind), in one transaction of its own. It commits with
   * synchronous=NORMAL: no fsync of its own, since both are derived; if a crash loses it, its
   * marks are lost with it and the next open takes those rows up again. Never throws: a batch
   * that fails (a held lock, a full disk) is tried again later, and the next read, search or open
   * catches up anyway. Outside open it does not wait for another program's lock (`busyWaitMs`
   * 0): it must never block the loop.
   */
  private catchUpNow(sessionIds: Iterable<string> | undefined, busyWaitMs: number): boolean {
    // The caller's own commit schedules a batch after it.
    if (!this.db.open || this.db.inTransaction) return false
    const ids = sessionIds === undefined ? undefined : [...sessionIds]
    // This connection's own appends among them: the timer tries those again if this fails.
    const own = ids === undefined ? [...this.behind] : ids.filter((id) => this.behind.has(id))
    for (const id of own) this.behind.delete(id)
    // The batch needs no fsync of its own, so it leaves `sync()` nothing to do for it.
    const hadUnsyncedCommits = this.hasUnsyncedCommits
    try {
      this.write(() => this.catchUp.run(ids), { busyWaitMs, isSynced: false })
      return true
    } catch {
      // Nothing is lost: the rows stay above their sessions' marks until a later batch, and
      // another connection's rows until its own batch, or the next read or open here.
      for (const id of own) this.behind.add(id)
      return false
    } finally {
      this.hasUnsyncedCommits = hadUnsyncedCommits
      this.catchUpSoon()
    }
  }

  createSession(session: NewSession): void {
    this.write(() => this.sessions.create(session))
  }

  getSession(id: string): SessionRow | undefined {
    return this.sessions.get(id)
  }

  listSessions(opts: SessionFilter & { cursor?: string | null; limit: number }): SessionPage {
    return this.sessions.list(opts)
  }

  listTree(filter?: SessionFilter): readonly SessionRow[] {
    return this.sessions.listTree(filter)
  }

  listSpawned(sessionId: string, callId?: string): readonly SessionRow[] {
    return this.sessions.spawned(sessionId, callId)
  }

  setTitle(id: string, title: string | null, at: number): void {
    this.write(() => this.sessions.setTitle(id, title, at))
  }

  setDeleted(id: string, deletedAt: number | null): void {
    this.write(() => this.sessions.setDeleted(id, deletedAt))
  }

  appendEvents(sessionId: string, rows: readonly EventRow[]): void {
    this.appender.append(sessionId, rows)
    if (rows.length > 0) this.behind.add(sessionId)
  }

  segments(sessionId: string): readonly Segment[] {
    return segmentsOf(this.sessions.chain(sessionId))
  }

  readOwnEvents(sessionId: string, query: EventQuery = {}): EventRow[] {
    this.sessions.chain(sessionId) // throws NO_SUCH_SESSION
    return this.reader.read([{ sessionId, fromSeq: 0, toSeq: Infinity }], query)
  }

  readEvents(sessionId: string, query: EventQuery = {}): EventRow[] {
    return this.reader.read(this.segments(sessionId), query)
  }

  countEvents(
    sessionId: string,
    query: Pick<EventQuery, 'fromSeq' | 'toSeq' | 'types'> = {},
  ): number {
    return this.reader.count(this.segments(sessionId), query)
  }

  lastSeqOfType(sessionId: string, type: string, beforeSeq: number): number | undefined {
    const segments = this.segments(sessionId)
    for (let i = segments.length - 1; i >= 0; i--) {
      const segment = segments[i]
      if (segment === undefined || segment.fromSeq >= beforeSeq) continue
      const to = Math.min(segment.toSeq, beforeSeq)
      const seq = this.reader.lastSeqOfType(segment.sessionId, type, segment.fromSeq, to)
      if (seq !== undefined) return seq
    }
    return undefined
  }

  /** Catches the index up first (every session, other processes' too), then searches. */
  search(text: string, opts: { limit: number; sessionId?: string }): SearchHit[] {
    if (!this.db.inTransaction && this.catchUp.isBehind()) this.catchUpNow(undefined, 0)
    return this.index.search(text, opts)
  }

  lockSession(sessionId: string): () => void {
    this.waitForLocks(DEFAULT_BUSY_TIMEOUT_MS)
    try {
      return this.locks.lock(sessionId)
    } catch (error) {
      throw classifyStoreFailure(error, this.path) ?? error
    }
  }

  /**
   * A consistent copy through SQLite (VACUUM INTO), owner-only like the original. The target
   * must not exist. Locks are cleared in the copy: they belong to processes using this file.
   */
  backupTo(path: string): void {
    const target = resolve(path)
    // Created empty first so the copy is 0600 from its first byte; VACUUM INTO accepts an
    // empty file and refuses a non-empty one.
    closeSync(openSync(target, 'wx', FILE_MODE))
    try {
      this.db.prepare('VACUUM INTO ?').run(target)
      const copy = new Database(target, { fileMustExist: true })
      try {
        copy.exec('DELETE FROM session_locks')
      } finally {
        copy.close()
      }
    } catch (error) {
      rmSync(target, { force: true })
      throw error
    }
  }

  /** The connection's pinned settings as read back now (for tests and `bridle inspect`). */
  pragmas(): PragmaReport {
    return readPragmas(this.db)
  }

  /** Releases this store's locks, truncates the WAL and closes. Calling it again does nothing. */
  close(): void {
    if (!this.db.open) return
    clearTimeout(this.idleCheckpoint)
    this.idleCheckpoint = undefined
    clearTimeout(this.catchUpTimer)
    this.catchUpTimer = undefined
    this.catchUpNow(this.behind, 0)
    // Both steps below are best-effort: blocking the exit for the full busy_timeout while another
    // program holds the database would buy nothing.
    this.waitForLocks(COMMIT_BUSY_WAIT_MS)
    try {
      this.locks.releaseAll()
    } catch {
      // A lock row left behind names this process; once it exits, the next opener takes it over.
    }
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)')
    } catch {
      // Best-effort: a reader in another process can hold the WAL; closing checkpoints later.
    }
    this.db.close()
  }
}
