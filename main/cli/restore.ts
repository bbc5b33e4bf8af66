import { join } from 'node:path'
import { repairOptions } from '../core/host/runtime/subagents.js'
import { Session } from '../core/log/index.js'
import type { Store } from '../core/store/index.js'
import { restoreFiles, undoRestore } from '../core/workspace/restore.js'
import type { RestoreOutcome } from '../core/workspace/restore.js'
import { SnapshotStore, SNAPSHOTS_DIR } from '../core/workspace/snapshot.js'

/**
 * `bridle restore <sessionId> <seq> [--force]` and `bridle restore <sessionId> --undo`: opens the
 * session for writing (repairing a crashed turn first; refused while another process runs it),
 * restores or undoes, and closes it. `toSeq` undefined means undo.
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
  const session = Session.open(store, sessionId, repairOptions(store))
  try {
    const row = store.getSession(sessionId)
    if (row === undefined) throw new Error(`there is no session ${sessionId}`)
    const restoreOptions = {
      store,
      snapshots: new SnapshotStore(join(opts.home, SNAPSHOTS_DIR)),
      projectDir: row.projectDir,
      force: opts.force,
      dryRun: opts.dryRun,
    }
    return opts.toSeq === undefined
      ? await undoRestore(session, restoreOptions)
      : await restoreFiles(session, opts.toSeq, restoreOptions)
  } finally {
    session.close()
  }
}
