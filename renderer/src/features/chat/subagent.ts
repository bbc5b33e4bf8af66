/**
 * What the chat shows of a `task` call, the built-in tool that starts a subagent (a child session
 * that runs one turn on the call's prompt and answers): pure, unit-tested with the projection.
 * The child's own log is never read here; its progress is what its session summary says.
 */
import type { SessionSummary } from '../../../../protocol/contract'
import type { ToolCallView, ToolStatus } from './items'
import { record, str } from './read-json'

/** The tool that starts a subagent (main/core/tools). */
export const TASK_TOOL = 'task'

export const isSubagentCall = (call: Pick<ToolCallView, 'name' | 'mcp'>): boolean =>
  call.name === TASK_TOOL && call.mcp === undefined

/** Where the child stands, as its card says it. */
export type SubagentState = 'waiting' | 'running' | 'done' | 'failed' | 'stopped' | 'unknown'

export const SUBAGENT_STATE_LABEL: Readonly<Record<SubagentState, string>> = {
  waiting: 'waiting',
  running: 'running',
  done: 'done',
  failed: 'failed',
  stopped: 'stopped',
  unknown: 'outcome unknown',
}

export interface SubagentView {
  /** The short description the model gave (the tree's and the Gantt's label too). */
  readonly description: string
  /** The child's user message. */
  readonly prompt: string
  /** The child session, once the log names it. */
  readonly childId: string | undefined
  readonly state: SubagentState
}

/** The card of a `task` call whose status (approval pending included) is `status`. */
export function subagentView(call: ToolCallView, status: ToolStatus): SubagentView {
  const args = record(call.args)
  const description =
    str(args, 'description').trim() || call.subagent?.description?.trim() || 'Subagent'
  return {
    description,
    prompt: str(args, 'prompt'),
    childId: call.subagent?.sessionId,
    // The tool says so when the user stopped the child (or its parent): not a failure.
    state: call.error?.code === SUBAGENT_STOPPED ? 'stopped' : stateOf(status),
  }
}

/** The task tool's code for a child stopped before it finished (main/core/host/runtime/subagents.ts). */
const SUBAGENT_STOPPED = 'SUBAGENT_STOPPED'

function stateOf(status: ToolStatus): SubagentState {
  switch (status) {
    case 'queued':
    case 'awaiting-approval':
      return 'waiting'
    case 'running':
      return 'running'
    case 'done':
      return 'done'
    case 'failed':
      return 'failed'
    case 'unknown':
      return 'unknown'
    case 'denied':
    case 'interrupted':
    case 'not-started':
      return 'stopped'
  }
}

/**
 * The child's progress in a few words, from its summary (no log read): its messages so far and
 * whether a turn of it runs now. Undefined while the summary is not in the list.
 */
export function childProgress(
  child: Pick<SessionSummary, 'messageCount' | 'isRunning'> | undefined,
): string | undefined {
  if (child === undefined) return undefined
  const messages = `${child.messageCount} message${child.messageCount === 1 ? '' : 's'}`
  return child.isRunning ? `${messages}, working` : messages
}
