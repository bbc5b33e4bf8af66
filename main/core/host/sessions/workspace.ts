import type { FileChange, ResultOf } from '../../../../protocol/contract.js'
import type { EventData } from '../../../../protocol/events.js'
import { rowToEvent } from '../../log/rows.js'
import type { SessionRow, Store } from '../../store/index.js'
import { isBinary } from '../../workspace/line-diff.js'
import type { SnapshotStore } from '../../workspace/snapshot.js'
import { formatUnifiedDiff } from '../../workspace/unified-diff.js'
import { HostError } from '../host.js'

export { SNAPSHOTS_DIR } from '../../workspace/snapshot.js'
/** Files larger than this get no patch (the counts still show). */
export const MAX_PATCH_BYTES = 1024 * 1024

type DiffFile = EventData<'workspace/diff'>['files'][number]

/** A file's content for a patch: bytes (undefined: no file), or why there are none. */
type Content =
  | { readonly kind: 'known'; readonly bytes: Buffer | undefined }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'too-large' }

const UNKNOWN: Content = { kind: 'unknown' }
const ABSENT: Content = { kind: 'known', bytes: undefined }

export interface WorkspaceDiffDeps {
  readonly store: Store
  readonly snapshots: SnapshotStore
}

/**
 * The files a turn changed (its `workspace/diff` event) with a unified diff each, from the
 * snapshot hashes the event records for each file's content before and after the turn: exact
 * even after later turns changed the files again, and without git. A side with no hash is no
 * file (added: before; deleted: after) or unknown (changed unseen by a command, too large to
 * keep, or an event logged before hashes were recorded): no patch, the counts still show.
 * Binary files and files over MAX_PATCH_BYTES get no patch. NOT_FOUND when the turn logged no
 * workspace/diff.
 */
export function workspaceDiff(
  deps: WorkspaceDiffDeps,
  session: SessionRow,
  turn: number,
): ResultOf<'workspace/diff'> {
  const [row] = deps.store.readEvents(session.id, { types: ['workspace/diff'], turn, limit: 1 })
  const event = row === undefined ? undefined : rowToEvent(row, row.seq)
  if (event?.type !== 'workspace/diff') {
    throw new HostError(
      'NOT_FOUND',
      `turn ${turn} of session ${session.id} has no workspace/diff (it changed no files, or never ran)`,
    )
  }
  return { turn, files: event.data.files.map((file) => withPatch(deps.snapshots, file)) }
}

/** One file of a `workspace/diff` event with its patch from the snapshots (see `workspaceDiff`). */
export function withPatch(snapshots: SnapshotStore, file: DiffFile): FileChange {
  const change: FileChange = {
    path: file.path,
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
  }
  const before = side(snapshots, file.beforeHash, file.status === 'added')
  const after = side(snapshots, file.afterHash, file.status === 'deleted')
  if (before.kind !== 'known' || after.kind !== 'known') return change
  if ((before.bytes && isBinary(before.bytes)) || (after.bytes && isBinary(after.bytes))) {
    return { ...change, isBinary: true }
  }
  const patch = formatUnifiedDiff(file.path, before.bytes, after.bytes)
  return patch === '' ? change : { ...change, patch }
}

/** One side of a file's change: its snapshot, no file (`isAbsent`), or unknown. */
function side(snapshots: SnapshotStore, hash: string | undefined, isAbsent: boolean): Content {
  if (hash === undefined) return isAbsent ? ABSENT : UNKNOWN
  let bytes: Buffer
  try {
    bytes = snapshots.get(hash)
  } catch {
    // The blob was removed by hand (snapshots are never collected): no patch, counts still shown.
    return UNKNOWN
  }
  return bytes.length > MAX_PATCH_BYTES ? { kind: 'too-large' } : { kind: 'known', bytes }
}
