/**
 * Calls a tool makes itself (code mode's `run_code` program calling `tools.read(...)`): each goes
 * through the same stages as a model's call (validate, guards, approval, dispatch, cap and spill,
 * cancel) and is logged as its own `tool/call` / `tool/result` with `parent` naming the calling
 * call, with an id derived from it (`<parent>.1`, `<parent>.2`, ...). The log accepts such a call
 * only while its parent runs, and its result never becomes a model message of its own.
 */
import type { Session } from '../log/session.js'
import { appendResult, dispatchCall } from './dispatch-call.js'
import type { FileLedgerMap } from './file-ledger.js'
import type { PipelineOptions } from './pipeline.js'
import { admitCall, prepareCall } from './prepare-call.js'
import type { InnerCalls, InnerResult, Tool } from './types.js'

/** The calls of one parent call: run one at a time, so approvals are asked in the order made. */
export function createInnerCalls(
  parentId: string,
  visible: ReadonlyMap<string, Tool>,
  opts: PipelineOptions,
  turn: { readonly session: Session; readonly files: FileLedgerMap | undefined },
): InnerCalls {
  const callerName = turn.session.pendingCalls().find((c) => c.callId === parentId)?.name
  // The calling tool is not offered to its own program (no program starts another).
  const tools = new Map([...visible].filter(([name]) => name !== callerName))
  let count = 0
  let queue: Promise<unknown> = Promise.resolve()

  const run = async (name: string, argsJson: string, signal: AbortSignal): Promise<InnerResult> => {
    const call = {
      type: 'tool-call' as const,
      callId: `${parentId}.${++count}`,
      name,
      args: argsJson,
    }
    const p = prepareCall(call, tools)
    await admitCall(p, opts, turn.session, signal, parentId)
    const dispatched = await dispatchCall(p, opts, {
      session: turn.session,
      signal,
      files: turn.files,
      parent: parentId,
    })
    appendResult(turn.session, dispatched, parentId)
    const { result } = dispatched
    return result.ok
      ? { ok: true, output: result.output }
      : { ok: false, code: result.error.code, message: result.error.message }
  }

  return {
    tools: [...tools.values()],
    call(name, argsJson, signal) {
      const next = queue.then(() => run(name, argsJson, signal))
      queue = next.catch(() => undefined)
      return next
    },
    idle: () => queue.then(() => undefined),
  }
}
