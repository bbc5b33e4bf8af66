/**
 * Row <-> object mapping, in one place: column lists for SELECTs and the functions that turn
 * SQLite rows into the port's objects (SQLite NULL becomes null, never undefined).
 */
import type { EventRow, SearchHit, SessionRow } from './types.js'

/**
 * The next seq a session writes, from its rows: one seek to its largest seq in the events' key
 * (a fork without rows of its own continues at its fork point). Read, never stored, so that an
 * append does not rewrite the session's row and every connection sees the length committed.
 */
export const NEXT_SEQ_OF_SESSION =
  'coalesce((SELECT max(seq) + 1 FROM events WHERE events.session_id = sessions.id), sessions.fork_seq, 0)'

export const SESSION_COLUMNS = `id, parent_id, fork_seq, title, project_dir, created_at, updated_at,
  ${NEXT_SEQ_OF_SESSION} AS next_seq, message_count, derived_seq, deleted_at, spawned_by,
  spawned_by_call`

export interface SessionRecord {
  id: string
  parent_id: string | null
  fork_seq: number | null
  title: string | null
  project_dir: string
  created_at: number
  updated_at: number
  next_seq: number
  message_count: number
  derived_seq: number
  deleted_at: number | null
  spawned_by: string | null
  spawned_by_call: string | null
}

export function toSessionRow(record: SessionRecord): SessionRow {
  return {
    id: record.id,
    parentId: record.parent_id ?? null,
    forkSeq: record.fork_seq ?? null,
    title: record.title ?? null,
    projectDir: record.project_dir,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
    // A session's own rows run without a gap from its fork point (or 0) to its end.
    ownEventCount: record.next_seq - (record.fork_seq ?? 0),
    nextSeq: record.next_seq,
    messageCount: record.message_count,
    deletedAt: record.deleted_at ?? null,
    spawnedBy:
      record.spawned_by === null || record.spawned_by_call === null
        ? null
        : { sessionId: record.spawned_by, callId: record.spawned_by_call },
  }
}

/**
 * Columns aliased to the port's field names, so a row read back is already an `EventRow`: reading
 * a 100k-event history allocates one object per row, not two.
 */
export const EVENT_COLUMNS = 'session_id AS sessionId, seq, type, v, turn, step, at, data'

/** An events row as selected with EVENT_COLUMNS. */
export type EventRecord = EventRow

/** The positional parameters of the events INSERT, in EVENT_COLUMNS order. */
export function eventParams(
  row: EventRow,
): [string, number, string, number, number, number, number, string] {
  return [row.sessionId, row.seq, row.type, row.v, row.turn, row.step, row.at, row.data]
}

export interface SearchRecord {
  session_id: string
  seq: number
  type: string
  snippet: string | null
}

export function toSearchHit(record: SearchRecord): SearchHit {
  return {
    sessionId: record.session_id,
    seq: record.seq,
    type: record.type,
    snippet: record.snippet ?? '',
  }
}
