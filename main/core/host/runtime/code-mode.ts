/**
 * Code mode per session: the log's last `session/code-mode` switch says whether the session's
 * agent offers `run_code` (tools/code/README.md). A session without a switch has it off; a fork
 * reads its parent's switches up to the fork point like any other event.
 */
import type { Session } from '../../log/session.js'

/** Whether the session's next turn has code mode: its last `session/code-mode` switch, else off. */
export function sessionCodeMode(session: Session): boolean {
  for (let seq = session.length - 1; seq > 0; seq--) {
    const event = session.event(seq)
    if (event?.type === 'session/code-mode') return event.data.on
  }
  return false
}

/**
 * Logs a switch to `on` unless the session already is so (no event for a switch that changes
 * nothing). Returns whether it logged one; the caller flushes.
 */
export function switchCodeMode(session: Session, on: boolean): boolean {
  if (sessionCodeMode(session) === on) return false
  session.append('session/code-mode', { on })
  return true
}
