import { z } from 'zod'
import type { JsonValue, ToolCallBlock } from '../log/events.js'
import type { Session } from '../log/session.js'
import type { ToolSpec } from '../models/types.js'
import { isAborted } from './agent.js'

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

export interface SimpleTool<S extends z.ZodType = z.ZodType> {
  readonly name: string
  readonly description: string
  readonly schema: S
  run(args: z.output<S>, ctx: ToolRunContext): Promise<string>
}

/** Defines a tool with its argument types inferred from the schema. */
export const defineTool = <S extends z.ZodType>(tool: SimpleTool<S>): SimpleTool => tool

/**
 * A sequential runner for plain tools: resolve, parse and validate the arguments, log the call
 * durably, run, log the result. It is the loop's default until the guarded tool pipeline
 * (approvals, guards, parallel batches, output caps) replaces it.
 */
export function createSimpleToolRunner(tools: readonly SimpleTool[]): ToolRunner {
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const specs: ToolSpec[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: z.toJSONSchema(tool.schema),
  }))
  const fail = (session: Session, callId: string, code: string, message: string) =>
    session.append('tool/result', { callId, ok: false, error: { code, message } })

  return {
    specs: () => specs,
    async runCalls(calls, { session, signal }) {
      for (const call of calls) {
        const tool = byName.get(call.name)
        if (!tool) {
          fail(
            session,
            call.callId,
            'UNKNOWN_TOOL',
            `There is no tool "${call.name}". Available tools: ${[...byName.keys()].join(', ') || '(none)'}.`,
          )
          continue
        }
        let raw: unknown
        try {
          raw = call.args.trim() === '' ? {} : JSON.parse(call.args)
        } catch (error) {
          fail(
            session,
            call.callId,
            'INVALID_ARGUMENTS',
            `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}). Send a JSON object matching the tool's schema.`,
          )
          continue
        }
        const parsed = tool.schema.safeParse(raw)
        if (!parsed.success) {
          const issues = parsed.error.issues
            .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
            .join('; ')
          fail(
            session,
            call.callId,
            'INVALID_ARGUMENTS',
            `The arguments do not match the schema of ${call.name}: ${issues}.`,
          )
          continue
        }
        if (signal.aborted) {
          fail(
            session,
            call.callId,
            'ABORTED_BEFORE_DISPATCH',
            'The user stopped the turn before this call started; it did not run.',
          )
          continue
        }
        session.append('tool/call', {
          callId: call.callId,
          name: call.name,
          args: parsed.data as JsonValue,
        })
        await session.flush()
        try {
          const output = await tool.run(parsed.data, { session, signal })
          session.append('tool/result', { callId: call.callId, ok: true, output })
        } catch (error) {
          const code = isAborted(signal) ? 'ABORTED' : 'TOOL_FAILED'
          fail(session, call.callId, code, error instanceof Error ? error.message : String(error))
        }
      }
    },
  }
}
