import { realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { EventData } from '../../../protocol/events.js'
import { readFileInsideSync } from './confined.js'
import { countLineChanges, countLines, isBinary } from './line-diff.js'
import type { SnapshotStore } from './snapshot.js'
import { formatUnifiedDiff } from './unified-diff.js'
import { compareTrees, DEFAULT_MAX_TREE_FILES, statTree } from './tree-stat.js'
import type { TreeStat } from './tree-stat.js'

export type WorkspaceDiffFile = EventData<'workspace/diff'>['files'][number]

/**
 * A file's content at the turn's end is kept (for its diff, and for restore) only up to this
 * size; restore refuses larger files (restore.ts).
 */
export const DEFAULT_AFTER_SNAPSHOT_MAX_BYTES = 64 * 1024 * 1024

/** Command content snapshots: files up to this size are read before a command runs... */
export const DEFAULT_COMMAND_SNAPSHOT_MAX_FILE_BYTES = 256 * 1024
/** ...as long as there are at most this many of them... */
export const DEFAULT_COMMAND_SNAPSHOT_MAX_FILES = 2_000
/** ...holding at most this many bytes together; otherwise none are read. */
export const DEFAULT_COMMAND_SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024

/** The files one call may record its content after: more are recorded as not kept. */
export const DEFAULT_CALL_SNAPSHOT_MAX_FILES = 1_000
/** The bytes one call may read to record its files; past this, the rest are not kept. */
export const DEFAULT_CALL_SNAPSHOT_MAX_BYTES = 128 * 1024 * 1024

/** What the files a call changed held right after it (`workspace/diff`'s `calls`). */
export type CallFiles = NonNullable<EventData<'workspace/diff'>['calls']>[number]

/** What a path was before the turn first touched it. `unknown`: a command changed it unseen. */
export type PriorState = { kind: 'file'; hash: string } | { kind: 'absent' } | { kind: 'unknown' }

export interface TurnChangesOptions {
  projectDir: string
  snapshots: SnapshotStore
  maxTreeFiles?: number
  commandSnapshotMaxFileBytes?: number
  commandSnapshotMaxFiles?: number
  commandSnapshotMaxBytes?: number
  /** See DEFAULT_AFTER_SNAPSHOT_MAX_BYTES. */
  afterSnapshotMaxBytes?: number
}

/** What `finish` could not count exactly, for the UI to say so. */
export interface TurnChangesNotes {
  /** Changed by a command with no snapshot of the prior content: counted as 0/0. */
  unknownBase: string[]
  /** Diffs too costly to minimise: counts are an upper bound. */
  approximate: string[]
  /** Could not be read at the turn's end (or its snapshot is gone): listed as modified 0/0. */
  unreadable: string[]
  /** Some command's tree stat hit the file cap, so changes past it may be missing. */
  isTreeTruncated: boolean
}

interface OpenCommand {
  tree: TreeStat
  startedAtMs: number
  /** Prior contents of the small files, or undefined when the tree was over the budget. */
  contents: Map<string, Buffer> | undefined
}

/**
 * The files one turn changed, for the `workspace/diff` event at its end. One per turn.
 *
 * Tools call `beforeWrite` before they write a file; `bash` brackets its command with
 * `beginCommand`/`endCommand`. The first record of a path wins: a path's prior state is what it
 * was before the turn first touched it, so later writes and commands never overwrite it. Prior
 * contents live in the snapshot store (the UI shows the diff from there), so this works without
 * git. At most one command may be open at a time (bash is an exclusive tool).
 */
export class TurnChanges {
  private readonly root: string
  private readonly snapshots: SnapshotStore
  private readonly priors = new Map<string, PriorState>()
  private command: OpenCommand | undefined
  private isTreeTruncated = false
  /** Paths written or changed by a command since the last call ended. */
  private readonly touched = new Set<string>()
  private readonly calls: CallFiles[] = []

  constructor(private readonly options: TurnChangesOptions) {
    this.root = realpathSync(options.projectDir)
    this.snapshots = options.snapshots
  }

  /**
   * Records the prior state of `absPath` (inside the project) the first time the turn sees it;
   * later calls for the same path do nothing. Synchronous: when it returns, the prior content is
   * in the snapshot store. Throws only if the snapshot cannot be stored or the file cannot be
   * read for a reason other than its absence; the caller should then not write.
   */
  beforeWrite(absPath: string): void {
    const rel = this.relativePath(absPath)
    this.touched.add(rel)
    if (this.priors.has(rel)) return
    const content = readIfFile(this.root, join(this.root, rel))
    this.priors.set(
      rel,
      content === undefined
        ? { kind: 'absent' }
        : { kind: 'file', hash: this.snapshots.put(content) },
    )
  }

  /**
   * Stats the project tree before a command runs, and reads the prior contents of small files
   * (see DEFAULT_COMMAND_SNAPSHOT_*) into memory; only the ones the command changes are stored.
   */
  beginCommand(): void {
    if (this.command) throw new Error('beginCommand: a command is already open in this turn')
    const startedAtMs = Date.now()
    const tree = statTree(this.root, this.options.maxTreeFiles ?? DEFAULT_MAX_TREE_FILES)
    this.isTreeTruncated ||= tree.isTruncated
    this.command = { tree, startedAtMs, contents: this.readSmallFiles(tree) }
  }

  /** Stats the tree again and records every path the command created, deleted or changed. */
  endCommand(): void {
    const command = this.command
    if (!command) throw new Error('endCommand: no command is open in this turn')
    this.command = undefined
    const after = statTree(this.root, this.options.maxTreeFiles ?? DEFAULT_MAX_TREE_FILES)
    this.isTreeTruncated ||= after.isTruncated
    const changes = compareTrees(this.root, command.tree, after, command.startedAtMs)
    for (const [rel, kind] of changes) {
      this.touched.add(rel)
      if (this.priors.has(rel)) continue
      if (kind === 'created') {
        this.priors.set(rel, { kind: 'absent' })
        continue
      }
      const prior = command.contents?.get(rel)
      this.priors.set(
        rel,
        prior === undefined
          ? { kind: 'unknown' }
          : { kind: 'file', hash: this.snapshots.put(prior) },
      )
    }
  }

  /**
   * A call ended: records what each file it wrote (or its command changed) holds now, each kept
   * in the snapshot store up to the after-snapshot size and the per-call budget
   * (DEFAULT_CALL_SNAPSHOT_*); nothing when it touched no file.
   */
  endCall(step: number, callId: string): void {
    if (this.touched.size === 0) return
    const paths = [...this.touched].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    this.touched.clear()
    const maxFile = this.options.afterSnapshotMaxBytes ?? DEFAULT_AFTER_SNAPSHOT_MAX_BYTES
    let budget = DEFAULT_CALL_SNAPSHOT_MAX_BYTES
    const files = paths.map((path, index): CallFiles['files'][number] => {
      let content: Buffer | undefined
      try {
        const size = statSync(join(this.root, path)).size
        if (index >= DEFAULT_CALL_SNAPSHOT_MAX_FILES || size > maxFile || size > budget)
          return { path }
        content = readIfFile(this.root, join(this.root, path))
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // Not there: no file. Unreadable: not kept (restore skips it at this point).
        if (code !== 'ENOENT' && code !== 'ENOTDIR') return { path }
      }
      if (content === undefined) return { path, isAbsent: true }
      budget -= content.length
      try {
        return { path, hash: this.snapshots.put(content) }
      } catch {
        // The data folder is full or unwritable: the call stands; its file counts as not kept.
        return { path }
      }
    })
    this.calls.push({ step, callId, files })
  }

  /** The calls' records (`endCall`) of the files in `files`: the turn's points inside it. */
  callsFor(files: readonly WorkspaceDiffFile[]): CallFiles[] {
    const listed = new Set(files.map((file) => file.path))
    return this.calls.flatMap((call) => {
      const kept = call.files.filter((file) => listed.has(file.path))
      return kept.length === 0 ? [] : [{ ...call, files: kept }]
    })
  }

  /** The prior state recorded for a project-relative path, if the turn touched it. */
  priorOf(path: string): PriorState | undefined {
    return this.priors.get(path)
  }

  /**
   * A unified diff of `path` (project-relative) from its prior state to its content now, for the
   * UI; '' when unchanged, undefined when the turn did not touch it or its prior content is unknown.
   */
  diffText(path: string): string | undefined {
    const prior = this.priors.get(path)
    if (!prior || prior.kind === 'unknown') return undefined
    const before = prior.kind === 'file' ? this.snapshots.get(prior.hash) : undefined
    return formatUnifiedDiff(path, before, readIfFile(this.root, join(this.root, path)))
  }

  /** The `workspace/diff` files: see `finishWithNotes`. */
  finish(): WorkspaceDiffFile[] {
    return this.finishWithNotes().files
  }

  /**
   * Every touched path whose content differs from its prior state, sorted by path (code units):
   * added (all lines are additions), deleted (all lines are deletions) or modified (a minimal
   * line diff). A file written back to its prior content is not listed; binary files are listed
   * with 0/0. Ends a command left open. Reads the files now; may be called more than once.
   */
  finishWithNotes(): { files: WorkspaceDiffFile[]; notes: TurnChangesNotes } {
    if (this.command) this.endCommand()
    const files: WorkspaceDiffFile[] = []
    const notes: TurnChangesNotes = {
      unknownBase: [],
      approximate: [],
      unreadable: [],
      isTreeTruncated: this.isTreeTruncated,
    }
    const paths = [...this.priors.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    for (const path of paths) {
      const prior = this.priors.get(path) ?? { kind: 'unknown' }
      try {
        const entry = this.entryFor(
          path,
          prior,
          readIfFile(this.root, join(this.root, path)),
          notes,
        )
        if (entry) files.push(entry)
      } catch {
        // Unreadable now (permissions) or its snapshot was removed: still a change the user
        // should see, but with no counts; the turn's end must not fail over it.
        notes.unreadable.push(path)
        files.push({ path, status: 'modified', additions: 0, deletions: 0 })
      }
    }
    return { files, notes }
  }

  private entryFor(
    path: string,
    prior: PriorState,
    current: Buffer | undefined,
    notes: TurnChangesNotes,
  ): WorkspaceDiffFile | undefined {
    switch (prior.kind) {
      case 'absent':
        if (current === undefined) return undefined
        return {
          path,
          status: 'added',
          additions: lineCount(current),
          deletions: 0,
          ...this.afterHash(current),
        }
      case 'unknown':
        notes.unknownBase.push(path)
        return {
          path,
          status: current === undefined ? 'deleted' : 'modified',
          additions: 0,
          deletions: 0,
          ...this.afterHash(current),
        }
      case 'file': {
        const before = this.snapshots.get(prior.hash)
        const beforeHash = prior.hash
        if (current === undefined) {
          return { path, status: 'deleted', additions: 0, deletions: lineCount(before), beforeHash }
        }
        if (before.equals(current)) return undefined
        if (isBinary(before) || isBinary(current)) {
          return {
            path,
            status: 'modified',
            additions: 0,
            deletions: 0,
            beforeHash,
            ...this.afterHash(current),
          }
        }
        const counts = countLineChanges(before, current)
        if (counts.isApproximate) notes.approximate.push(path)
        return {
          path,
          status: 'modified',
          additions: counts.additions,
          deletions: counts.deletions,
          beforeHash,
          ...this.afterHash(current),
        }
      }
    }
  }

  /**
   * Keeps the content at the turn's end in the snapshot store, so the turn's diff can be shown
   * exactly even after later turns change the file again; nothing for a missing or huge file.
   */
  private afterHash(current: Buffer | undefined): { afterHash?: string } {
    const max = this.options.afterSnapshotMaxBytes ?? DEFAULT_AFTER_SNAPSHOT_MAX_BYTES
    if (current === undefined || current.length > max) return {}
    return { afterHash: this.snapshots.put(current) }
  }

  private readSmallFiles(tree: TreeStat): Map<string, Buffer> | undefined {
    const maxFileBytes =
      this.options.commandSnapshotMaxFileBytes ?? DEFAULT_COMMAND_SNAPSHOT_MAX_FILE_BYTES
    const maxFiles = this.options.commandSnapshotMaxFiles ?? DEFAULT_COMMAND_SNAPSHOT_MAX_FILES
    const maxBytes = this.options.commandSnapshotMaxBytes ?? DEFAULT_COMMAND_SNAPSHOT_MAX_BYTES
    const wanted: string[] = []
    let bytes = 0
    for (const [rel, stat] of tree.files) {
      // Paths with a prior state already keep it; only small files are worth holding.
      if (this.priors.has(rel) || stat.size > maxFileBytes) continue
      wanted.push(rel)
      bytes += stat.size
      if (wanted.length > maxFiles || bytes > maxBytes) return undefined
    }
    const contents = new Map<string, Buffer>()
    for (const rel of wanted) {
      const content = readIfFile(this.root, join(this.root, rel))
      if (content !== undefined) contents.set(rel, content)
    }
    return contents
  }

  /** `absPath` relative to the project root with forward slashes, following symlinked folders. */
  private relativePath(absPath: string): string {
    let rel = relative(this.root, absPath)
    if (rel.startsWith('..') || rel === '') {
      try {
        rel = relative(this.root, join(realpathSync(dirname(absPath)), basename(absPath)))
      } catch {
        // The folder does not exist yet: keep the path as given.
      }
    }
    if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`)) {
      throw new Error(`beforeWrite: ${absPath} is not a file inside the project ${this.root}`)
    }
    return rel.split(sep).join('/')
  }
}

function lineCount(content: Buffer): number {
  return isBinary(content) ? 0 : countLines(content)
}

/**
 * The file's content, or undefined when there is no file there (missing, a folder, or a link that
 * leads out of the project: its target is never read, so no outside byte reaches a snapshot).
 */
function readIfFile(root: string, path: string): Buffer | undefined {
  return readFileInsideSync(root, path)
}
