import type { EventHead } from '../../../protocol/events.js'

/**
 * The store port: everything the log needs from persistence, and nothing about SQLite. The
 * better-sqlite3 implementation lives in sqlite-store.ts (opened by `openStore`); node:sqlite could replace it behind
 * this interface.
 */

/** An event row as stored. `data` is the JSON text of the event's data. */
export interface EventRow extends EventHead {
  readonly sessionId: string
  readonly data: string
}

export interface SessionRow {
  readonly id: string
  readonly parentId: string | null
  /** The child's history is the parent's events with seq < forkSeq, then its own from forkSeq. */
  readonly forkSeq: number | null
  readonly title: string | null
  readonly projectDir: string
  readonly createdAt: number
  /** The latest activity: its last event's time (see messageCount), or its last retitling. */
  readonly updatedAt: number
  /** Rows this session stores itself (not counting the inherited prefix). */
  readonly ownEventCount: number
  /** The next seq this session will write (its whole history's length). */
  readonly nextSeq: number
  /**
   * Model-visible user and assistant messages, own rows only. Derived, and brought up to the rows
   * in a batch after their commit; a read finds a summary behind its rows and catches it up
   * first, so it is exact unless another program holds the write lock at that moment.
   */
  readonly messageCount: number
  /** Set when the session is in the trash; null otherwise. */
  readonly deletedAt: number | null
  /**
   * A subagent's lineage: the session and `task` call that started it; null for a session the
   * user started. Independent of `parentId`, which is about history (a fork's prefix).
   */
  readonly spawnedBy: SpawnedBy | null
}

export interface SpawnedBy {
  readonly sessionId: string
  readonly callId: string
}

export interface NewSession {
  readonly id: string
  readonly parentId: string | null
  readonly forkSeq: number | null
  readonly projectDir: string
  readonly title: string | null
  readonly createdAt: number
  /** Set for a subagent: the session and call that started it (which must exist). */
  readonly spawnedBy?: SpawnedBy
}

/** One stretch of a session's history stored under one session id: seqs [fromSeq, toSeq). */
export interface Segment {
  readonly sessionId: string
  readonly fromSeq: number
  /** Exclusive; Infinity for the session's own open-ended tail. */
  readonly toSeq: number
}

export interface EventQuery {
  readonly fromSeq?: number
  /** Exclusive. */
  readonly toSeq?: number
  readonly types?: readonly string[]
  readonly turn?: number
  readonly step?: number
  readonly limit?: number
}

/** Which sessions a listing shows. */
export interface SessionFilter {
  /** Trashed sessions are left out unless this is true. */
  readonly includeDeleted?: boolean
  /** Only sessions of this project folder (compared as stored: the real path at creation). */
  readonly projectDir?: string
}

export interface SessionPage {
  readonly items: readonly SessionRow[]
  readonly nextCursor: string | null
}

export interface SearchHit {
  readonly sessionId: string
  readonly seq: number
  readonly type: string
  readonly snippet: string
}

/** Thrown with a code a caller can act on; the message says what to do. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'StoreError'
  }
}

export type StoreErrorCode =
  /** A zero-byte file, another app's SQLite file, or not SQLite at all. */
  | 'NOT_A_BRIDLE_DATABASE'
  /** Written by a newer Bridle: refused, never touched. */
  | 'NEWER_SCHEMA'
  /** quick_check failed, or a row does not parse. */
  | 'CORRUPT'
  /** A pragma did not take (e.g. WAL unavailable on this file system). */
  | 'CONFIG_REJECTED'
  /** Another process holds the session's writer lock. */
  | 'SESSION_LOCKED'
  /** The append's expected seq does not match the stored tail: a stale or concurrent writer. */
  | 'STALE_WRITER'
  | 'NO_SUCH_SESSION'
  | 'INVALID_ROW'
  /** The path is a symlink, not a regular file, hard-linked, or owned by another user: refused. */
  | 'UNSAFE_PATH'
  /** A `listSessions` cursor that this store did not produce. */
  | 'INVALID_CURSOR'
  /**
   * The store could not take a write (failures.ts); the message is one sentence for the user
   * naming the cause and the fix. The disk holding the database is full.
   */
  | 'STORE_FULL'
  /** The database, a companion file or its folder cannot be written. */
  | 'STORE_READONLY'
  /** Another program holds the database's write lock. */
  | 'STORE_BUSY'
  /** The disk failed a read or a write (SQLITE_IOERR) for a reason Bridle could not name. */
  | 'STORE_IO'

export interface WriteOptions {
  /**
   * How long BEGIN IMMEDIATE waits for another connection's write lock before STORE_BUSY, in
   * place of the connection's busy_timeout (DEFAULT_BUSY_TIMEOUT_MS). The wait blocks the
   * thread, so a caller that can retry later asynchronously asks for a short one. Only the
   * outermost write waits; a nested call ignores it.
   */
  readonly busyWaitMs?: number
  /**
   * False: commit without the fsync (synchronous=NORMAL). The rows are in the WAL when `write`
   * returns, so they survive a crash of this process, but not yet a power loss: the next synced
   * commit, or `sync()`, makes them durable, since one fsync of the WAL covers every frame
   * before it. Default true. Only the outermost write decides.
   */
  readonly isSynced?: boolean
}

/**
 * Persistence for sessions and events. All writes happen inside `write()`, one
 * `BEGIN IMMEDIATE` transaction; reads may happen at any time.
 */
export interface Store {
  readonly path: string

  /**
   * Runs `body` in one write transaction (BEGIN IMMEDIATE ... COMMIT, with synchronous=FULL
   * unless `opts.isSynced` is false).
   * If `body` throws, the transaction is rolled back and the error rethrown. Nested calls join
   * the outer transaction through a savepoint: a throw inside rolls back only the inner part.
   * A write the store cannot take (disk full, read-only, locked by another program, I/O error)
   * throws a StoreError STORE_FULL, STORE_READONLY, STORE_BUSY or STORE_IO (`isStoreFailure`).
   */
  write<T>(body: () => T, opts?: WriteOptions): T
  /** Makes every commit so far durable: an fsync, if a commit since the last one skipped it. */
  sync(): void

  createSession(session: NewSession): void
  getSession(id: string): SessionRow | undefined
  /**
   * Newest activity first; the cursor is opaque. Trashed sessions are left out unless asked.
   * A cursor stays valid with the same filter it was produced under.
   */
  listSessions(opts: SessionFilter & { cursor?: string | null; limit: number }): SessionPage
  /** Every session with its parent and fork point (for the session tree), oldest first. */
  listTree(filter?: SessionFilter): readonly SessionRow[]
  /** The subagents a session started, oldest first; with `callId`, only that call's. */
  listSpawned(sessionId: string, callId?: string): readonly SessionRow[]
  setTitle(id: string, title: string | null, at: number): void
  setDeleted(id: string, deletedAt: number | null): void

  /**
   * Inserts rows for one session. `rows[0].seq` must equal the session's `nextSeq`, and the seqs
   * must be contiguous, else STALE_WRITER and nothing is written. Must be called inside
   * `write()`. Writes the rows only: the search index and the session's summary (message count,
   * activity time) catch up in a batch after the commit.
   */
  appendEvents(sessionId: string, rows: readonly EventRow[]): void
  /**
   * `write(() => appendEvents(sessionId, rows), opts)`, the log's commit. Outside any write it
   * is a transaction of its own that needs neither the savepoint nor the check of what changed
   * that a general `write` makes; inside one it joins it, as that call would.
   */
  commitEvents(sessionId: string, rows: readonly EventRow[], opts?: WriteOptions): void

  /** The stretches of storage that make up a session's history, oldest first (the fork chain). */
  segments(sessionId: string): readonly Segment[]
  /** Rows stored under `sessionId` itself, ascending seq, filtered. Never includes ancestors. */
  readOwnEvents(sessionId: string, query?: EventQuery): EventRow[]
  /** Rows of a session's whole history (ancestors' prefixes, then its own), ascending, filtered. */
  readEvents(sessionId: string, query?: EventQuery): EventRow[]
  /**
   * How many rows of a session's whole history match (seq range and types only): one index
   * count per segment, so it costs no row reads.
   */
  countEvents(sessionId: string, query?: Pick<EventQuery, 'fromSeq' | 'toSeq' | 'types'>): number
  /** The largest seq < beforeSeq in the session's history whose type is `type`, or undefined. */
  lastSeqOfType(sessionId: string, type: string, beforeSeq: number): number | undefined

  /** Full-text search across all sessions (FTS5 query syntax is escaped: plain words). */
  search(text: string, opts: { limit: number; sessionId?: string }): SearchHit[]

  /**
   * Takes the writer lock of a session for this process, or throws SESSION_LOCKED naming the
   * holder. A lock whose holder process is gone is taken over. Returns the release function.
   */
  lockSession(sessionId: string): () => void

  /** Writes a consistent copy through SQLite (VACUUM INTO); never copies the live file by hand. */
  backupTo(path: string): void

  close(): void
}
