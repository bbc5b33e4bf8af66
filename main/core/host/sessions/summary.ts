import type { SessionSummary } from '../../../../protocol/contract.js'
import { countsAsMessage } from '../../log/index.js'
import type { SessionRow, Store } from '../../store/index.js'
import { HostError } from '../host.js'

/**
 * Turns store rows into the bridge's SessionSummary. What it adds is read cheaply and cached,
 * because a history's prefix never changes: the model (from `session/created` at seq 0, one
 * row) and, for a fork, the messages it inherits (one index count per ancestor). So a listing
 * costs a few indexed reads per session the first time and none after.
 */
export class SessionSummaries {
  private readonly models = new Map<string, string | null>()
  private readonly inherited = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly isRunning: (sessionId: string) => boolean,
  ) {}

  /** The stored row, or NOT_FOUND. */
  row(sessionId: string): SessionRow {
    const row = this.store.getSession(sessionId)
    if (!row) throw new HostError('NOT_FOUND', `there is no session ${sessionId}`)
    return row
  }

  /** The summary of a session by id, or NOT_FOUND. */
  get(sessionId: string): SessionSummary {
    return this.of(this.row(sessionId))
  }

  of(row: SessionRow): SessionSummary {
    return {
      id: row.id,
      parentId: row.parentId,
      forkSeq: row.forkSeq,
      title: row.title,
      projectDir: row.projectDir,
      model: this.modelOf(row.id),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      messageCount: row.messageCount + this.inheritedMessages(row),
      eventCount: row.nextSeq,
      deletedAt: row.deletedAt,
      isRunning: this.isRunning(row.id),
      spawnedBy: row.spawnedBy,
    }
  }

  /**
   * Whether the session's last `session/code-mode` switch, over its whole history (a fork's
   * inherited prefix too), turned code mode on: one seek in the type index and one row read.
   */
  codeMode(sessionId: string): boolean {
    const seq = this.store.lastSeqOfType(sessionId, 'session/code-mode', Number.MAX_SAFE_INTEGER)
    if (seq === undefined) return false
    const [event] = this.store.readEvents(sessionId, { fromSeq: seq, toSeq: seq + 1 })
    const data = event === undefined ? undefined : parsedData(event.data)
    return typeof data === 'object' && data !== null && 'on' in data && data.on === true
  }

  /** The model a `session/model` switch just logged (the cache would keep the old one). */
  setModel(sessionId: string, model: string): void {
    this.models.set(sessionId, model)
  }

  /**
   * The session's last own `session/model` switch, else `session/created`'s model (a fork reads
   * its root's), or null when none was recorded.
   */
  private modelOf(sessionId: string): string | null {
    const cached = this.models.get(sessionId)
    if (cached !== undefined) return cached
    const switched = this.store.lastSeqOfType(sessionId, 'session/model', Number.MAX_SAFE_INTEGER)
    if (switched !== undefined) {
      const [event] = this.store.readEvents(sessionId, { fromSeq: switched, toSeq: switched + 1 })
      const model = event === undefined ? null : modelIn(event.data)
      if (model !== null) {
        this.models.set(sessionId, model)
        return model
      }
    }
    const [first] = this.store.readEvents(sessionId, { fromSeq: 0, toSeq: 1 })
    // A session whose first event is not committed yet (or is not `session/created`) has no
    // model to show; not cached, so the next read finds it.
    if (first?.type !== 'session/created') return null
    const model = modelIn(first.data)
    this.models.set(sessionId, model)
    return model
  }

  /** Messages in the fork's inherited prefix; 0 for a root session. */
  private inheritedMessages(row: SessionRow): number {
    if (row.parentId === null || row.forkSeq === null) return 0
    const cached = this.inherited.get(row.id)
    if (cached !== undefined) return cached
    // Answers by the index; the user's messages read, to leave the harness's context out.
    const answers = this.store.countEvents(row.parentId, {
      toSeq: row.forkSeq,
      types: ['assistant/message'],
    })
    const inputs = this.store
      .readEvents(row.parentId, { toSeq: row.forkSeq, types: ['user/message'] })
      .filter((event) => countsAsMessage(event.type, parsedData(event.data))).length
    const count = answers + inputs
    this.inherited.set(row.id, count)
    return count
  }
}

function parsedData(data: string): unknown {
  try {
    return JSON.parse(data) as unknown
  } catch {
    return undefined
  }
}

function modelIn(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as unknown
    if (typeof parsed === 'object' && parsed !== null && 'model' in parsed) {
      return typeof parsed.model === 'string' ? parsed.model : null
    }
  } catch {
    // A row that does not parse is reported by whoever opens the session; a listing shows no model.
  }
  return null
}
