import type { Session } from '../log/session.js'
import type { SnapshotStore } from './snapshot.js'
import { TurnChanges } from './turn-changes.js'

/**
 * Joins the tool pipeline's workspace hooks to the loop's turns: a fresh `TurnChanges` at each
 * turn start, fed by the tools' `beforeWrite` and by commands, and at turn end one
 * `workspace/diff` event listing what the turn changed (nothing when it changed nothing).
 *
 * It fits the pipeline's `WorkspaceHooks` by shape: the workspace sits below the tools in the
 * layer order, so it does not import their types; the host, which hands one to the other, is
 * where the compiler checks the fit.
 */
export class TurnWorkspace {
  private changes: TurnChanges | undefined

  constructor(
    private readonly projectDir: string,
    private readonly snapshots: SnapshotStore,
  ) {}

  /** For `AgentOptions.turnHooks`. */
  readonly turnHooks = {
    start: (): void => {
      this.changes = new TurnChanges({ projectDir: this.projectDir, snapshots: this.snapshots })
    },
    end: (_turn: number, session: Session): void => {
      const changes = this.changes
      this.changes = undefined
      const files = changes?.finish() ?? []
      const calls = changes?.callsFor(files) ?? []
      if (files.length > 0)
        session.append('workspace/diff', { files, ...(calls.length > 0 ? { calls } : {}) })
    },
  }

  beforeWrite(absolutePath: string): void {
    this.changes?.beforeWrite(absolutePath)
  }

  beginCommand(): void {
    this.changes?.beginCommand()
  }

  endCommand(): void {
    this.changes?.endCommand()
  }

  afterCall(step: number, callId: string): void {
    this.changes?.endCall(step, callId)
  }
}
