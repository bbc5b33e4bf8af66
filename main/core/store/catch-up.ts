import type Database from 'better-sqlite3'
import { countsAsMessage } from '../../../protocol/events.js'
import type { SearchIndex } from './search.js'

/** Rows read per query while catching up: bounds the memory of a large backlog. */
const CATCH_UP_PAGE = 500

interface PendingRow {
  readonly seq: number
  readonly type: string
  readonly at: number
  readonly data: string
}

/**
 * What is derived from a session's rows, kept beside them and brought up to them after the
 * append's commit rather than in it, so that a durable append writes the event's pages alone:
 * the search index, and the session's summary (its message count and activity time, which the
 * sessions list shows). Rows below `sessions.derived_seq` (schema v5) are in both; the mark
 * moves in the caller's transaction with what it covers, so after a crash the rows above it are
 * taken up again when the store opens. A session's length (`nextSeq`) is never derived this
 * way but read from its rows (rows.ts).
 */
export class CatchUp {
  private readonly markOf: Database.Statement<[string], number>
  private readonly pendingRows: Database.Statement<[string, number, number], PendingRow>
  private readonly setMark: Database.Statement<[number, number, number, string]>
  private readonly behind: Database.Statement<[], string>

  constructor(
    db: Database.Database,
    private readonly index: SearchIndex,
  ) {
    this.markOf = db
      .prepare<[string], number>('SELECT derived_seq FROM sessions WHERE id = ?')
      .pluck()
    this.pendingRows = db.prepare(
      'SELECT seq, type, at, data FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    )
    this.setMark = db.prepare(
      `UPDATE sessions SET derived_seq = ?, message_count = message_count + ?,
         updated_at = max(updated_at, ?) WHERE id = ?`,
    )
    // One seek in the events' key per session.
    this.behind = db
      .prepare<[], string>(
        `SELECT id FROM sessions WHERE EXISTS (SELECT 1 FROM events
           WHERE events.session_id = sessions.id AND events.seq >= derived_seq)`,
      )
      .pluck()
  }

  /**
   * Takes up the rows of `sessionIds` (default: every session behind its mark) above their
   * marks, and returns how many rows it read. Must run inside a write transaction; the mark is
   * read inside it, so two connections catching up one session take each row once.
   */
  run(sessionIds: Iterable<string> = this.behind.all()): number {
    let read = 0
    for (const sessionId of sessionIds) {
      const mark = this.markOf.get(sessionId)
      if (mark === undefined) continue // a session id that a rolled-back write never created
      let next = mark
      let messages = 0
      let lastAt = 0
      let isMoved = false
      for (;;) {
        const rows = this.pendingRows.all(sessionId, next, CATCH_UP_PAGE)
        for (const row of rows) {
          this.index.add(sessionId, row.seq, row.type, row.data)
          if (isMessage(row)) messages++
          lastAt = Math.max(lastAt, row.at)
        }
        read += rows.length
        const last = rows.at(-1)
        if (last !== undefined) {
          next = last.seq + 1
          isMoved = true
        }
        if (rows.length < CATCH_UP_PAGE) break
      }
      if (isMoved) this.setMark.run(next, messages, lastAt, sessionId)
    }
    return read
  }

  /** Whether any session has rows a mark has not caught up with. */
  isBehind(): boolean {
    return this.behind.get() !== undefined
  }
}

/** `countsAsMessage`, reading the data only for the type whose count depends on it. */
function isMessage(row: PendingRow): boolean {
  if (row.type !== 'user/message') return countsAsMessage(row.type, undefined)
  try {
    return countsAsMessage(row.type, JSON.parse(row.data))
  } catch {
    return false // a row the log would refuse to read anyway; it is not counted
  }
}
