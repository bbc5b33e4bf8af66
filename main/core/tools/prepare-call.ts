/**
 * A call's way up to its dispatch (docs/ARCHITECTURE.md 5): resolve the tool, parse and validate
 * the arguments (`prepareCall`), then guards, the plugins' `tool/guard` and approval
 * (`admitCall`). A call decided here (unknown tool, bad arguments, refused, stopped) carries its
 * failure on to `dispatch-call.ts`, and nothing of it runs.
 */
import { z } from 'zod'
import type { EventDataInput, ToolCallBlock } from '../../../protocol/events.js'
import { PluginError } from '../kernel/index.js'
import { isAborted } from '../kernel/abort.js'
import type { Session } from '../log/session.js'
import type { ApprovalAudit } from './approvals.js'
import { checkGuards } from './guards.js'
import type { GuardInput, PipelineOptions } from './pipeline.js'
import type { Repeat } from './repeat-guard.js'
import type { CallGrant, Tool } from './types.js'

export type CallResult = EventDataInput<'tool/result'>

/** One call of the model's message, on its way through the pipeline. */
export interface Prepared {
  readonly call: ToolCallBlock
  readonly tool?: Tool
  readonly args?: unknown
  /** A result decided before dispatch (unknown tool, bad arguments, denied). */
  failure?: CallResult
  /** How the call was allowed, once it was. */
  grant?: CallGrant
}

/** What `admitCall` needs of the pipeline's options. */
export type AdmitOptions = Pick<PipelineOptions, 'approvals' | 'guards' | 'kernel' | 'projectDir'>

export const failure = (callId: string, code: string, message: string): CallResult => ({
  callId,
  ok: false,
  error: { code, message },
})

/** The result of a call the user's cancel stopped before its body started. */
export const notStarted = (callId: string): CallResult =>
  failure(
    callId,
    'ABORTED_BEFORE_DISPATCH',
    'The user stopped the turn before this call started; it did not run.',
  )

export function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The `parent` field of a linked call's events; nothing for a call the model made. */
export const linkTo = (parent: string | undefined): { parent?: { callId: string } } =>
  parent === undefined ? {} : { parent: { callId: parent } }

/** Resolve and validate: the tool the call names, and its arguments parsed by the tool's schema. */
export function prepareCall(call: ToolCallBlock, tools: Map<string, Tool>): Prepared {
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

/**
 * Whether the call may run alongside others. A call already decided is (it runs nothing); a
 * tool whose `isConcurrencySafe` throws is not.
 */
export function isConcurrencySafe(p: Prepared): boolean {
  if (p.failure || !p.tool) return true
  try {
    return p.tool.isConcurrencySafe?.(p.args) === true
  } catch {
    return false
  }
}

/** Approval and guards, in the model's order; a decided call gets its failure set. */
export async function admitCall(
  p: Prepared,
  opts: AdmitOptions,
  session: Session,
  signal: AbortSignal,
  /** The call this one is linked to (a program's inner call), named on its approval events. */
  parent?: string,
  /** The loop guard flagged the call as the same call again (repeat-guard.ts). */
  repeat?: Repeat,
): Promise<void> {
  if (p.failure || !p.tool) return
  if (isAborted(signal)) {
    p.failure = notStarted(p.call.callId)
    return
  }
  // Guards first: a call a guard forbids is never put to the user.
  const call = { tool: p.tool, args: p.args, projectDir: opts.projectDir }
  const denial = checkGuards(opts.guards ?? [], call)
  const refusal =
    denial === undefined
      ? await pluginGuards({ ...call, callId: p.call.callId }, opts, session)
      : { reason: denial, message: denial }
  if (refusal !== undefined) {
    refuseByGuard(p, session, {
      code: 'GUARD_DENIED',
      reason: refusal.reason,
      message: refusal.message,
      ...(refusal.plugin === undefined ? {} : { detail: `plugin "${refusal.plugin}"` }),
      parent,
    })
    return
  }
  const approval = await opts.approvals.decide(
    p.tool,
    p.args,
    p.call.callId,
    signal,
    approvalAudit(session, parent),
    { projectDir: opts.projectDir },
    repeat,
  )
  if (!approval.allowed) {
    p.failure = failure(p.call.callId, approval.code, approval.message)
    return
  }
  p.grant = approval.grant
}

/** A guard refused the call before anyone was asked: logged as decided by it; nothing runs. */
export function refuseByGuard(
  p: Prepared,
  session: Session,
  why: {
    readonly code: string
    readonly reason: string
    readonly message: string
    readonly detail?: string
    readonly parent?: string | undefined
  },
): void {
  session.append('approval/decided', {
    callId: p.call.callId,
    ...linkTo(why.parent),
    decision: 'deny',
    by: 'guard',
    reason: why.reason,
    ...(why.detail === undefined ? {} : { detail: why.detail }),
  })
  p.failure = failure(p.call.callId, why.code, why.message)
}

/** The plugins' `tool/guard` listeners: the first that throws refuses the call. */
async function pluginGuards(
  input: GuardInput,
  opts: AdmitOptions,
  session: Session,
): Promise<{ reason: string; message: string; plugin?: string } | undefined> {
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

/** How an approval is logged: what was asked, and every decision, automatic ones too. */
function approvalAudit(session: Session, parent: string | undefined): ApprovalAudit {
  return {
    asked: async (request) => {
      session.append('approval/requested', {
        callId: request.callId,
        ...linkTo(parent),
        tool: request.tool,
        description: request.description,
        ...(request.approvalKey === undefined ? {} : { approvalKey: request.approvalKey }),
        ...(request.warnings ? { warnings: [...request.warnings] } : {}),
        ...(request.grantOptions ? { grantOptions: [...request.grantOptions] } : {}),
      })
      await session.flush()
    },
    decided: async (request, answer) => {
      session.append('approval/decided', { callId: request.callId, ...linkTo(parent), ...answer })
      // An automatic allow reaches the disk with the call it allows (intent before effect);
      // what a person said, and every refusal, is kept at once.
      if (answer.by === 'user' || answer.decision !== 'allow') await session.flush()
    },
  }
}
