import type Database from 'better-sqlite3'
import type { ArmedFault } from './fault.js'
import { eventParams, NEXT_SEQ_OF_SESSION } from './rows.js'
import { noSuchSession } from './sessions.js'
import type { EventRow } from './types.js'
import { StoreError } from './types.js'

type EventParams = ReturnType<typeof eventParams>

/**
 * The hot path: appends a batch of one session's rows with reused prepared statements, and
 * checks the seq against the stored tail first (a stale writer fails loudly instead of leaving a
 * gap, docs/ARCHITECTURE.md 3.3). It writes the rows and nothing else: the search index and the
 * session's summary catch up in a batch of their own after the commit (catch-up.ts), and the
 * session's length is read from its rows, so a durable append writes the event's pages alone.
 */
export class EventAppender {
  private readonly tailOf: Database.Statement<[string], number>
  private readonly insert: Database.Statement<EventParams>
  private readonly appendAtomically: Database.Transaction<
    (sessionId: string, rows: readonly EventRow[]) => void
  >

  constructor(
    private readonly db: Database.Database,
    private readonly fault?: ArmedFault,
  ) {
    this.tailOf = db
      .prepare<[string], number>(`SELECT ${NEXT_SEQ_OF_SESSION} FROM sessions WHERE id = ?`)
      .pluck()
    this.insert = db.prepare(
      'INSERT INTO events (session_id, seq, type, v, turn, step, at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    // Inside the caller's write() this is a savepoint: if anything fails, none of the batch
    // stays, even when the caller catches the error and commits the rest of its transaction.
    // Called on its own (`commit`), it is the whole transaction.
    this.appendAtomically = db.transaction((sessionId, rows) => this.appendNow(sessionId, rows))
  }

  /** Appends inside the caller's open transaction, all or nothing; it commits with it. */
  append(sessionId: string, rows: readonly EventRow[]): void {
    if (!this.db.inTransaction) {
      throw new Error('appendEvents must be called inside store.write(): the batch commits with it')
    }
    if (rows.length === 0) return
    this.appendAtomically(sessionId, rows)
  }

  /**
   * Appends and commits in a transaction of its own (BEGIN IMMEDIATE): the log's commit, which
   * is nothing but its batch, so it needs no savepoint inside (two statements fewer a commit).
   */
  commit(sessionId: string, rows: readonly EventRow[]): void {
    this.appendAtomically.immediate(sessionId, rows)
  }

  private appendNow(sessionId: string, rows: readonly EventRow[]): void {
    this.fault?.beforeAppend(rows.map((row) => row.type))
    const expected = this.tailOf.get(sessionId)
    if (expected === undefined) throw noSuchSession(sessionId)
    checkBatch(sessionId, rows, expected)
    for (const row of rows) this.insert.run(...eventParams(row))
  }
}

/** Checks the whole batch before the first insert, so a refusal writes nothing at all. */
function checkBatch(sessionId: string, rows: readonly EventRow[], expected: number): void {
  const invalid = (why: string) => new StoreError('INVALID_ROW', `session ${sessionId}: ${why}`)
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
