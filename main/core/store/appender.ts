import type Database from 'better-sqlite3'
import { eventParams } from './rows.js'
import { noSuchSession } from './sessions.js'
import type { EventRow } from './types.js'
import { StoreError } from './types.js'

type EventParams = ReturnType<typeof eventParams>

/**
 * The hot path: appends a batch of one session's rows with reused prepared statements, checks
 * the seq against the stored tail first (a stale writer fails loudly instead of leaving a gap,
 * docs/ARCHITECTURE.md 3.3), and updates the session's counters in the same transaction. The
 * search index is not written here: it catches up in a batch of its own after the commit
 * (SearchIndex.catchUp), so a durable append writes only the event's own pages.
 */
export class EventAppender {
  private readonly nextSeqOf: Database.Statement<[string], number>
  private readonly insert: Database.Statement<EventParams>
  private readonly bump: Database.Statement<[number, number, number, number, string]>
  private readonly appendAtomically: Database.Transaction<
    (sessionId: string, rows: readonly EventRow[], counts: { messages: number; at: number }) => void
  >

  constructor(private readonly db: Database.Database) {
    this.nextSeqOf = db
      .prepare<[string], number>('SELECT next_seq FROM sessions WHERE id = ?')
      .pluck()
    this.insert = db.prepare(
      'INSERT INTO events (session_id, seq, type, v, turn, step, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    this.bump = db.prepare(
      `UPDATE sessions SET own_event_count = own_event_count + ?, next_seq = ?,
         message_count = message_count + ?, updated_at = ? WHERE id = ?`,
    )
    // A savepoint inside the caller's write(): if anything fails, none of the batch stays, even
    // when the caller catches the error and commits the rest of its transaction.
    this.appendAtomically = db.transaction((sessionId, rows, counts) =>
      this.appendNow(sessionId, rows, counts),
    )
  }

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

  private appendNow(
    sessionId: string,
    rows: readonly EventRow[],
    counts: { messages: number; at: number },
  ): void {
    const expected = this.nextSeqOf.get(sessionId)
    if (expected === undefined) throw noSuchSession(sessionId)
    checkBatch(sessionId, rows, expected, counts)
    for (const row of rows) this.insert.run(...eventParams(row))
    this.bump.run(rows.length, expected + rows.length, counts.messages, counts.at, sessionId)
  }
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
