import { join } from 'node:path'
import type { RestoreOutcome } from '../../../../protocol/contract.js'
import type { Session } from '../../log/index.js'
import type { Store } from '../../store/index.js'
import { protectedPathReason } from '../../tools/protected-paths.js'
import { restoreFiles, RestoreError, undoRestore } from '../../workspace/restore.js'
import type { RestoreErrorCode } from '../../workspace/restore.js'
import { SnapshotStore, SNAPSHOTS_DIR } from '../../workspace/snapshot.js'
import { HostError } from '../host.js'
import type { ErrorCode } from '../../../../protocol/contract.js'

/** How each refusal of the workspace's restore reaches the bridge. */
const CODES: Record<RestoreErrorCode, ErrorCode> = {
  TURN_RUNNING: 'CONFLICT',
  TURN_AFTER_RESTORE: 'CONFLICT',
  BAD_SEQ: 'NOT_FOUND',
  NOTHING_TO_UNDO: 'NOT_FOUND',
  RESTORE_WRITE_FAILED: 'INTERNAL',
}

/**
 * `workspace/restore` (`toSeq` given) and `workspace/undoRestore` on the runtime's writable
 * session, which the caller holds idle for the duration; the outcome in the contract's words.
 */
export async function restoreOnBridge(
  deps: { readonly store: Store; readonly home: string },
  session: Session,
  params: { readonly toSeq?: number; readonly force?: boolean; readonly dryRun?: boolean },
): Promise<RestoreOutcome> {
  const row = deps.store.getSession(session.id)
  if (row === undefined) throw new HostError('NOT_FOUND', `there is no session ${session.id}`)
  const options = {
    store: deps.store,
    snapshots: new SnapshotStore(join(deps.home, SNAPSHOTS_DIR)),
    projectDir: row.projectDir,
    protectedReason: protectedPathReason,
    force: params.force === true,
    dryRun: params.dryRun === true,
  }
  try {
    const outcome =
      params.toSeq === undefined
        ? await undoRestore(session, options)
        : await restoreFiles(session, params.toSeq, options)
    if (!outcome.ok) return { status: 'drifted', drifted: [...outcome.drifted] }
    const files = {
      written: [...outcome.written],
      removed: [...outcome.removed],
      skipped: outcome.skipped.map(({ path, reason }) => ({ path, reason })),
      drifted: [...outcome.drifted],
    }
    return outcome.seq === undefined
      ? { status: 'planned', ...files }
      : { status: 'restored', seq: outcome.seq, ...files }
  } catch (error) {
    if (error instanceof RestoreError) throw new HostError(CODES[error.code], error.message)
    throw error
  }
}
