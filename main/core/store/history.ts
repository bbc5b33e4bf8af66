import type Database from 'better-sqlite3'
import type { EventRecord } from './rows.js'
import { EVENT_COLUMNS } from './rows.js'
import type { EventQuery, EventRow, Segment, SessionRow } from './types.js'

/** Stands in for Infinity in bound parameters: seqs are safe integers. */
const NO_BOUND = Number.MAX_SAFE_INTEGER
const MAX_CACHED_STATEMENTS = 256
/**
 * Up to this many types, a type filter seeks them in the type index; past it the filter is
 * taken to keep most rows (the chat's "everything but chunks"), so the seq range is scanned in
 * order and a page stops after `limit` rows. Seeking thirty types in the index instead means
 * gathering and sorting every match to the end of the history for each page: a 200k-event
 * session took minutes to page through that way.
 */
const TYPE_INDEX_MAX_TYPES = 6
const usesTypeIndex = (types: readonly string[] | undefined): types is readonly string[] =>
  types !== undefined && types.length <= TYPE_INDEX_MAX_TYPES

/**
 * The segments of a session's history, oldest first, from its fork chain (the session itself
 * first, then its parent, up to the root). Walking up, each ancestor contributes the seqs from
 * its own fork point up to the lowest fork point seen so far; an ancestor that contributes
 * nothing (the child was forked below the ancestor's own fork point) is left out.
 */
export function segmentsOf(chain: readonly SessionRow[]): Segment[] {
  const segments: Segment[] = []
  let limit = Infinity
  for (const session of chain) {
    const from = session.forkSeq ?? 0
    if (from < limit || segments.length === 0) {
      segments.push({ sessionId: session.id, fromSeq: from, toSeq: limit })
    }
    limit = Math.min(limit, from)
  }
  return segments.reverse()
}

/**
 * Reads event rows with one indexed query per segment. Statements are prepared once per query
 * shape (which filters are present, how many types) and reused.
 */
export class EventReader {
  private readonly statements = new Map<string, Database.Statement>()
  private readonly lastOfType: Database.Statement<[string, string, number, number], number>

  constructor(private readonly db: Database.Database) {
    this.lastOfType = db
      .prepare<[string, string, number, number], number>(
        'SELECT seq FROM events WHERE session_id = ? AND type = ? AND seq >= ? AND seq < ? ORDER BY seq DESC LIMIT 1',
      )
      .pluck()
  }

  /** Rows of `segments` in order, filtered; stops as soon as `query.limit` rows were found. */
  read(segments: readonly Segment[], query: EventQuery): EventRow[] {
    checkQuery(query)
    if (query.types?.length === 0 || query.limit === 0) return []
    const rows: EventRow[] = []
    for (const segment of segments) {
      const from = Math.max(segment.fromSeq, query.fromSeq ?? 0)
      const to = Math.min(segment.toSeq, query.toSeq ?? Infinity)
      if (from >= to) continue
      const remaining = query.limit === undefined ? undefined : query.limit - rows.length
      const records = this.select(segment.sessionId, from, to, query, remaining)
      for (const record of records) rows.push(record)
      if (query.limit !== undefined && rows.length >= query.limit) break
    }
    return rows
  }

  /** How many rows of `segments` match the seq range and types: one index count per segment. */
  count(
    segments: readonly Segment[],
    query: Pick<EventQuery, 'fromSeq' | 'toSeq' | 'types'>,
  ): number {
    checkQuery(query)
    if (query.types?.length === 0) return 0
    let total = 0
    for (const segment of segments) {
      const from = Math.max(segment.fromSeq, query.fromSeq ?? 0)
      const to = Math.min(segment.toSeq, query.toSeq ?? Infinity)
      if (from >= to) continue
      const params: (string | number)[] = [segment.sessionId, from, bound(to)]
      let sql = 'SELECT count(*) FROM events WHERE session_id = ? AND seq >= ? AND seq < ?'
      if (query.types !== undefined) {
        const source = usesTypeIndex(query.types) ? 'events INDEXED BY events_by_type' : 'events'
        sql = `SELECT count(*) FROM ${source} WHERE session_id = ? AND seq >= ? AND seq < ? AND type IN (${query.types.map(() => '?').join(', ')})`
        params.push(...query.types)
      }
      const counter = this.statement(sql).pluck()
      total += counter.get(...params) as number
    }
    return total
  }

  /** The newest seq of `type` in [from, to) of one session's own rows: one index seek. */
  lastSeqOfType(sessionId: string, type: string, from: number, to: number): number | undefined {
    return this.lastOfType.get(sessionId, type, from, bound(to))
  }

  private select(
    sessionId: string,
    from: number,
    to: number,
    query: EventQuery,
    limit: number | undefined,
  ): EventRecord[] {
    const params: (string | number)[] = [sessionId, from, bound(to)]
    // A few types are usually sparse ones (messages, checkpoints) in a long log: seek them in the
    // type index rather than scanning the seq range, which the planner would pick without
    // statistics. Many types keep most rows: scan (see TYPE_INDEX_MAX_TYPES).
    const source = usesTypeIndex(query.types) ? 'events INDEXED BY events_by_type' : 'events'
    let sql = `SELECT ${EVENT_COLUMNS} FROM ${source} WHERE session_id = ? AND seq >= ? AND seq < ?`
    if (query.types !== undefined) {
      sql += ` AND type IN (${query.types.map(() => '?').join(', ')})`
      params.push(...query.types)
    }
    if (query.turn !== undefined) {
      sql += ' AND turn = ?'
      params.push(query.turn)
    }
    if (query.step !== undefined) {
      sql += ' AND step = ?'
      params.push(query.step)
    }
    sql += ' ORDER BY seq'
    if (limit !== undefined) {
      sql += ' LIMIT ?'
      params.push(limit)
    }
    return this.statement(sql).all(...params) as EventRecord[]
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (statement === undefined) {
      // Shapes are few (flags times the number of types asked for); the cap only guards a caller
      // that builds type lists without bound.
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear()
      statement = this.db.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }
}

function bound(seq: number): number {
  return seq === Infinity ? NO_BOUND : seq
}

/** A bad query is a caller's bug: fail loudly instead of reading a surprising range. */
function checkQuery(query: EventQuery): void {
  for (const key of ['fromSeq', 'toSeq', 'turn', 'step', 'limit'] as const) {
    const value = query[key]
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`EventQuery.${key} must be a non-negative integer, got ${String(value)}`)
    }
  }
}
