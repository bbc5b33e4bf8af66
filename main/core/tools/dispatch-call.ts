/**
 * One admitted call, from dispatch to its result (docs/ARCHITECTURE.md 5): the `tool/dispatch`
 * waterfall around the body (which logs `tool/call`, flushes, then runs the tool), the
 * `tool/post` waterfall over its output, then cap and spill. How far the call got decides what a
 * throw or the user's cancel makes of its result: nothing ran, or it ran and its effects need
 * checking.
 */
import { z } from 'zod'
import type { JsonValue } from '../../../protocol/events.js'
import { PluginError } from '../kernel/index.js'
import { isAborted } from '../kernel/abort.js'
import type { Session } from '../log/session.js'
import type { FileLedgerMap } from './file-ledger.js'
import type { DispatchInput, PipelineOptions } from './pipeline.js'
import { describeCause, failure, linkTo, notStarted } from './prepare-call.js'
import { thisMachine } from './processes.js'
import type { CallResult, Prepared } from './prepare-call.js'
import { ToolError } from './types.js'
import type { CallGrant, InnerCalls, ProcessRecord, Tool, ToolOutput } from './types.js'

/** What `dispatchCall` needs of the pipeline's options. */
export type DispatchOptions = Pick<PipelineOptions, 'kernel' | 'projectDir' | 'spill' | 'workspace'>

/** The turn a call runs in. */
export interface DispatchContext {
  readonly session: Session
  /** Aborted when the user cancels the turn. */
  readonly signal: AbortSignal
  /** What the agent last saw of each file, for `write`/`edit`. */
  readonly files: FileLedgerMap | undefined
  /** The call this one is linked to (a program's inner call); logged on its `tool/call`. */
  readonly parent?: string
  /** The session's other tools for the call's body (`ToolContext.inner`); absent for a linked call. */
  readonly innerCalls?: (callId: string) => InnerCalls
}

/** A call's result, and what it presents to the user (logged right after the result). */
export interface Dispatched {
  readonly result: CallResult
  readonly deliverables?: ToolOutput['deliverables']
}

/** How far a dispatched call got: past the plugins only, logged as `tool/call`, or running. */
type Stage = 'plugins' | 'logged' | 'running'

/**
 * A call in flight: what it runs with, and how far it got. The body moves `stage` and `ranArgs`
 * on from inside the waterfall, so they live on this holder rather than in `let`s.
 */
interface InFlight extends DispatchContext {
  readonly opts: DispatchOptions
  readonly tool: Tool
  readonly callId: string
  /** The validated arguments, before any `tool/dispatch` rewrite. */
  readonly args: unknown
  readonly grant?: CallGrant
  stage: Stage
  isCommandBegun: boolean
  /** The arguments the body ran with (a `tool/dispatch` rewrite included). */
  ranArgs: unknown
  /** Set when the log could not take the `tool/call`: the error `dispatchCall` rethrows. */
  logFailure?: { readonly error: unknown }
}

/** Logs a call's `tool/result` (linked to `parent`, if any), then what it presents to the user. */
export function appendResult(session: Session, r: Dispatched, parent?: string): void {
  session.append('tool/result', { ...r.result, ...linkTo(parent) })
  if (r.deliverables) {
    session.append('deliverable/present', {
      paths: [...r.deliverables.paths],
      ...(r.deliverables.note === undefined ? {} : { note: r.deliverables.note }),
    })
  }
}

/**
 * Runs one call (one already decided by `admitCall` gets its failure back) and settles it into a
 * result; throws only when the log cannot take the call.
 */
export async function dispatchCall(
  p: Prepared,
  opts: DispatchOptions,
  ctx: DispatchContext,
): Promise<Dispatched> {
  const tool = p.tool
  if (p.failure || !tool)
    return { result: p.failure ?? failure(p.call.callId, 'UNKNOWN_TOOL', 'unresolved') }
  if (isAborted(ctx.signal)) return { result: notStarted(p.call.callId) }
  const startedAt = Date.now()
  const call: InFlight = {
    ...ctx,
    opts,
    tool,
    callId: p.call.callId,
    args: p.args,
    ...(p.grant ? { grant: p.grant } : {}),
    stage: 'plugins',
    isCommandBegun: false,
    ranArgs: p.args,
  }
  let output: ToolOutput
  try {
    output = await runWaterfalls(call)
  } catch (error) {
    if (call.logFailure) throw call.logFailure.error
    return { result: failedCall(call.callId, tool, call.stage, error, isAborted(call.signal)) }
  } finally {
    if (call.isCommandBegun) opts.workspace?.endCommand()
    if (call.stage === 'running') opts.workspace?.afterCall?.(call.session.step, call.callId)
  }
  return settledResult(call, output, startedAt)
}

/** `tool/dispatch` around the body, then `tool/post` over its output; no kernel, the body alone. */
async function runWaterfalls(call: InFlight): Promise<ToolOutput> {
  const { kernel } = call.opts
  const { tool, callId, session, signal } = call
  const input: DispatchInput = { tool, args: call.args, callId, signal }
  if (!kernel) return runBody(call, input)
  const output = await kernel.waterfall('tool/dispatch', input, (i) => runBody(call, i), {
    scope: session.id,
  })
  return kernel.waterfall(
    'tool/post',
    { tool, callId, args: call.ranArgs, output },
    (i) => i.output,
    { scope: session.id },
  )
}

/**
 * The body at the end of `tool/dispatch`: validates a plugin's rewrite, logs `tool/call` and
 * flushes it (intent before effect), then runs the tool.
 */
async function runBody(call: InFlight, input: DispatchInput): Promise<ToolOutput> {
  const { opts, tool, session, signal } = call
  if (input.args !== call.args) {
    // A plugin rewrote the arguments: they must still be a valid call of this tool.
    const parsed = tool.schema.safeParse(input.args)
    if (!parsed.success) {
      throw new ToolError(
        'PLUGIN_INVALID_ARGUMENTS',
        `A plugin rewrote the arguments of ${tool.name} into ones its schema refuses (${z.prettifyError(parsed.error).replace(/\n/g, '; ')}). It did not run.`,
      )
    }
    call.ranArgs = parsed.data
  }
  try {
    // The log names the arguments the body gets, a plugin's rewrite included.
    session.append('tool/call', {
      callId: call.callId,
      name: tool.name,
      args: call.ranArgs as JsonValue,
      ...(tool.mcp ? { mcp: { server: tool.mcp.server, tool: tool.mcp.tool } } : {}),
      ...linkTo(call.parent),
    })
    // Intent before effect: the body starts only once its call is on disk.
    await session.flush()
  } catch (error) {
    // A log that cannot take the call fails the turn, whatever a plugin makes of it.
    call.logFailure = { error }
    throw error
  }
  call.stage = 'logged'
  // A cancel during the flush: the call is on record, but its body never started.
  if (isAborted(signal)) throw new Error('aborted before the body started')
  call.stage = 'running'
  if (tool.kind === 'execute') {
    opts.workspace?.beginCommand()
    call.isCommandBegun = true
  }
  return tool.run(call.ranArgs, {
    projectDir: opts.projectDir,
    callId: call.callId,
    // Middleware may have swapped the signal; the user's cancel must still reach the tool.
    signal: input.signal === signal ? signal : AbortSignal.any([signal, input.signal]),
    beforeWrite: (path) => opts.workspace?.beforeWrite(path),
    files: call.files,
    ...(call.grant ? { grant: call.grant } : {}),
    ...(call.innerCalls ? { inner: call.innerCalls(call.callId) } : {}),
    onProcess: (record: ProcessRecord) => {
      // Where it runs (host and boot): with the start time, what lets crash repair prove it ours.
      session.append('process/started', { callId: call.callId, ...record, ...thisMachine() })
      // Best effort: the command already runs; a failed write shows up at the next flush.
      session.flush().catch(() => undefined)
    },
  })
}

/**
 * The result of a call whose waterfalls returned: its output capped for the model (the whole of
 * it spilled), unless the user stopped the turn meanwhile.
 */
function settledResult(call: InFlight, output: ToolOutput, startedAt: number): Dispatched {
  if (isAborted(call.signal)) {
    if (call.stage !== 'running') return { result: notStarted(call.callId) }
    return {
      result: failure(
        call.callId,
        'ABORTED',
        `The user stopped the turn while ${call.tool.name} ran; it finished, but its output was not used. Check its effects.`,
      ),
    }
  }
  // Named by turn and step too: many servers reuse call ids from step to step.
  const name = `${call.session.turn}.${call.session.step}.${call.callId}`
  const capped = call.opts.spill.keep(call.session.id, name, output)
  return {
    result: {
      callId: call.callId,
      ok: true,
      output: capped.output,
      ...(capped.outputRef ? { outputRef: capped.outputRef } : {}),
      metadata: {
        ...output.metadata,
        durationMs: Date.now() - startedAt,
        // A plugin answered in the tool's place: no tool/call is logged, and nothing ran.
        ...(call.stage === 'plugins' ? { answeredByPlugin: true } : {}),
      },
    },
    ...(output.deliverables ? { deliverables: output.deliverables } : {}),
  }
}

/**
 * The result of a call whose dispatch threw, by how far it got. Before the body started: a
 * plugin's throw is its veto (PLUGIN_DENIED: nothing ran), a cancel is ABORTED_BEFORE_DISPATCH.
 * Once it ran: a cancel is ABORTED; a plugin failing around the body is PLUGIN_FAILED (it ran,
 * check its effects); the tool's own failure keeps its code.
 */
function failedCall(
  callId: string,
  tool: Tool,
  stage: Stage,
  error: unknown,
  isStopped: boolean,
): CallResult {
  const why = error instanceof PluginError ? describeCause(error.cause) : describeCause(error)
  if (stage !== 'running') {
    if (isStopped) return notStarted(callId)
    if (error instanceof PluginError) {
      return failure(
        callId,
        'PLUGIN_DENIED',
        `The plugin "${error.plugin}" refused this ${tool.name} call: ${why}. It did not run; do not retry it unchanged.`,
      )
    }
  }
  // A tool that ended its own work on the stop and said how far it got (a subagent) is heard.
  if (isStopped && error instanceof ToolError && error.standsWhenStopped)
    return failure(callId, error.code, why)
  if (isStopped)
    return failure(
      callId,
      'ABORTED',
      `The user stopped ${tool.name} while it ran; it was interrupted. Check its effects before running it again.`,
    )
  if (error instanceof PluginError) {
    return failure(
      callId,
      'PLUGIN_FAILED',
      `${tool.name} ran, but the plugin "${error.plugin}" failed after it (${why}); its output is lost. Check its effects before running it again.`,
    )
  }
  return failure(callId, error instanceof ToolError ? error.code : 'TOOL_FAILED', why)
}
