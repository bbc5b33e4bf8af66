/**
 * What happens to input when a session's agent cannot be built (no endpoint configured, the
 * model unknown, the endpoint unreachable while resolving it): the input is logged anyway and
 * the turn it would have started ends at once with an `error` that says what to configure.
 */
import type { ErrorCode } from '../../../../protocol/contract.js'
import type { Session } from '../../log/index.js'
import { HostError } from '../host.js'
import { PluginLoadError } from './agent-setup.js'

/** The session's agent could not be built. A HostError, so callers of `compaction/run` see it. */
export class AgentUnavailable extends HostError {
  constructor(
    code: ErrorCode,
    /** The code of the `error` event logged for a turn that could not start. */
    readonly logCode: 'MODEL_UNAVAILABLE' | 'AGENT_SETUP_FAILED',
    message: string,
  ) {
    super(code, message)
    this.name = 'AgentUnavailable'
  }

  /** Settings could not name a model: its message says what to configure. */
  static unresolved(error: unknown): AgentUnavailable {
    const code = error instanceof HostError ? error.code : 'ENDPOINT_FAILED'
    return new AgentUnavailable(code, 'MODEL_UNAVAILABLE', messageOf(error))
  }

  /** Anything else (an unreadable project folder, a bad config.json, a plugin that fails). */
  static setupFailed(error: unknown): AgentUnavailable {
    return new AgentUnavailable(
      error instanceof PluginLoadError ? 'PLUGIN_FAILED' : 'INTERNAL',
      'AGENT_SETUP_FAILED',
      `the session's agent could not be set up: ${messageOf(error)}`,
    )
  }
}

/**
 * Logs input that no agent can take, as a turn that ended before its first step: `inbox/queued`
 * (the text, durable), `turn/start`, `inbox/claimed`, `error`, `turn/end` (error). This is the
 * shape of a turn refused before any step (the route is chosen before the user's
 * message is logged as sent), so the model never sees the text, a later send does not repeat it
 * to the model, and the UI shows the input with the reason next to it. Claiming it keeps it from
 * being swept into the next turn unasked.
 */
export async function recordFailedStart(
  session: Session,
  input: { readonly requestId: string; readonly text: string },
  failure: AgentUnavailable,
): Promise<void> {
  recordUnstarted(session, input, 'error', failure)
  await session.flush()
}

/** The same shape for input whose turn the user stopped before it could start. */
export async function recordCancelledStart(
  session: Session,
  input: { readonly requestId: string; readonly text: string },
): Promise<void> {
  recordUnstarted(session, input, 'cancelled')
  await session.flush()
}

function recordUnstarted(
  session: Session,
  input: { readonly requestId: string; readonly text: string },
  reason: 'error' | 'cancelled',
  failure?: AgentUnavailable,
): void {
  session.append('inbox/queued', { requestId: input.requestId, message: input.text, wake: true })
  session.append('turn/start', {})
  session.append('inbox/claimed', { requestIds: [input.requestId] })
  if (failure) {
    session.append('error', { scope: 'turn', code: failure.logCode, message: failure.message })
  }
  session.append('turn/end', { reason })
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
