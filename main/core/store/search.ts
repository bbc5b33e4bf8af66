import type Database from 'better-sqlite3'
import { SNIPPET_CLOSE, SNIPPET_ELLIPSIS, SNIPPET_OPEN, SNIPPET_TOKENS } from './constants.js'
import { toFtsQuery } from './fts-query.js'
import type { SearchRecord } from './rows.js'
import { toSearchHit } from './rows.js'
import { storedSearchText } from './search-text.js'
import type { SearchHit } from './types.js'

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
 * The full-text index over events (schema v2). It lags the log: the rows above each session's
 * `sessions.derived_seq` are added by the catch-up batch (catch-up.ts), which the store runs
 * after appends, at open (what a crash left unindexed) and before every search, so a search finds
 * every committed event. Rows are never changed, like the events they index. Search leaves out
 * trashed sessions.
 */
export class SearchIndex {
  private readonly insert: Database.Statement<[string, number, string]>
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
    this.everywhere = db.prepare(`SELECT ${HIT_COLUMNS} ${FROM} ${ORDER}`)
    this.inSession = db.prepare(
      `SELECT ${HIT_COLUMNS} ${FROM} AND events_fts.session_id = ? ${ORDER}`,
    )
  }

  /** Indexes one event row, if it has text worth finding; in the caller's transaction. */
  add(sessionId: string, seq: number, type: string, data: string): void {
    const text = storedSearchText(type, data)
    if (text !== undefined) this.insert.run(sessionId, seq, text)
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
