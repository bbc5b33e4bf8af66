import type Database from 'better-sqlite3'
import { countsAsMessage } from '../../../protocol/events.js'
import type { SearchIndex } from './search.js'

/** Rows read per query while catching up: bounds the memory of a large backlog. */
const CATCH_UP_PAGE = 500

interface Marks {
  readonly indexed_seq: number
  readonly summarized_seq: number
}

interface PendingRow {
  readonly seq: number
  readonly type: string
  readonly at: number
  readonly data: string
}

/**
 * What is derived from a session's rows, kept beside them and brought up to them after the
 * append's commit rather than in it, so that a durable append writes the event's pages alone:
 * the search index (above `sessions.indexed_seq`) and the session's summary, its message count
 * and activity time (above `sessions.summarized_seq`, schema v5). Both marks move in the caller's
 * transaction with what they cover, so after a crash the rows above them are taken up again
 * when the store opens. The summary is what the sessions list shows; a session's length
 * (`nextSeq`) is never derived this way but read from its rows (rows.ts).
 */
export class CatchUp {
  private readonly marksOf: Database.Statement<[string], Marks>
  private readonly pendingRows: Database.Statement<[string, number, number], PendingRow>
  private readonly setMarks: Database.Statement<[number, number, number, number, string]>
  private readonly behind: Database.Statement<[], string>

  constructor(
    db: Database.Database,
    private readonly index: SearchIndex,
  ) {
    this.marksOf = db.prepare('SELECT indexed_seq, summarized_seq FROM sessions WHERE id = ?')
    this.pendingRows = db.prepare(
      'SELECT seq, type, at, data FROM events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?',
    )
    this.setMarks = db.prepare(
      `UPDATE sessions SET indexed_seq = max(indexed_seq, ?), summarized_seq = max(summarized_seq, ?),
         message_count = message_count + ?, updated_at = max(updated_at, ?) WHERE id = ?`,
    )
    // One seek in the events' key per session.
    this.behind = db
      .prepare<[], string>(
        `SELECT id FROM sessions WHERE EXISTS (SELECT 1 FROM events
           WHERE events.session_id = sessions.id AND events.seq >= min(indexed_seq, summarized_seq))`,
      )
      .pluck()
  }

  /**
   * Takes up the rows of `sessionIds` (default: every session behind a mark) above their marks,
   * and returns how many rows it read. Must run inside a write transaction; the marks are read
   * inside it, so two connections catching up one session take each row once.
   */
  run(sessionIds: Iterable<string> = this.behind.all()): number {
    let read = 0
    for (const sessionId of sessionIds) {
      const marks = this.marksOf.get(sessionId)
      if (marks === undefined) continue // a session id that a rolled-back write never created
      // A fork's own rows start at its fork seq: the seqs below are its parent's, not missing.
      let next = Math.min(marks.indexed_seq, marks.summarized_seq)
      let messages = 0
      let lastAt = 0
      let isMoved = false
      for (;;) {
        const rows = this.pendingRows.all(sessionId, next, CATCH_UP_PAGE)
        for (const row of rows) {
          if (row.seq >= marks.indexed_seq) this.index.add(sessionId, row.seq, row.type, row.data)
          if (row.seq >= marks.summarized_seq) {
            if (isMessage(row)) messages++
            lastAt = Math.max(lastAt, row.at)
          }
        }
        read += rows.length
        const last = rows.at(-1)
        if (last !== undefined) {
          next = last.seq + 1
          isMoved = true
        }
        if (rows.length < CATCH_UP_PAGE) break
      }
      if (isMoved) this.setMarks.run(next, next, messages, lastAt, sessionId)
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
