import type Database from 'better-sqlite3'
import { SNIPPET_CLOSE, SNIPPET_ELLIPSIS, SNIPPET_OPEN, SNIPPET_TOKENS } from './constants.js'
import { toFtsQuery } from './fts-query.js'
import type { SearchRecord } from './rows.js'
import { toSearchHit } from './rows.js'
import { storedSearchText } from './search-text.js'
import type { SearchHit } from './types.js'

/** Rows read per query while catching up: bounds the memory of a large backlog. */
const CATCH_UP_PAGE = 500

interface PendingRow {
  readonly seq: number
  readonly type: string
  readonly data: string
}

/** The text column's index in events_fts (session_id, seq, text), for snippet(). */
const TEXT_COLUMN = 2

const HIT_COLUMNS = `events_fts.session_id AS session_id, events_fts.seq AS seq, events.type AS type,
  snippet(events_fts, ${TEXT_COLUMN}, ?, ?, ?, ?) AS snippet`

const FROM = `FROM events_fts
  JOIN events ON events.session_id = events_fts.session_id AND events.seq = events_fts.seq
  JOIN sessions ON sessions.id = events_fts.session_id
  WHERE events_fts MATCH ? AND sessions.deleted_at IS NULL`

const ORDER = 'ORDER BY events_fts.rank, events_fts.session_id, events_fts.seq LIMIT ?'

/**
 * The full-text index over events (schema v2). It lags the log: `catchUp` indexes the rows above
 * each session's high-water mark (`sessions.indexed_seq`, schema v4) and moves the mark, in the
 * caller's transaction, so an index row and its mark commit together. The store runs it in a
 * background batch after appends, at open (what a crash left unindexed) and before every search,
 * so a search finds every committed event. Rows are never changed, like the events they index.
 * Search leaves out trashed sessions.
 */
export class SearchIndex {
  private readonly insert: Database.Statement<[string, number, string]>
  private readonly markOf: Database.Statement<[string], { indexed_seq: number; next_seq: number }>
  private readonly pendingRows: Database.Statement<[string, number, number], PendingRow>
  private readonly setMark: Database.Statement<[number, string]>
  private readonly behind: Database.Statement<[], string>
  private readonly everywhere: Database.Statement<
    [string, string, string, number, string, number],
    SearchRecord
  >
  private readonly inSession: Database.Statement<
    [string, string, string, number, string, string, number],
    SearchRecord
  >

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO events_fts (session_id, seq, text) VALUES (?, ?, ?)')
    this.markOf = db.prepare('SELECT indexed_seq, next_seq FROM sessions WHERE id = ?')
    this.pendingRows = db.prepare(
      'SELECT seq, type, data FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    )
    this.setMark = db.prepare('UPDATE sessions SET indexed_seq = ? WHERE id = ?')
    this.behind = db
      .prepare<[], string>('SELECT id FROM sessions WHERE indexed_seq < next_seq')
      .pluck()
    this.everywhere = db.prepare(`SELECT ${HIT_COLUMNS} ${FROM} ${ORDER}`)
    this.inSession = db.prepare(
      `SELECT ${HIT_COLUMNS} ${FROM} AND events_fts.session_id = ? ${ORDER}`,
    )
  }

  /**
   * Indexes the rows of `sessionIds` (default: every session behind its mark) that are not yet
   * indexed, and returns how many rows it read. Must run inside a write transaction; the mark is
   * read inside it, so two connections catching up the same session index each row once.
   */
  catchUp(sessionIds: Iterable<string> = this.behind.all()): number {
    let read = 0
    for (const sessionId of sessionIds) {
      const marks = this.markOf.get(sessionId)
      if (marks === undefined) continue // a session id that a rolled-back write never created
      let mark = marks.indexed_seq
      while (mark < marks.next_seq) {
        const rows = this.pendingRows.all(sessionId, mark, CATCH_UP_PAGE)
        for (const row of rows) {
          const text = storedSearchText(row.type, row.data)
          if (text !== undefined) this.insert.run(sessionId, row.seq, text)
        }
        read += rows.length
        // A fork's own rows start at its fork seq: the seqs below are its parent's, not missing.
        mark = rows.length < CATCH_UP_PAGE ? marks.next_seq : (rows.at(-1)?.seq ?? mark) + 1
      }
      if (mark !== marks.indexed_seq) this.setMark.run(mark, sessionId)
    }
    return read
  }

  /** Whether any session has rows the index has not caught up with. */
  isBehind(): boolean {
    return this.behind.get() !== undefined
  }

  /** Plain words, all of which must appear (see toFtsQuery); best matches first. */
  search(text: string, opts: { limit: number; sessionId?: string }): SearchHit[] {
    if (!Number.isSafeInteger(opts.limit) || opts.limit < 0) {
      throw new RangeError(
        `search: limit must be a non-negative integer, got ${String(opts.limit)}`,
      )
    }
    const query = toFtsQuery(text)
    if (query === undefined || opts.limit === 0) return []
    const marks = [SNIPPET_OPEN, SNIPPET_CLOSE, SNIPPET_ELLIPSIS, SNIPPET_TOKENS] as const
    const records =
      opts.sessionId === undefined
        ? this.everywhere.all(...marks, query, opts.limit)
        : this.inSession.all(...marks, query, opts.sessionId, opts.limit)
    return records.map(toSearchHit)
  }
}
