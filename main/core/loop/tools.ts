import type { ToolCallBlock } from '../../../protocol/events.js'
import type { Session } from '../log/session.js'
import type { ToolSpec } from '../models/types.js'

export interface ToolRunContext {
  readonly session: Session
  /** Aborted when the user cancels the turn. */
  readonly signal: AbortSignal
}

/**
 * What a runner may tell the loop once every call has its result: stop the turn (the loop guard
 * refused a repeated call), with the code and the words the user is shown as the turn ends.
 */
export interface ToolRunOutcome {
  readonly stopTurn?: { readonly code: string; readonly message: string }
}

/**
 * The seam between the loop and the tool runtime. The loop hands over the calls of one committed
 * assistant message; the runner must append exactly one `tool/result` per call, in the model's
 * order, and `tool/call` (flushed) before any tool body starts. It resolves `{}` to go on, or with
 * a `stopTurn`: the loop then ends the turn (`error`, with that code and message) instead of
 * asking the model again.
 */
export interface ToolRunner {
  /** The tools offered to the model, in a stable order (they are part of the cached prefix). */
  specs(): readonly ToolSpec[]
  runCalls(calls: readonly ToolCallBlock[], ctx: ToolRunContext): Promise<ToolRunOutcome>
}
