import type Database from 'better-sqlite3'
import { decodeCursor, encodeCursor } from './cursor.js'
import type { SessionRecord } from './rows.js'
import { SESSION_COLUMNS, toSessionRow } from './rows.js'
import type { NewSession, SessionFilter, SessionPage, SessionRow } from './types.js'
import { StoreError } from './types.js'

/** Fork chains deeper than this are treated as a damaged parent link (a cycle). */
const MAX_FORK_DEPTH = 10_000

/**
 * The sessions table: creation with fork validation, lookups, paging and the small updates.
 * Writes assume the caller's transaction (SqliteStore wraps them in `write()`).
 */
export class SessionTable {
  private readonly byId: Database.Statement<[string], SessionRecord>
  private readonly insert: Database.Statement<
    [
      string,
      string | null,
      number | null,
      string | null,
      string,
      number,
      number,
      number,
      string | null,
      string | null,
    ]
  >
  private readonly spawnedBy: Database.Statement<[string], SessionRecord>
  private readonly spawnedByCall: Database.Statement<[string, string], SessionRecord>
  private readonly updateTitle: Database.Statement<[string | null, number, string]>
  private readonly updateDeleted: Database.Statement<[number | null, string]>
  private readonly pages = new Map<string, Database.Statement>()

  constructor(
    private readonly db: Database.Database,
    /**
     * Brings the summaries of these sessions up to their rows (catch-up.ts); false if it could
     * not (inside a write, or another program holds the lock), and the rows are read as they are.
     */
    private readonly catchUp: (sessionIds: readonly string[]) => boolean,
  ) {
    this.byId = db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`)
    this.insert = db.prepare(
      `INSERT INTO sessions (id, parent_id, fork_seq, title, project_dir, created_at, updated_at, derived_seq, spawned_by, spawned_by_call)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    this.spawnedBy = db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE spawned_by = ? ORDER BY created_at, id`,
    )
    this.spawnedByCall = db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE spawned_by = ? AND spawned_by_call = ? ORDER BY created_at, id`,
    )
    this.updateTitle = db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?')
    this.updateDeleted = db.prepare('UPDATE sessions SET deleted_at = ? WHERE id = ?')
  }

  get(id: string): SessionRow | undefined {
    const [record] = this.settled(() => {
      const found = this.byId.get(id)
      return found === undefined ? [] : [found]
    })
    return record === undefined ? undefined : toSessionRow(record)
  }

  /** The session, then its parent, up to the root. */
  chain(id: string): SessionRow[] {
    const chain: SessionRow[] = []
    let next: string | null = id
    while (next !== null) {
      // The chain needs no summary: every read of a history walks it, and must not write.
      const record = this.byId.get(next)
      const session = record === undefined ? undefined : toSessionRow(record)
      if (session === undefined) {
        if (chain.length === 0) throw noSuchSession(id)
        throw new StoreError(
          'CORRUPT',
          `session ${chain.at(-1)?.id ?? id} names a parent ${next} that does not exist`,
        )
      }
      chain.push(session)
      if (chain.length > MAX_FORK_DEPTH) {
        throw new StoreError(
          'CORRUPT',
          `the fork chain of session ${id} loops or is deeper than ${MAX_FORK_DEPTH}`,
        )
      }
      next = session.parentId
    }
    return chain
  }

  create(session: NewSession): void {
    checkNewSession(session)
    if (this.byId.get(session.id) !== undefined) {
      throw new StoreError('INVALID_ROW', `a session with id ${session.id} already exists`)
    }
    if (session.parentId !== null) {
      const parent = this.byId.get(session.parentId)
      if (parent === undefined) throw noSuchSession(session.parentId)
      if (session.forkSeq !== null && session.forkSeq > parent.next_seq) {
        throw new StoreError(
          'INVALID_ROW',
          `cannot fork session ${session.parentId} at seq ${String(session.forkSeq)}: ` +
            `it has ${parent.next_seq} events, so a fork point must be 0..${parent.next_seq}`,
        )
      }
    }
    if (session.spawnedBy !== undefined && this.byId.get(session.spawnedBy.sessionId) === undefined)
      throw noSuchSession(session.spawnedBy.sessionId)
    this.insert.run(
      session.id,
      session.parentId,
      session.forkSeq,
      session.title,
      session.projectDir,
      session.createdAt,
      session.createdAt,
      // A fork's own rows start at the fork point; the prefix stays in the ancestors.
      session.forkSeq ?? 0,
      session.spawnedBy?.sessionId ?? null,
      session.spawnedBy?.callId ?? null,
    )
  }

  /** The subagents `sessionId` started (with `callId`: that call's), oldest first. */
  spawned(sessionId: string, callId?: string): SessionRow[] {
    const records = this.settled(() =>
      callId === undefined
        ? this.spawnedBy.all(sessionId)
        : this.spawnedByCall.all(sessionId, callId),
    )
    return records.map(toSessionRow)
  }

  /** Newest activity first, ties by id; keyset paging, so a page costs O(limit) at any depth. */
  list(opts: SessionFilter & { cursor?: string | null; limit: number }): SessionPage {
    if (!Number.isSafeInteger(opts.limit) || opts.limit < 1) {
      throw new RangeError(
        `listSessions: limit must be a positive integer, got ${String(opts.limit)}`,
      )
    }
    const after = opts.cursor ? decodeCursor(opts.cursor) : undefined
    const { conditions, params } = filterConditions(opts)
    if (after !== undefined) {
      conditions.push('(updated_at, id) < (?, ?)')
      params.push(after.updatedAt, after.id)
    }
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`
    const sql = `SELECT ${SESSION_COLUMNS} FROM sessions ${where} ORDER BY updated_at DESC, id DESC LIMIT ?`
    // One more than asked for tells whether another page exists without a COUNT.
    const records = this.settled(
      () => this.page(sql).all(...params, opts.limit + 1) as SessionRecord[],
    )
    const items = records.slice(0, opts.limit).map(toSessionRow)
    const last = items.at(-1)
    const hasMore = records.length > opts.limit && last !== undefined
    return {
      items,
      nextCursor: hasMore ? encodeCursor({ updatedAt: last.updatedAt, id: last.id }) : null,
    }
  }

  listTree(filter: SessionFilter = {}): SessionRow[] {
    const { conditions, params } = filterConditions(filter)
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`
    const sql = `SELECT ${SESSION_COLUMNS} FROM sessions ${where} ORDER BY created_at, id`
    return this.settled(() => this.page(sql).all(...params) as SessionRecord[]).map(toSessionRow)
  }

  setTitle(id: string, title: string | null, at: number): void {
    if (this.updateTitle.run(title, at, id).changes === 0) throw noSuchSession(id)
  }

  setDeleted(id: string, deletedAt: number | null): void {
    if (this.updateDeleted.run(deletedAt, id).changes === 0) throw noSuchSession(id)
  }

  /**
   * Runs a read of session rows; if the summary of any is behind its rows (appended a moment
   * ago, by this connection or another), catches those up and reads again, so a summary read is
   * exact whenever the catch-up can run.
   */
  private settled(read: () => SessionRecord[]): SessionRecord[] {
    const records = read()
    const behind = records
      .filter((record) => record.derived_seq < record.next_seq)
      .map((record) => record.id)
    return behind.length > 0 && this.catchUp(behind) ? read() : records
  }

  private page(sql: string): Database.Statement {
    let statement = this.pages.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.pages.set(sql, statement)
    }
    return statement
  }
}

/** The WHERE conditions (and their parameters) of a listing's filter. */
function filterConditions(filter: SessionFilter): {
  conditions: string[]
  params: (string | number)[]
} {
  const conditions: string[] = []
  const params: (string | number)[] = []
  if (filter.includeDeleted !== true) conditions.push('deleted_at IS NULL')
  if (filter.projectDir !== undefined) {
    conditions.push('project_dir = ?')
    params.push(filter.projectDir)
  }
  return { conditions, params }
}

export function noSuchSession(id: string): StoreError {
  return new StoreError('NO_SUCH_SESSION', `there is no session ${id}`)
}

function checkNewSession(session: NewSession): void {
  const bad = (why: string) =>
    new StoreError('INVALID_ROW', `cannot create session ${session.id}: ${why}`)
  if (typeof session.id !== 'string' || session.id.length === 0) throw bad('the id is empty')
  if (!Number.isSafeInteger(session.createdAt)) throw bad('createdAt must be an integer (epoch ms)')
  if (session.parentId === null && session.forkSeq !== null) {
    throw bad('a fork point needs a parent (forkSeq is set but parentId is null)')
  }
  if (session.parentId !== null && session.forkSeq === null) {
    throw bad('a fork needs a fork point (parentId is set but forkSeq is null)')
  }
  if (
    session.forkSeq !== null &&
    !(Number.isSafeInteger(session.forkSeq) && session.forkSeq >= 0)
  ) {
    throw bad(`forkSeq must be a non-negative integer, got ${String(session.forkSeq)}`)
  }
}
