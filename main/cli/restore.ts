import { join } from 'node:path'
import { repairOptions } from '../core/host/runtime/subagents.js'
import { Session } from '../core/log/index.js'
import type { Store } from '../core/store/index.js'
import { protectedPathReason } from '../core/tools/protected-paths.js'
import { restoreFiles, undoRestore } from '../core/workspace/restore.js'
import type { RestoreOutcome } from '../core/workspace/restore.js'
import { SnapshotStore, SNAPSHOTS_DIR } from '../core/workspace/snapshot.js'

/**
 * `bridle restore <sessionId> <seq> [--force]` and `bridle restore <sessionId> --undo`: opens the
 * session for writing (repairing a crashed turn first; refused while another process runs it),
 * restores or undoes, and closes it. `toSeq` undefined means undo. `--dry-run` only reads the
 * session (`openForDryRun`): it never repairs, so it never signals a process.
 */
export async function restoreCommand(opts: {
  readonly store: Store
  readonly home: string
  readonly sessionId: string
  readonly toSeq: number | undefined
  readonly force: boolean
  readonly dryRun: boolean
}): Promise<RestoreOutcome> {
  const { store, sessionId } = opts
  const { session, close } = opts.dryRun
    ? openForDryRun(store, sessionId)
    : { session: Session.open(store, sessionId, repairOptions(store)), close: undefined }
  try {
    const row = store.getSession(sessionId)
    if (row === undefined) throw new Error(`there is no session ${sessionId}`)
    const restoreOptions = {
      store,
      snapshots: new SnapshotStore(join(opts.home, SNAPSHOTS_DIR)),
      projectDir: row.projectDir,
      protectedReason: protectedPathReason,
      force: opts.force,
      dryRun: opts.dryRun,
    }
    return opts.toSeq === undefined
      ? await undoRestore(session, restoreOptions)
      : await restoreFiles(session, opts.toSeq, restoreOptions)
  } finally {
    if (close === undefined) session.close()
    else close()
  }
}

/**
 * A dry run only looks: the session is opened to read, never repaired (repair appends to the log
 * and ends commands a crash left running). Its writer lock is held meanwhile, so no turn runs
 * elsewhere; a turn still open was left so by a crash, and is refused in words that say so.
 */
function openForDryRun(store: Store, sessionId: string): { session: Session; close: () => void } {
  const release = store.lockSession(sessionId)
  let session: Session
  try {
    session = Session.open(store, sessionId, { mode: 'read' })
  } catch (error) {
    release()
    throw error
  }
  const close = () => {
    try {
      session.close()
    } finally {
      release()
    }
  }
  if (session.isTurnOpen) {
    close()
    throw new Error(
      `session ${sessionId} was left open by a crash (turn ${session.turn} never ended). ` +
        'A dry run does not repair it; restore without --dry-run, or continue the session, to repair it first.',
    )
  }
  return { session, close }
}
