import { randomUUID } from 'node:crypto'
import type { EventRow, Store } from '../store/types.js'
import { StoreError } from '../store/types.js'
import { buildEvent } from './build.js'
import { LogError } from './errors.js'
import type { EventDataInput, EventType, LogEvent, SessionId } from '../../../protocol/events.js'
import { Lifecycle } from './lifecycle.js'
import { eventToRow, rowToEvent } from './rows.js'

export interface ForkOptions {
  readonly id?: string
  readonly clock?: () => number
  readonly title?: string
  /** A subagent seeded with its parent's history: the session and `task` call that started it. */
  readonly spawnedBy?: { readonly sessionId: string; readonly callId: string }
}

/**
 * Forks a session at `atSeq`: the child's history is the parent's events `0..atSeq-1`, then its
 * own from `atSeq`. Copy-on-write: the child stores a reference, not a copy, so the cost does
 * not grow with the parent's size; only the turn open at the fork point (if any) is read, to
 * close it in the child with synthetic events (the same rules as crash repair, cause `fork`).
 */
export function forkSession(
  store: Store,
  parentId: string,
  atSeq: number,
  opts: ForkOptions = {},
): SessionId {
  const parent = store.getSession(parentId)
  if (!parent) throw new StoreError('NO_SUCH_SESSION', `there is no session ${parentId}`)
  if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > parent.nextSeq) {
    throw new LogError(
      'INVALID_FORK',
      `a fork of ${parentId} must be at a seq from 1 to ${parent.nextSeq}, not ${atSeq}`,
    )
  }
  const id = (opts.id ?? randomUUID()) as SessionId
  const at = (opts.clock ?? Date.now)()
  const rows = closingRows(store, parentId, id, atSeq, at)
  store.write(() => {
    store.createSession({
      id,
      parentId,
      forkSeq: atSeq,
      projectDir: parent.projectDir,
      // Its own title comes from its own first message (host/runtime/titles.ts), not the parent's.
      title: opts.title ?? null,
      createdAt: at,
      ...(opts.spawnedBy === undefined ? {} : { spawnedBy: opts.spawnedBy }),
    })
    if (rows.length > 0) store.appendEvents(id, rows)
  })
  return id
}

/** The child's first rows: what closes the turn that `atSeq` cuts, plus `recovery/repaired`. */
function closingRows(
  store: Store,
  parentId: string,
  childId: string,
  atSeq: number,
  at: number,
): EventRow[] {
  const turnStart = store.lastSeqOfType(parentId, 'turn/start', atSeq)
  if (turnStart === undefined) return []
  const turnEnd = store.lastSeqOfType(parentId, 'turn/end', atSeq)
  if (turnEnd !== undefined && turnEnd > turnStart) return []

  const lifecycle = new Lifecycle()
  const open = store.readEvents(parentId, { fromSeq: turnStart, toSeq: atSeq })
  open.forEach((row, i) => lifecycle.apply(rowToEvent(row, turnStart + i)))
  const closes = lifecycle.closes('fork')
  if (closes.length === 0) return []

  const rows: EventRow[] = []
  const items: { seq: number; what: string }[] = []
  const add = <T extends EventType>(type: T, data: EventDataInput<T>) => {
    const built = buildEvent(lifecycle, atSeq + rows.length, type, data, at)
    const event = built.event as LogEvent
    lifecycle.apply(event)
    rows.push(eventToRow(childId, event, built.text))
    return event.seq
  }
  for (const close of closes) items.push({ seq: add(close.type, close.data), what: close.what })
  add('recovery/repaired', { cause: 'fork', items })
  return rows
}
