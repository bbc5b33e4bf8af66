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
  _ctx: HostContext,
  _settings: SettingsService,
): { service: RuntimeService; handlers: HandlerGroup<RuntimeMethods> } {
  return {
    service: {
      isRunning: () => false,
      pendingApprovals: () => [],
      contextWindow: () => undefined,
      close: () => Promise.resolve(),
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
