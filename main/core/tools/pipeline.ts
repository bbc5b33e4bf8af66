import { z } from 'zod'
import type { Kernel, Serial, Waterfall } from '../kernel/index.js'
import type { Session } from '../log/session.js'
import type { ToolRunContext, ToolRunner, ToolRunOutcome } from '../loop/tools.js'
import type { ToolSpec } from '../models/types.js'
import type { ApprovalPolicy } from './approvals.js'
import { appendResult, dispatchCall } from './dispatch-call.js'
import { createInnerCalls } from './inner-calls.js'
import type { DispatchContext, Dispatched } from './dispatch-call.js'
import { ledgerFromEvents } from './file-ledger.js'
import type { FileLedgerMap } from './file-ledger.js'
import type { Guard } from './guards.js'
import { fullToolSpec, LEAN_LEFT_OUT, leanToolSpec } from './model-schema.js'
import { admitCall, isConcurrencySafe, prepareCall, refuseByGuard } from './prepare-call.js'
import type { Prepared } from './prepare-call.js'
import { REPEATED_CALL, RepeatGuard, stoppedBefore, turnStopText } from './repeat-guard.js'
import type { CallShape, LoopGuardConfig } from './repeat-guard.js'
import type { ToolRegistry } from './registry.js'
import type { OutputSpill } from './spill.js'
import type { Tool, ToolOutput } from './types.js'

export const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 10

/**
 * What `tool/dispatch` middleware sees, after approval and guards. It may pass changed `args` to
 * `next` (validated again against the tool's schema, and logged as the call's arguments), wrap
 * the signal (a timeout; the user's cancel is fused back), or not call `next` at all: a throw
 * then vetoes the call (PLUGIN_DENIED, nothing logged as run), and a returned output answers in
 * the tool's place.
 */
export interface DispatchInput {
  readonly tool: Tool
  readonly args: unknown
  readonly callId: string
  readonly signal: AbortSignal
}

/** What `tool/post` middleware sees: the settled output, before it is capped and logged. */
export interface PostInput {
  readonly tool: Tool
  readonly callId: string
  /** The arguments the body ran with (a `tool/dispatch` rewrite included). */
  readonly args: unknown
  readonly output: ToolOutput
}

/** What a `tool/guard` listener sees: a validated call, before anyone is asked about it. */
export interface GuardInput {
  readonly tool: Tool
  readonly args: unknown
  readonly callId: string
  readonly projectDir: string
}

export type ToolEvents = {
  /**
   * Before approval: a listener that throws refuses the call (GUARD_DENIED, logged as decided
   * by a guard, naming the plugin); the user is never asked about it and nothing runs. A guard
   * can only refuse or let pass, so no plugin can overturn another's refusal.
   */
  'tool/guard': Serial<GuardInput>
  /** Around every tool body: middleware may veto, rewrite the arguments, or answer itself. */
  'tool/dispatch': Waterfall<DispatchInput, ToolOutput>
  /** After a body settles: may rewrite the output (redaction, annotations); a throw fails the call. */
  'tool/post': Waterfall<PostInput, ToolOutput>
}

/** Hooks the workspace uses to snapshot what the tools change (for the turn's diff). */
export interface WorkspaceHooks {
  beforeWrite(absolutePath: string): void
  beginCommand(): void
  endCommand(): void
  /** A call ended (step `step` of the turn): the workspace notes what the files are now. */
  afterCall?(step: number, callId: string): void
}

export interface PipelineOptions {
  readonly registry: ToolRegistry
  /** The session or agent whose view of the registry applies. */
  readonly scope?: string
  readonly approvals: ApprovalPolicy
  readonly guards?: readonly Guard[]
  readonly spill: OutputSpill
  readonly projectDir: string
  readonly maxParallel?: number
  readonly kernel?: Kernel<ToolEvents>
  readonly workspace?: WorkspaceHooks
  /** Whether the model is shown the lean tool set (a small window); read at every step. */
  readonly isLean?: () => boolean
  /** The loop guard (config.json's `loopGuard`); absent: on, from the 3rd identical call. */
  readonly loopGuard?: LoopGuardConfig
}

/**
 * The only place where the model causes side effects (docs/ARCHITECTURE.md 5). Per call: resolve
 * -> parse and validate -> guards (`tool/guard` plugins too) -> approval (prepare-call.ts) ->
 * `tool/dispatch` plugins (veto, rewrite, answer) -> dispatch (after `tool/call` is durable) ->
 * `tool/post` plugins -> post-process (cap, spill) -> result (dispatch-call.ts). Calls that are
 * all concurrency-safe run together (at most `maxParallel`); an exclusive call is a barrier.
 * Results are appended in the model's order, whatever finishes first. The loop guard
 * (repeat-guard.ts) flags the model's calls that repeat the one before; one refused stops the
 * turn: the calls after it in the reply do not run, and `runCalls` returns the stop.
 */
export function createToolPipeline(opts: PipelineOptions): ToolRunner {
  const maxParallel = opts.maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS
  // What the agent last saw of each file, rebuilt from the log once (a resumed session too).
  const ledgers = new WeakMap<Session, FileLedgerMap>()
  const visible = () => new Map(opts.registry.view(opts.scope).map((tool) => [tool.name, tool]))
  const repeats = new RepeatGuard(opts.loopGuard)

  return {
    specs(): ToolSpec[] {
      const tools = opts.registry.view(opts.scope)
      if (opts.isLean?.() !== true) return tools.map(fullToolSpec)
      return tools.filter((tool) => !LEAN_LEFT_OUT.has(tool.name)).map(leanToolSpec)
    },
    async runCalls(calls, { session, signal }: ToolRunContext): Promise<ToolRunOutcome> {
      const tools = visible()
      let files = ledgers.get(session)
      if (!files) {
        files = ledgerFromEvents(session.slice(), opts.projectDir)
        ledgers.set(session, files)
      }
      const ctx: DispatchContext = {
        session,
        signal,
        files,
        innerCalls: (parentId) => createInnerCalls(parentId, tools, opts, { session, files }),
      }
      let stop: TurnStop | undefined
      for (const batch of intoBatches(calls.map((call) => prepareCall(call, tools)))) {
        for (const p of batch)
          stop = await admitGuarded(p, opts, { session, signal, repeats }, stop)
        // Each result is logged as soon as every call before it has its own, so the log keeps the
        // model's order and a crash loses as few finished results as possible.
        const ready: (Dispatched | undefined)[] = new Array<Dispatched | undefined>(batch.length)
        let committed = 0
        await runLimited(batch, maxParallel, async (p, index) => {
          ready[index] = await dispatchCall(p, opts, ctx)
          for (
            let r = ready[committed];
            r !== undefined && committed < batch.length;
            r = ready[committed]
          ) {
            appendResult(session, r)
            committed++
          }
        })
      }
      return stop === undefined ? {} : { stopTurn: { code: stop.code, message: stop.message } }
    },
  }
}

/** The loop guard stopped the turn at call `callId`: the code and words the turn ends with. */
interface TurnStop {
  readonly callId: string
  readonly code: string
  readonly message: string
}

/**
 * Admits the model's next call (calls come in the model's order) with what the loop guard says
 * of it. Returns the turn's stop: the one given (every call after a refused repeat is refused
 * too, and runs nothing), or a new one when this call is a repeat that was refused.
 */
async function admitGuarded(
  p: Prepared,
  opts: PipelineOptions,
  turn: { readonly session: Session; readonly signal: AbortSignal; readonly repeats: RepeatGuard },
  stopped: TurnStop | undefined,
): Promise<TurnStop | undefined> {
  const { session, repeats } = turn
  const shape: CallShape = { name: p.call.name, args: p.args, raw: p.call.args }
  const repeat = repeats.next(session, shape)
  if (stopped !== undefined) {
    if (p.failure === undefined)
      refuseByGuard(p, session, {
        code: REPEATED_CALL,
        reason: 'the turn was stopped at a repeated call before it',
        detail: 'loop guard',
        message: stoppedBefore(p.call.name, stopped.callId),
      })
    return stopped
  }
  await admitCall(p, opts, session, turn.signal, undefined, repeat)
  if (repeat === undefined) return undefined
  if (p.grant !== undefined) repeats.allow(session, shape)
  // REPEATED_CALL comes only from the guard's refusal (a user's no is APPROVAL_DENIED).
  if (p.failure?.ok !== false || p.failure.error.code !== REPEATED_CALL) return undefined
  return {
    callId: p.call.callId,
    code: REPEATED_CALL,
    message: turnStopText(p.call.name, p.args, repeat),
  }
}

/** Batches: a run of concurrency-safe calls goes together; an exclusive call goes alone. */
function intoBatches(prepared: readonly Prepared[]): Prepared[][] {
  const batches: Prepared[][] = []
  for (const p of prepared) {
    const last = batches.at(-1)
    if (last && isConcurrencySafe(p) && last.every(isConcurrencySafe)) last.push(p)
    else batches.push([p])
  }
  return batches
}

/** Runs `work` over `items`, starting them in order, with at most `limit` in flight. */
async function runLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const index = next++
      await work(items[index] as T, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
}

/** `read_output`: reads more of a tool output that was cut for the model. */
export function readOutputTool(spill: OutputSpill): Tool {
  const schema = z.object({
    ref: z.string().min(1).describe('The reference named in the cut output'),
    offset: z.number().int().min(0).default(0).describe('Byte offset to start at'),
    length: z.number().int().min(1).max(200_000).default(50_000).describe('How many bytes'),
  })
  return {
    name: 'read_output',
    brief: 'Read more of a cut output, by the ref and offset it names.',
    description:
      'Read more of a tool output that was cut because it was long. Use the reference and offset given in the cut output. Binary outputs are shown as a hex dump.',
    schema,
    kind: 'read',
    isConcurrencySafe: () => true,
    run: (args) => {
      const { ref, offset, length } = schema.parse(args)
      return Promise.resolve({ output: spill.read(ref, offset, length) })
    },
  }
}
