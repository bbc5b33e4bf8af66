import type { ToolCallBlock } from '../../../protocol/events.js'
import type { Session } from '../log/session.js'
import type { ToolSpec } from '../models/types.js'

export interface ToolRunContext {
  readonly session: Session
  /** Aborted when the user cancels the turn. */
  readonly signal: AbortSignal
}

/**
 * The seam between the loop and the tool runtime. The loop hands over the calls of one committed
 * assistant message; the runner must append exactly one `tool/result` per call, in the model's
 * order, and `tool/call` (flushed) before any tool body starts.
 */
export interface ToolRunner {
  /** The tools offered to the model, in a stable order (they are part of the cached prefix). */
  specs(): readonly ToolSpec[]
  runCalls(calls: readonly ToolCallBlock[], ctx: ToolRunContext): Promise<void>
}
