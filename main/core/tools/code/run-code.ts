/**
 * `run_code` (code mode): the model writes one program, the body of an async JavaScript function,
 * that calls the session's other tools as `tools.<name>(args)`. The program runs in the QuickJS
 * sandbox (`sandbox.ts`); each tool call it makes goes through the whole pipeline as a linked
 * call (`ToolContext.inner`). The result is what it printed and what it returned.
 */
import { z } from 'zod'
import { defineTool, ToolError } from '../types.js'
import type { InnerCalls, InnerResult, Tool } from '../types.js'
import { runProgram } from './sandbox.js'
import type { ProgramResult } from './sandbox.js'

export const RUN_CODE = 'run_code'
export const DEFAULT_CODE_TIMEOUT_SECONDS = 30
export const DEFAULT_MAX_INNER_CALLS = 50
export const DEFAULT_CODE_MEMORY_MB = 64

export interface CodeModeOptions {
  readonly timeoutSeconds?: number
  readonly maxInnerCalls?: number
  readonly memoryMegabytes?: number
}

const schema = z.object({
  code: z
    .string()
    .min(1)
    .describe(
      'The body of an async JavaScript function: await tools.<name>(args), console.log, return a value',
    ),
})

export function runCodeTool(options: CodeModeOptions = {}): Tool {
  const limits = {
    timeoutMs: (options.timeoutSeconds ?? DEFAULT_CODE_TIMEOUT_SECONDS) * 1000,
    maxCalls: options.maxInnerCalls ?? DEFAULT_MAX_INNER_CALLS,
    memoryBytes: (options.memoryMegabytes ?? DEFAULT_CODE_MEMORY_MB) * 1024 * 1024,
  }
  return defineTool({
    name: RUN_CODE,
    brief: 'Run a JavaScript program that calls the other tools as tools.<name>(args).',
    description:
      "Run a JavaScript program (the body of an async function) that calls the other tools as `await tools.<name>(args)`, each returning that tool's output as text, or throwing an Error whose message starts with the failure's code. Use it to chain several tool calls, loop over results or combine outputs in one step. console.log output and the returned value (JSON unless a string) make up the result. No require, process, fetch, file system or network of its own: only the tools. " +
      `Limits: ${limits.timeoutMs / 1000} s, ${limits.maxCalls} tool calls.`,
    schema,
    kind: 'other',
    // The program itself does nothing; each tool call it makes is approved on its own.
    runsUnaskedFrom: 'ask',
    describe: (args) => `run a program of ${args.code.split('\n').length} line(s)`,
    run: async (args, ctx) => {
      const inner = ctx.inner
      if (!inner)
        throw new ToolError('CODE_MODE_UNAVAILABLE', 'run_code cannot run here: no tools to call.')
      return runWith(inner, args.code, limits, ctx.signal)
    },
  })
}

async function runWith(
  inner: InnerCalls,
  code: string,
  limits: Parameters<typeof runProgram>[2],
  signal: AbortSignal,
) {
  // Stopping the program (a limit, a throw) stops the calls it left running too.
  const program = new AbortController()
  const callSignal = AbortSignal.any([signal, program.signal])
  let logFailure: { error: unknown } | undefined
  let calls = 0
  const host = {
    toolNames: inner.tools.map((tool) => tool.name),
    call: async (name: string, argsJson: string): Promise<InnerResult> => {
      calls++
      try {
        return await inner.call(name, argsJson, callSignal)
      } catch (error) {
        logFailure ??= { error }
        program.abort()
        return { ok: false, code: 'LOG_FAILED', message: 'The log could not take the call.' }
      }
    },
  }
  let result: ProgramResult
  try {
    result = await runProgram(code, host, limits, AbortSignal.any([signal, program.signal]))
  } catch (error) {
    throw logFailure ? logFailure.error : error
  } finally {
    program.abort()
    // Every linked call is logged before this call's own result.
    await inner.idle()
  }
  if (logFailure) throw logFailure.error
  return { output: formatResult(result), metadata: { innerCalls: calls } }
}

/** What the model reads: the console output, then the returned value. */
export function formatResult(result: ProgramResult): string {
  const printed = result.logs.join('\n')
  if (result.value === undefined)
    return printed === '' ? '(the program printed nothing and returned nothing)' : printed
  return printed === '' ? result.value : `${printed}\n\nReturned:\n${result.value}`
}
