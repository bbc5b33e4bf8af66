import { z } from 'zod'
import { PluginError } from '../kernel/index.js'
import type { Kernel, Serial, Waterfall } from '../kernel/index.js'
import type { EventDataInput, JsonValue, ToolCallBlock } from '../../../protocol/events.js'
import type { Session } from '../log/session.js'
import { isAborted } from '../kernel/abort.js'
import type { ToolRunContext, ToolRunner } from '../loop/tools.js'
import type { ToolSpec } from '../models/types.js'
import type { ApprovalPolicy } from './approvals.js'
import { ledgerFromEvents } from './file-ledger.js'
import type { FileLedgerMap } from './file-ledger.js'
import { checkGuards } from './guards.js'
import type { Guard } from './guards.js'
import type { ToolRegistry } from './registry.js'
import type { OutputSpill } from './spill.js'
import { fullToolSpec, LEAN_LEFT_OUT, leanToolSpec } from './model-schema.js'
import { ToolError } from './types.js'
import type { CallGrant, ProcessRecord, Tool, ToolOutput } from './types.js'

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
}

type Result = EventDataInput<'tool/result'>
/** How far a dispatched call got: past the plugins only, logged as `tool/call`, or running. */
type Stage = 'plugins' | 'logged' | 'running'
interface Dispatched {
  readonly result: Result
  readonly deliverables?: ToolOutput['deliverables']
}

interface Prepared {
  readonly call: ToolCallBlock
  readonly tool?: Tool
  readonly args?: unknown
  /** A result decided before dispatch (unknown tool, bad arguments, denied). */
  failure?: Result
  /** How the call was allowed, once it was. */
  grant?: CallGrant
}

const failure = (callId: string, code: string, message: string): Result => ({
  callId,
  ok: false,
  error: { code, message },
})

/**
 * The only place where the model causes side effects (docs/ARCHITECTURE.md 5). Per call: resolve -> parse and
 * validate -> guards (`tool/guard` plugins too) -> approval -> `tool/dispatch` plugins (veto,
 * rewrite, answer) -> dispatch (after `tool/call` is durable) -> `tool/post` plugins ->
 * post-process (cap, spill) -> result. Calls that are all concurrency-safe run together (at most `maxParallel`); an
 * exclusive call is a barrier. Results are appended in the model's order, whatever finishes first.
 */
export function createToolPipeline(opts: PipelineOptions): ToolRunner {
  const maxParallel = opts.maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS
  const guards = opts.guards ?? []
  // What the agent last saw of each file, rebuilt from the log once (a resumed session too).
  const ledgers = new WeakMap<Session, FileLedgerMap>()
  const visible = () => new Map(opts.registry.view(opts.scope).map((tool) => [tool.name, tool]))

  const prepare = (call: ToolCallBlock, tools: Map<string, Tool>): Prepared => {
    const tool = tools.get(call.name)
    if (!tool) {
      return {
        call,
        failure: failure(
          call.callId,
          'UNKNOWN_TOOL',
          `There is no tool "${call.name}". Available tools: ${[...tools.keys()].join(', ') || '(none)'}.`,
        ),
      }
    }
    let raw: unknown
    try {
      raw = call.args.trim() === '' ? {} : JSON.parse(call.args)
    } catch (error) {
      return {
        call,
        tool,
        failure: failure(
          call.callId,
          'INVALID_ARGUMENTS',
          `The arguments of ${call.name} are not valid JSON (${error instanceof Error ? error.message : String(error)}). Send one JSON object that matches its schema.`,
        ),
      }
    }
    const parsed = tool.schema.safeParse(raw)
    if (!parsed.success) {
      return {
        call,
        tool,
        failure: failure(
          call.callId,
          'INVALID_ARGUMENTS',
          `The arguments of ${call.name} do not match its schema: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}`,
        ),
      }
    }
    return { call, tool, args: parsed.data }
  }

  const isSafe = (p: Prepared): boolean => {
    if (p.failure || !p.tool) return true
    try {
      return p.tool.isConcurrencySafe?.(p.args) === true
    } catch {
      return false
    }
  }

  /** The plugins' `tool/guard` listeners: the first that throws refuses the call. */
  const pluginGuards = async (
    input: GuardInput,
    session: Session,
  ): Promise<{ reason: string; message: string; plugin?: string } | undefined> => {
    if (!opts.kernel) return undefined
    try {
      await opts.kernel.serial('tool/guard', input, { scope: session.id })
      return undefined
    } catch (error) {
      const plugin = error instanceof PluginError ? error.plugin : undefined
      const reason = describeCause(error instanceof PluginError ? error.cause : error)
      return {
        reason,
        plugin,
        message: `The plugin "${plugin ?? '?'}" refused this ${input.tool.name} call: ${reason}. It did not run; do not retry it unchanged.`,
      }
    }
  }

  /** Approval and guards, in the model's order; a decided call gets its failure set. */
  const admit = async (p: Prepared, session: Session, signal: AbortSignal): Promise<void> => {
    if (p.failure || !p.tool) return
    if (isAborted(signal)) {
      p.failure = failure(
        p.call.callId,
        'ABORTED_BEFORE_DISPATCH',
        'The user stopped the turn before this call started; it did not run.',
      )
      return
    }
    // Guards first: a call a guard forbids is never put to the user.
    const call = { tool: p.tool, args: p.args, projectDir: opts.projectDir }
    const denial = checkGuards(guards, call)
    const refusal =
      denial === undefined
        ? await pluginGuards({ ...call, callId: p.call.callId }, session)
        : { reason: denial, message: denial }
    if (refusal !== undefined) {
      session.append('approval/decided', {
        callId: p.call.callId,
        decision: 'deny',
        by: 'guard',
        reason: refusal.reason,
        ...(refusal.plugin === undefined ? {} : { detail: `plugin "${refusal.plugin}"` }),
      })
      p.failure = failure(p.call.callId, 'GUARD_DENIED', refusal.message)
      return
    }
    const approval = await opts.approvals.decide(
      p.tool,
      p.args,
      p.call.callId,
      signal,
      {
        asked: async (request) => {
          session.append('approval/requested', {
            callId: request.callId,
            tool: request.tool,
            description: request.description,
            ...(request.approvalKey === undefined ? {} : { approvalKey: request.approvalKey }),
            ...(request.warnings ? { warnings: [...request.warnings] } : {}),
            ...(request.grantOptions ? { grantOptions: [...request.grantOptions] } : {}),
          })
          await session.flush()
        },
        decided: async (request, answer) => {
          session.append('approval/decided', { callId: request.callId, ...answer })
          // An automatic allow reaches the disk with the call it allows (intent before effect);
          // what a person said, and every refusal, is kept at once.
          if (answer.by === 'user' || answer.decision !== 'allow') await session.flush()
        },
      },
      { projectDir: opts.projectDir },
    )
    if (!approval.allowed) {
      p.failure = failure(p.call.callId, approval.code, approval.message)
      return
    }
    p.grant = approval.grant
  }

  const dispatch = async (
    p: Prepared,
    session: Session,
    signal: AbortSignal,
  ): Promise<Dispatched> => {
    const tool = p.tool
    if (p.failure || !tool)
      return { result: p.failure ?? failure(p.call.callId, 'UNKNOWN_TOOL', 'unresolved') }
    const notStarted = () => ({
      result: failure(
        p.call.callId,
        'ABORTED_BEFORE_DISPATCH',
        'The user stopped the turn before this call started; it did not run.',
      ),
    })
    if (isAborted(signal)) return notStarted()
    const startedAt = Date.now()
    // How far the call got: plugins only (nothing logged, nothing ran), logged, or running.
    // (A holder, not a `let`: the body moves it on inside the waterfall.)
    const at: { stage: Stage; isCommandBegun: boolean; logFailure?: { readonly error: unknown } } =
      { stage: 'plugins', isCommandBegun: false }
    let ranArgs = p.args
    const body = async (input: DispatchInput): Promise<ToolOutput> => {
      if (input.args !== p.args) {
        // A plugin rewrote the arguments: they must still be a valid call of this tool.
        const parsed = tool.schema.safeParse(input.args)
        if (!parsed.success) {
          throw new ToolError(
            'PLUGIN_INVALID_ARGUMENTS',
            `A plugin rewrote the arguments of ${tool.name} into ones its schema refuses (${z.prettifyError(parsed.error).replace(/\n/g, '; ')}). It did not run.`,
          )
        }
        ranArgs = parsed.data
      }
      try {
        // The log names the arguments the body gets, a plugin's rewrite included.
        session.append('tool/call', {
          callId: p.call.callId,
          name: tool.name,
          args: ranArgs as JsonValue,
        })
        // Intent before effect: the body starts only once its call is on disk.
        await session.flush()
      } catch (error) {
        // A log that cannot take the call fails the turn, whatever a plugin makes of it.
        at.logFailure = { error }
        throw error
      }
      at.stage = 'logged'
      // A cancel during the flush: the call is on record, but its body never started.
      if (isAborted(signal)) throw new Error('aborted before the body started')
      at.stage = 'running'
      if (tool.kind === 'execute') {
        opts.workspace?.beginCommand()
        at.isCommandBegun = true
      }
      return tool.run(ranArgs, {
        projectDir: opts.projectDir,
        // Middleware may have swapped the signal; the user's cancel must still reach the tool.
        signal: input.signal === signal ? signal : AbortSignal.any([signal, input.signal]),
        beforeWrite: (path) => opts.workspace?.beforeWrite(path),
        files: ledgers.get(session),
        ...(p.grant ? { grant: p.grant } : {}),
        onProcess: (record: ProcessRecord) => {
          session.append('process/started', { callId: p.call.callId, ...record })
          // Best effort: the command already runs; a failed write shows up at the next flush.
          session.flush().catch(() => undefined)
        },
      })
    }
    let output: ToolOutput
    try {
      const input: DispatchInput = { tool, args: p.args, callId: p.call.callId, signal }
      output = opts.kernel
        ? await opts.kernel.waterfall('tool/dispatch', input, body, { scope: session.id })
        : await body(input)
      if (opts.kernel) {
        output = await opts.kernel.waterfall(
          'tool/post',
          { tool, callId: p.call.callId, args: ranArgs, output },
          (i) => i.output,
          { scope: session.id },
        )
      }
    } catch (error) {
      if (at.logFailure) throw at.logFailure.error
      return { result: failedCall(p.call.callId, tool, at.stage, error, isAborted(signal)) }
    } finally {
      if (at.isCommandBegun) opts.workspace?.endCommand()
    }
    if (isAborted(signal)) {
      if (at.stage !== 'running') return notStarted()
      return {
        result: failure(
          p.call.callId,
          'ABORTED',
          `The user stopped the turn while ${tool.name} ran; it finished, but its output was not used. Check its effects.`,
        ),
      }
    }
    const capped = opts.spill.keep(session.id, p.call.callId, output)
    return {
      result: {
        callId: p.call.callId,
        ok: true,
        output: capped.output,
        ...(capped.outputRef ? { outputRef: capped.outputRef } : {}),
        metadata: {
          ...output.metadata,
          durationMs: Date.now() - startedAt,
          // A plugin answered in the tool's place: no tool/call is logged, and nothing ran.
          ...(at.stage === 'plugins' ? { answeredByPlugin: true } : {}),
        },
      },
      ...(output.deliverables ? { deliverables: output.deliverables } : {}),
    }
  }

  return {
    specs(): ToolSpec[] {
      const tools = opts.registry.view(opts.scope)
      if (opts.isLean?.() !== true) return tools.map(fullToolSpec)
      return tools.filter((tool) => !LEAN_LEFT_OUT.has(tool.name)).map(leanToolSpec)
    },
    async runCalls(calls, { session, signal }: ToolRunContext) {
      const tools = visible()
      let files = ledgers.get(session)
      if (!files) {
        files = ledgerFromEvents(session.slice(), opts.projectDir)
        ledgers.set(session, files)
      }
      const prepared = calls.map((call) => prepare(call, tools))
      // Batches: a run of safe calls goes together; an exclusive call goes alone.
      const batches: Prepared[][] = []
      for (const p of prepared) {
        const last = batches.at(-1)
        if (last && isSafe(p) && last.every(isSafe)) last.push(p)
        else batches.push([p])
      }
      for (const batch of batches) {
        for (const p of batch) await admit(p, session, signal)
        // Each result is logged as soon as every call before it has its own, so the log keeps the
        // model's order and a crash loses as few finished results as possible.
        const ready: (Dispatched | undefined)[] = new Array<Dispatched | undefined>(batch.length)
        let committed = 0
        await runLimited(batch, maxParallel, async (p, index) => {
          ready[index] = await dispatch(p, session, signal)
          for (
            let r = ready[committed];
            r !== undefined && committed < batch.length;
            r = ready[committed]
          ) {
            session.append('tool/result', r.result)
            if (r.deliverables) {
              session.append('deliverable/present', {
                paths: [...r.deliverables.paths],
                ...(r.deliverables.note === undefined ? {} : { note: r.deliverables.note }),
              })
            }
            committed++
          }
        })
      }
    },
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
): Result {
  const why = error instanceof PluginError ? describeCause(error.cause) : describeCause(error)
  if (stage !== 'running') {
    if (isStopped)
      return failure(
        callId,
        'ABORTED_BEFORE_DISPATCH',
        'The user stopped the turn before this call started; it did not run.',
      )
    if (error instanceof PluginError) {
      return failure(
        callId,
        'PLUGIN_DENIED',
        `The plugin "${error.plugin}" refused this ${tool.name} call: ${why}. It did not run; do not retry it unchanged.`,
      )
    }
  }
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

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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
