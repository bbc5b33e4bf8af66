/**
 * Row <-> object mapping, in one place: column lists for SELECTs and the functions that turn
 * SQLite rows into the port's objects (SQLite NULL becomes null, never undefined).
 */
import type { EventRow, SearchHit, SessionRow } from './types.js'

export const SESSION_COLUMNS =
  'id, parent_id, fork_seq, title, project_dir, created_at, updated_at, own_event_count, next_seq, message_count, deleted_at, spawned_by, spawned_by_call'

export interface SessionRecord {
  id: string
  parent_id: string | null
  fork_seq: number | null
  title: string | null
  project_dir: string
  created_at: number
  updated_at: number
  own_event_count: number
  next_seq: number
  message_count: number
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
    ownEventCount: record.own_event_count,
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
