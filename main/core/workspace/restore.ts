import { realpathSync } from 'node:fs'
import type { EventData, LogEvent } from '../../../protocol/events.js'
import { rowToEvent } from '../log/rows.js'
import type { Session } from '../log/session.js'
import type { Store } from '../store/index.js'
import { FileHistory } from './file-history.js'
import type { FileState } from './file-history.js'
import {
  ABSENT,
  locate,
  readCurrent,
  RefusedPath,
  removeConfined,
  writeConfined,
} from './restore-disk.js'
import type { Current, ProtectedReason, RestoreFence } from './restore-disk.js'
import type { SnapshotStore } from './snapshot.js'

export { MAX_RESTORE_FILE_BYTES } from './restore-disk.js'
export type { ProtectedReason } from './restore-disk.js'

export type RestoreErrorCode =
  'TURN_RUNNING' | 'BAD_SEQ' | 'NOTHING_TO_UNDO' | 'TURN_AFTER_RESTORE' | 'RESTORE_WRITE_FAILED'

/** A restore that cannot start (or could not finish); the message says why in plain words. */
export class RestoreError extends Error {
  constructor(
    readonly code: RestoreErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'RestoreError'
  }
}

export interface RestoreOptions {
  /** The data folder's database: the drift check reads the other sessions of the project. */
  readonly store: Store
  readonly snapshots: SnapshotStore
  /** The session's project folder. */
  readonly projectDir: string
  /**
   * Why a path must never be written (`.git`, hooks, CI workflows, ...), or undefined: the tools'
   * `protectedPathReason`, passed in by the host and the CLI. Such paths are skipped, named.
   */
  readonly protectedReason: ProtectedReason
  /** Go ahead although files changed outside Bridle (they are listed in the event). */
  readonly force?: boolean
  /** Only say what would be done (drifted files included): nothing is touched or logged. */
  readonly dryRun?: boolean
}

export interface Skipped {
  readonly path: string
  readonly reason: string
}

export type RestoreOutcome =
  | {
      readonly ok: true
      /** The seq of the `workspace/restored` or `workspace/restore-undone` logged; none for a dry run. */
      readonly seq: number | undefined
      readonly written: readonly string[]
      readonly removed: readonly string[]
      readonly skipped: readonly Skipped[]
      /** Changed outside Bridle and overwritten anyway (`force`). */
      readonly drifted: readonly string[]
    }
  | {
      readonly ok: false
      /** Changed outside Bridle since the session last saw them: nothing was touched. */
      readonly drifted: readonly string[]
    }

/** One file the restore (or undo) changes. */
interface Change {
  readonly path: string
  readonly to: { readonly kind: 'file'; readonly hash: string } | { readonly kind: 'absent' }
  /** What is there now: guarded by hash, or no file. */
  readonly now: Current
}

/** A file the restore (or undo) would put in state `to`, and the state the session last saw. */
interface Wanted {
  readonly path: string
  readonly to: Change['to']
  readonly lastSeen: FileState
}

/**
 * Puts the project's files back to how they were right after event `toSeq` of the session's
 * history (docs/ARCHITECTURE.md 3.11). `session` must be open for writing, with no turn running.
 *
 * Only files some turn of the history changed are considered, and those other branches of the
 * conversation changed (at every point of this history they held what those branches first
 * found: a parent's later turns, seen from a fork, are undone). A path outside the project, a
 * protected one (`opts.protectedReason`), or one with a symbolic link anywhere on the way is
 * skipped and named, never followed (`restore-disk.ts`). First the drift check: a file the restore would change whose
 * content is neither what the session last saw nor what the latest turn or restore of any session
 * of the project left there was changed outside Bridle; then nothing is touched and the outcome
 * lists them (unless `force`). Otherwise every file to change is copied to the snapshot store
 * (the guard), `workspace/restored` is logged and flushed, and the files are written or removed.
 */
export async function restoreFiles(
  session: Session,
  toSeq: number,
  opts: RestoreOptions,
): Promise<RestoreOutcome> {
  refuseWhileRunning(session)
  if (!Number.isSafeInteger(toSeq) || toSeq < 0 || toSeq >= session.length) {
    throw new RestoreError(
      'BAD_SEQ',
      `seq ${toSeq} is not an event of session ${session.id} (its events are 0 to ${session.length - 1})`,
    )
  }
  const fence = fenceOf(opts)
  const history = FileHistory.of(session.slice(), (childId) => ownEvents(opts.store, childId))
  const skipped: Skipped[] = []
  const wanted: Wanted[] = []
  // Files other branches of the conversation changed held, at a point this history says
  // nothing of, what those branches first found there.
  const baselines = branchBaselines(opts.store, session.id)
  const ownPaths = new Set(history.paths())
  const paths = [...new Set([...ownPaths, ...baselines.keys()])].sort()
  for (const path of paths) {
    if (!isAllowed(fence, path, skipped)) continue
    const told = history.stateAt(path, toSeq)
    const to =
      told.kind === 'unknown' && !history.hasSeen(path, toSeq)
        ? (baselines.get(path) ?? told)
        : told
    if (to.kind === 'unknown') {
      skipped.push({ path, reason: to.reason })
      continue
    }
    if (to.kind === 'file' && !opts.snapshots.has(to.hash)) {
      skipped.push({ path, reason: `its copy ${to.hash} is missing from the data folder` })
      continue
    }
    const lastSeen = ownPaths.has(path) ? history.latest(path) : to
    wanted.push({ path, to, lastSeen })
  }
  const projectLatest = latestInProject(opts.store, opts.projectDir)
  return apply(session, opts, fence, skipped, wanted, projectLatest, (changes, drifted) => ({
    type: 'workspace/restored',
    data: {
      toSeq,
      written: writtenOf(changes),
      removed: removedOf(changes),
      skipped,
      drifted,
      guard: changes.map((change) =>
        change.now.kind === 'file'
          ? { path: change.path, hash: change.now.hash }
          : { path: change.path },
      ),
    },
  }))
}

/**
 * Undoes the session's last restore: puts back what its guard kept, after the same drift check
 * (against what the restore wrote). Refused when the last restore was undone already, or when a
 * turn ran after it (undoing would throw that turn's changes away too).
 */
export async function undoRestore(session: Session, opts: RestoreOptions): Promise<RestoreOutcome> {
  refuseWhileRunning(session)
  const events = session.slice()
  const restored = events.findLast((event) => event.type === 'workspace/restored')
  if (restored?.type !== 'workspace/restored') {
    throw new RestoreError('NOTHING_TO_UNDO', `session ${session.id} has no restore to undo`)
  }
  const later = events.slice(restored.seq + 1)
  if (later.some((event) => event.type === 'workspace/restore-undone')) {
    throw new RestoreError(
      'NOTHING_TO_UNDO',
      `the last restore of session ${session.id} (seq ${restored.seq}) was already undone; only the last restore can be undone`,
    )
  }
  const turn = later.find((event) => event.type === 'turn/start')
  if (turn) {
    throw new RestoreError(
      'TURN_AFTER_RESTORE',
      `turn ${turn.turn} ran after the restore at seq ${restored.seq}, so undoing it would also throw away that turn's changes; restore to a point instead (bridle restore ${session.id} SEQ)`,
    )
  }
  const fence = fenceOf(opts)
  const skipped: Skipped[] = []
  const written = new Map(restored.data.written.map(({ path, hash }) => [path, hash]))
  const wanted: Wanted[] = []
  for (const { path, hash } of restored.data.guard) {
    if (!isAllowed(fence, path, skipped)) continue
    if (hash !== undefined && !opts.snapshots.has(hash)) {
      skipped.push({ path, reason: `its copy ${hash} is missing from the data folder` })
      continue
    }
    const restoredHash = written.get(path)
    wanted.push({
      path,
      to: hash === undefined ? { kind: 'absent' } : { kind: 'file', hash },
      lastSeen:
        restoredHash === undefined ? { kind: 'absent' } : { kind: 'file', hash: restoredHash },
    })
  }
  return apply(session, opts, fence, skipped, wanted, new Map(), (changes, drifted) => ({
    type: 'workspace/restore-undone',
    data: {
      restoredSeq: restored.seq,
      written: writtenOf(changes),
      removed: removedOf(changes),
      skipped,
      drifted,
      cause: 'user',
    },
  }))
}

type Planned =
  | { type: 'workspace/restored'; data: EventData<'workspace/restored'> }
  | { type: 'workspace/restore-undone'; data: EventData<'workspace/restore-undone'> }

/** Drift check, guard, the event (durable first), then the files. */
async function apply(
  session: Session,
  opts: RestoreOptions,
  fence: RestoreFence,
  skipped: Skipped[],
  wanted: readonly Wanted[],
  projectLatest: ReadonlyMap<string, FileState>,
  eventOf: (changes: readonly Change[], drifted: string[]) => Planned,
): Promise<RestoreOutcome> {
  const changes: Change[] = []
  const drifted: string[] = []
  for (const { path, to, lastSeen } of wanted) {
    const now = currentOrSkip(fence, path, skipped)
    if (now === undefined || sameState(now, to)) continue
    if (!sameState(now, lastSeen) && !sameState(now, projectLatest.get(path))) drifted.push(path)
    changes.push({ path, to, now })
  }
  if (opts.dryRun === true)
    return { ok: true, seq: undefined, ...summaryOf(changes), skipped, drifted }
  if (drifted.length > 0 && opts.force !== true) return { ok: false, drifted }
  // The guard: what is there now, kept before anything changes.
  for (const change of changes) {
    if (change.now.kind === 'file') opts.snapshots.put(change.now.content)
  }
  const planned = eventOf(changes, drifted)
  const seq = session.length
  if (planned.type === 'workspace/restored') session.append(planned.type, planned.data)
  else session.append(planned.type, planned.data)
  // Intent before effect: the restore and its guard are on disk before any file changes.
  await session.flush()
  const done: Change[] = []
  for (const change of changes) {
    try {
      put(fence, change.path, change.to, change.now, opts.snapshots)
      done.push(change)
    } catch (error) {
      await putBack(session, seq, done, fence, opts.snapshots)
      throw new RestoreError(
        'RESTORE_WRITE_FAILED',
        `could not ${change.to.kind === 'absent' ? 'remove' : 'write'} ${change.path}: ${(error as Error).message}; the files already changed were put back`,
      )
    }
  }
  return { ok: true, seq, ...summaryOf(changes), skipped, drifted }
}

function summaryOf(changes: readonly Change[]): { written: string[]; removed: string[] } {
  return {
    written: changes.filter((c) => c.to.kind === 'file').map((c) => c.path),
    removed: changes.filter((c) => c.to.kind === 'absent').map((c) => c.path),
  }
}

/** After a failed write: the changed files get their guarded content back, logged as undone. */
async function putBack(
  session: Session,
  restoredSeq: number,
  done: readonly Change[],
  fence: RestoreFence,
  snapshots: SnapshotStore,
): Promise<void> {
  const back = done.map((change) => ({
    ...change,
    to: change.now.kind === 'file' ? { kind: 'file' as const, hash: change.now.hash } : ABSENT,
  }))
  session.append('workspace/restore-undone', {
    restoredSeq,
    written: writtenOf(back),
    removed: removedOf(back),
    skipped: [],
    drifted: [],
    cause: 'failed',
  })
  await session.flush()
  for (const change of back) {
    try {
      put(fence, change.path, change.to, undefined, snapshots)
    } catch {
      // Best effort: the error the caller throws names the file that failed first.
    }
  }
}

function writtenOf(changes: readonly Change[]): { path: string; hash: string }[] {
  return changes.flatMap((c) => (c.to.kind === 'file' ? [{ path: c.path, hash: c.to.hash }] : []))
}

function removedOf(changes: readonly Change[]): string[] {
  return changes.flatMap((c) => (c.to.kind === 'absent' ? [c.path] : []))
}

function refuseWhileRunning(session: Session): void {
  if (session.isTurnOpen) {
    throw new RestoreError(
      'TURN_RUNNING',
      `turn ${session.turn} of session ${session.id} is running; wait for it to end or stop it, then restore`,
    )
  }
}

function fenceOf(opts: RestoreOptions): RestoreFence {
  return { root: realpathSync(opts.projectDir), protectedReason: opts.protectedReason }
}

/** False (and why, in `skipped`) for a path outside the project. */
function isAllowed(fence: RestoreFence, path: string, skipped: Skipped[]): boolean {
  return skipIfRefused(path, skipped, () => locate(fence, path)) !== undefined
}

/** What `path` holds now, or undefined (and why, in `skipped`) when restore must not touch it. */
function currentOrSkip(fence: RestoreFence, path: string, skipped: Skipped[]): Current | undefined {
  return skipIfRefused(path, skipped, () => readCurrent(fence, path))
}

function skipIfRefused<T>(path: string, skipped: Skipped[], look: () => T): T | undefined {
  try {
    return look()
  } catch (error) {
    if (!(error instanceof RefusedPath)) throw error
    skipped.push({ path, reason: error.reason })
    return undefined
  }
}

function sameState(now: Current, state: FileState | undefined): boolean {
  if (state === undefined || state.kind === 'unknown') return false
  if (now.kind === 'absent') return state.kind === 'absent'
  return state.kind === 'file' && state.hash === now.hash
}

/**
 * Writes (atomically, keeping the mode of the file it replaces) or removes one file, confined:
 * never through a link, never a protected path (throws instead).
 */
function put(
  fence: RestoreFence,
  path: string,
  to: Change['to'],
  now: Current | undefined,
  snapshots: SnapshotStore,
): void {
  // Folders stay, emptied or not: the log records files, so undo could not bring one back.
  if (to.kind === 'absent') removeConfined(fence, path)
  else
    writeConfined(fence, path, snapshots.get(to.hash), now?.kind === 'file' ? now.mode : undefined)
}

/** A session's own events that say what it changed, or undefined when they cannot be read. */
function ownEvents(store: Store, sessionId: string): LogEvent[] | undefined {
  const types = ['turn/start', 'tool/result', 'subagent/started', 'workspace/diff']
  try {
    return store.readOwnEvents(sessionId, { types }).map((row) => rowToEvent(row, row.seq))
  } catch {
    return undefined
  }
}

/**
 * The files that other branches of the session's conversation (its tree: the root, its forks and
 * their forks, subagents included) changed in their own events, each with the content the
 * earliest such branch found before its first change: what the file held at the points of this
 * session's history that say nothing of it (it branched off before, or never saw the file).
 * A branch whose log cannot be read vouches for nothing and is left out.
 */
function branchBaselines(store: Store, sessionId: string): Map<string, FileState> {
  const rows = store.listTree({ includeDeleted: true })
  const byId = new Map(rows.map((row) => [row.id, row]))
  const rootOf = (id: string): string => {
    let current = byId.get(id)
    for (let hops = 0; current !== undefined && hops < rows.length; hops++) {
      const up = current.parentId ?? current.spawnedBy?.sessionId ?? null
      if (up === null || !byId.has(up)) return current.id
      current = byId.get(up)
    }
    return current?.id ?? id
  }
  const root = rootOf(sessionId)
  const earliest = new Map<string, { at: number; state: FileState }>()
  for (const row of rows) {
    if (row.id === sessionId || rootOf(row.id) !== root) continue
    const own = ownEvents(store, row.id)
    if (own === undefined) continue
    const history = FileHistory.of(own)
    const firstAt = new Map<string, number>()
    for (const event of own) {
      if (event.type !== 'workspace/diff') continue
      for (const entry of event.data.files)
        if (!firstAt.has(entry.path)) firstAt.set(entry.path, event.at)
    }
    for (const [path, at] of firstAt) {
      const seen = earliest.get(path)
      // Before the branch's first event: the content it found before it first changed the file.
      if (seen === undefined || at < seen.at)
        earliest.set(path, { at, state: history.stateAt(path, -1) })
    }
  }
  return new Map([...earliest].map(([path, { state }]) => [path, state]))
}

/**
 * What the latest turn or restore of any session of the project (by time) left in each file it
 * changed: content Bridle wrote there, so a file holding it did not change outside Bridle (a
 * parent's later turns, seen from a fork, are not drift).
 */
function latestInProject(store: Store, projectDir: string): Map<string, FileState> {
  const latest = new Map<string, { at: number; state: FileState }>()
  const note = (path: string, at: number, state: FileState) => {
    const seen = latest.get(path)
    if (seen === undefined || seen.at <= at) latest.set(path, { at, state })
  }
  const types = ['workspace/diff', 'workspace/restored', 'workspace/restore-undone']
  for (const row of store.listTree({ projectDir, includeDeleted: true })) {
    let events: LogEvent[]
    try {
      events = store
        .readOwnEvents(row.id, { types })
        .map((stored) => rowToEvent(stored, stored.seq))
    } catch {
      // Another session's log this Bridle cannot read (a newer one wrote it): it vouches for nothing.
      continue
    }
    for (const event of events) {
      if (event.type === 'workspace/diff') {
        for (const entry of event.data.files) {
          if (entry.status === 'deleted') note(entry.path, event.at, ABSENT)
          else if (entry.afterHash !== undefined)
            note(entry.path, event.at, { kind: 'file', hash: entry.afterHash })
        }
      } else if (event.type === 'workspace/restored' || event.type === 'workspace/restore-undone') {
        for (const { path, hash } of event.data.written)
          note(path, event.at, { kind: 'file', hash })
        for (const path of event.data.removed) note(path, event.at, ABSENT)
      }
    }
  }
  return new Map([...latest].map(([path, { state }]) => [path, state]))
}
