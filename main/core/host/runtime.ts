import { Session } from '../log/index.js'
import { HostError } from './host.js'
import type {
  HandlerGroup,
  HostContext,
  RuntimeMethods,
  RuntimeService,
  SettingsService,
} from './services.js'

const notYet = (method: string) => (): never => {
  throw new HostError('UNSUPPORTED', `${method} is not built yet`)
}

/** The agents of open sessions, their approvals and compaction (stub: to be built). */
export function createRuntime(
  ctx: HostContext,
  _settings: SettingsService,
): { service: RuntimeService; handlers: HandlerGroup<RuntimeMethods> } {
  const open = new Map<string, Session>()
  return {
    service: {
      session(sessionId) {
        let session = open.get(sessionId)
        if (!session) {
          if (!ctx.store.getSession(sessionId))
            throw new HostError('NOT_FOUND', `no session ${sessionId}`)
          session = Session.open(ctx.store, sessionId)
          open.set(sessionId, session)
        }
        return session
      },
      isRunning: () => false,
      pendingApprovals: () => [],
      contextWindow: () => undefined,
      close() {
        for (const session of open.values()) session.close()
        open.clear()
        return Promise.resolve()
      },
    },
    handlers: {
      'turn/send': notYet('turn/send'),
      'turn/cancel': notYet('turn/cancel'),
      'approval/respond': notYet('approval/respond'),
      'compaction/run': notYet('compaction/run'),
      'compaction/undo': notYet('compaction/undo'),
    },
  }
}
