import type { EventRow } from '../store/types.js'
import { LogError } from './errors.js'
import { EVENT_VERSION, eventData, isEventType } from '../../../protocol/events.js'
import type { LogEvent } from '../../../protocol/events.js'
import { deepFreeze } from './freeze.js'

/**
 * Turns a stored row back into a frozen event, checking everything: a known type, the version
 * this code writes, the data against its schema, and that the row sits at the seq the reader
 * expects. Any failure names the session and seq (never silently skipped: docs/ARCHITECTURE.md 3.3).
 */
export function rowToEvent(row: EventRow, expectedSeq: number): LogEvent {
  const where = `session ${row.sessionId} seq ${row.seq}`
  if (row.seq !== expectedSeq) {
    throw new LogError(
      'CORRUPT_LOG',
      `${where}: expected seq ${expectedSeq} (the log has a gap or is out of order)`,
    )
  }
  if (!isEventType(row.type)) {
    throw new LogError(
      'CORRUPT_LOG',
      `${where}: unknown event type "${row.type}" (written by a newer Bridle?)`,
    )
  }
  if (row.v !== EVENT_VERSION) {
    throw new LogError(
      'CORRUPT_LOG',
      `${where}: ${row.type} version ${row.v} is not readable by this Bridle (reads v${EVENT_VERSION})`,
    )
  }
  let raw: unknown
  try {
    raw = JSON.parse(row.data)
  } catch (error) {
    throw new LogError('CORRUPT_LOG', `${where}: data is not JSON`, { cause: error })
  }
  const parsed = eventData[row.type].safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new LogError(
      'CORRUPT_LOG',
      `${where}: ${row.type} data is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'unknown'}`,
    )
  }
  return deepFreeze({
    type: row.type,
    v: EVENT_VERSION,
    seq: row.seq,
    turn: row.turn,
    step: row.step,
    at: row.at,
    data: parsed.data,
  }) as LogEvent
}

/** The row for an event whose data was already serialised as `text`. */
export function eventToRow(sessionId: string, event: LogEvent, text: string): EventRow {
  return {
    sessionId,
    seq: event.seq,
    type: event.type,
    v: event.v,
    turn: event.turn,
    step: event.step,
    at: event.at,
    data: text,
  }
}
