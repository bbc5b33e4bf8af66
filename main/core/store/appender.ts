import type Database from 'better-sqlite3'
import { ACTIVITY_RESOLUTION_MS } from './constants.js'
import type { ArmedFault } from './fault.js'
import { eventParams } from './rows.js'
import { noSuchSession } from './sessions.js'
import type { EventRow } from './types.js'
import { StoreError } from './types.js'

type EventParams = ReturnType<typeof eventParams>

interface Tail {
  next_seq: number
  updated_at: number
  /** Whether the session is first in the sessions list's order (most recent activity). */
  is_latest: 0 | 1
}

/**
 * The hot path: appends a batch of one session's rows with reused prepared statements, checks
 * the seq against the stored tail first (a stale writer fails loudly instead of leaving a gap,
 * docs/ARCHITECTURE.md 3.3), and updates the session's counters in the same transaction. The
 * search index is not written here: it catches up in a batch of its own after the commit
 * (SearchIndex.catchUp), and the session's activity time moves only in whole seconds
 * (ACTIVITY_RESOLUTION_MS), so a durable append writes the event's pages and the session's row.
 */
export class EventAppender {
  private readonly tailOf: Database.Statement<[string], Tail>
  private readonly insert: Database.Statement<EventParams>
  private readonly bump: Database.Statement<[number, number, number, string]>
  private readonly bumpWithActivity: Database.Statement<[number, number, number, number, string]>
  private readonly appendAtomically: Database.Transaction<
    (sessionId: string, rows: readonly EventRow[], counts: { messages: number; at: number }) => void
  >

  constructor(
    private readonly db: Database.Database,
    private readonly fault?: ArmedFault,
  ) {
    this.tailOf = db.prepare<[string], Tail>(
      `SELECT next_seq, updated_at,
         id = (SELECT id FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 1) AS is_latest
       FROM sessions WHERE id = ?`,
    )
    this.insert = db.prepare(
      'INSERT INTO events (session_id, seq, type, v, turn, step, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    // Two statements, not one with a CASE: SQLite rewrites the index of every column an UPDATE
    // names, even to the same value.
    this.bump = db.prepare(
      `UPDATE sessions SET own_event_count = own_event_count + ?, next_seq = ?,
         message_count = message_count + ? WHERE id = ?`,
    )
    this.bumpWithActivity = db.prepare(
      `UPDATE sessions SET own_event_count = own_event_count + ?, next_seq = ?,
         message_count = message_count + ?, updated_at = ? WHERE id = ?`,
    )
    // Inside the caller's write() this is a savepoint: if anything fails, none of the batch
    // stays, even when the caller catches the error and commits the rest of its transaction.
    // Called on its own (`commit`), it is the whole transaction.
    this.appendAtomically = db.transaction((sessionId, rows, counts) =>
      this.appendNow(sessionId, rows, counts),
    )
  }

  /** Appends inside the caller's open transaction, all or nothing; it commits with it. */
  append(
    sessionId: string,
    rows: readonly EventRow[],
    counts: { messages: number; at: number },
  ): void {
    if (!this.db.inTransaction) {
      throw new Error('appendEvents must be called inside store.write(): the batch commits with it')
    }
    if (rows.length === 0) return
    this.appendAtomically(sessionId, rows, counts)
  }

  /**
   * Appends and commits in a transaction of its own (BEGIN IMMEDIATE): the log's commit, which
   * is nothing but its batch, so it needs no savepoint inside (two statements fewer a commit).
   */
  commit(
    sessionId: string,
    rows: readonly EventRow[],
    counts: { messages: number; at: number },
  ): void {
    this.appendAtomically.immediate(sessionId, rows, counts)
  }

  private appendNow(
    sessionId: string,
    rows: readonly EventRow[],
    counts: { messages: number; at: number },
  ): void {
    this.fault?.beforeAppend(rows.map((row) => row.type))
    const tail = this.tailOf.get(sessionId)
    if (tail === undefined) throw noSuchSession(sessionId)
    const expected = tail.next_seq
    checkBatch(sessionId, rows, expected, counts)
    for (const row of rows) this.insert.run(...eventParams(row))
    const next = expected + rows.length
    if (movesActivity(tail, counts.at)) {
      this.bumpWithActivity.run(rows.length, next, counts.messages, counts.at, sessionId)
    } else this.bump.run(rows.length, next, counts.messages, sessionId)
  }
}

/**
 * Whether an append at `at` rewrites the session's activity time: when it is a second or more
 * away from the stored one, or when another session is ahead of this one in the list (so the
 * session being written to always comes first, as it would with exact times).
 */
function movesActivity(tail: Tail, at: number): boolean {
  return tail.is_latest === 0 || Math.abs(at - tail.updated_at) >= ACTIVITY_RESOLUTION_MS
}

/** Checks the whole batch before the first insert, so a refusal writes nothing at all. */
function checkBatch(
  sessionId: string,
  rows: readonly EventRow[],
  expected: number,
  counts: { messages: number; at: number },
): void {
  const invalid = (why: string) => new StoreError('INVALID_ROW', `session ${sessionId}: ${why}`)
  if (!isCount(counts.messages)) throw invalid(`counts.messages must be a non-negative integer`)
  if (!Number.isSafeInteger(counts.at)) throw invalid('counts.at must be an integer (epoch ms)')
  for (const [index, row] of rows.entries()) {
    const seq = expected + index
    if (row.seq !== seq) {
      throw new StoreError(
        'STALE_WRITER',
        index === 0
          ? `session ${sessionId}: the append starts at seq ${row.seq} but the stored history ends at ` +
              `${expected} (expected seq ${expected}); another writer appended, or this one is stale. Reopen the session.`
          : `session ${sessionId}: the batch is not contiguous: row ${index} has seq ${row.seq}, expected ${seq}`,
      )
    }
    if (row.sessionId !== sessionId)
      throw invalid(`row seq ${seq} belongs to session ${row.sessionId}`)
    if (typeof row.type !== 'string' || row.type.length === 0)
      throw invalid(`row seq ${seq} has no type`)
    if (typeof row.data !== 'string') throw invalid(`row seq ${seq}: data must be JSON text`)
    if (
      !isCount(row.v) ||
      !isCount(row.turn) ||
      !isCount(row.step) ||
      !Number.isSafeInteger(row.at)
    ) {
      throw invalid(`row seq ${seq}: v, turn, step and at must be integers`)
    }
  }
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0
}
