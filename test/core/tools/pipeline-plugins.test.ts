import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Kernel } from '../../../main/core/kernel/index.js'
import type { Plugin } from '../../../main/core/kernel/index.js'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import type { ApprovalRequest } from '../../../main/core/tools/approvals.js'
import { bashTool } from '../../../main/core/tools/builtin/bash.js'
import { createToolPipeline } from '../../../main/core/tools/pipeline.js'
import type { ToolEvents } from '../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../main/core/tools/spill.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
const H = (): LoopHarness => {
  if (!h) throw new Error('no harness started')
  return h
}
afterEach(async () => {
  await h?.close()
  h = undefined
})

type ToolPlugin = Plugin<ToolEvents, Record<string, never>>

const bashCalls = (...commands: string[]) => ({
  steps: [
    ...commands.map((command, i) => ({
      toolCall: { id: `c${i + 1}`, name: 'bash', args: JSON.stringify({ command }) },
    })),
    { finish: 'tool_calls' },
  ],
})

/** The real pipeline with the real bash tool (no sandbox), in full-auto, with these plugins. */
async function run(
  commands: string[],
  plugins: ToolPlugin[],
  opts: { readonly channel?: (request: ApprovalRequest) => void } = {},
) {
  const kernel = new Kernel<ToolEvents>()
  for (const plugin of plugins) await kernel.load(plugin)
  h = await startHarness([bashCalls(...commands), 'done'], {
    makeTools: ({ projectDir, homeDir }) => {
      const registry = new ToolRegistry()
      registry.register(bashTool({ env: process.env }))
      const channel = opts.channel
      return createToolPipeline({
        registry,
        approvals: channel
          ? new ApprovalPolicy('ask', [], (request) => {
              channel(request)
              return Promise.resolve({ decision: 'allow' })
            })
          : new ApprovalPolicy('full-auto'),
        spill: new OutputSpill(join(homeDir, 'outputs'), 10_000),
        projectDir,
        kernel,
      })
    },
  })
  H().agent.send({ requestId: 'r', text: 'go' })
  await H().agent.runUntilIdle()
  const events = H().session.slice()
  return {
    results: events.flatMap((e) => (e.type === 'tool/result' ? [e.data] : [])),
    calls: events.flatMap((e) => (e.type === 'tool/call' ? [e.data] : [])),
  }
}

const commandOf = (args: unknown): string => (args as { command: string }).command

describe('tool plugins on the real tool path', () => {
  it('a tool/guard plugin refuses a call before anyone is asked: decided by the guard, naming the plugin, nothing runs', async () => {
    const noCurl: ToolPlugin = {
      name: 'no-curl',
      setup: (ctx) =>
        void ctx.on('tool/guard', (input) => {
          if (/\bcurl\b/.test(commandOf(input.args))) throw new Error('curl is not allowed here')
        }),
    }
    const asked: ApprovalRequest[] = []

    const { results, calls } = await run(
      ['touch vetoed.txt && echo curl -s http://example.invalid', 'touch allowed.txt'],
      [noCurl],
      { channel: (request) => asked.push(request) },
    )

    expect(results[0]).toMatchObject({
      callId: 'c1',
      ok: false,
      error: {
        code: 'GUARD_DENIED',
        message:
          'The plugin "no-curl" refused this bash call: curl is not allowed here. It did not run; do not retry it unchanged.',
      },
    })
    const decided = H()
      .session.slice()
      .flatMap((e) => (e.type === 'approval/decided' && e.data.callId === 'c1' ? [e.data] : []))
    expect(decided).toEqual([
      {
        callId: 'c1',
        decision: 'deny',
        by: 'guard',
        detail: 'plugin "no-curl"',
        reason: 'curl is not allowed here',
      },
    ])
    // The user was asked only about the call the guard let pass.
    expect(asked.map((request) => request.callId)).toEqual(['c2'])
    expect(calls.map((c) => c.callId)).toEqual(['c2'])
    expect(existsSync(join(H().projectDir, 'vetoed.txt'))).toBe(false)
    expect(existsSync(join(H().projectDir, 'allowed.txt'))).toBe(true)
  })

  it('a tool/dispatch plugin vetoes a call: a PLUGIN_DENIED result naming it, no tool/call, nothing runs', async () => {
    const noCurl: ToolPlugin = {
      name: 'no-curl',
      setup: (ctx) =>
        void ctx.on('tool/dispatch', (input, next) => {
          if (input.tool.name === 'bash' && /\bcurl\b/.test(commandOf(input.args)))
            throw new Error('curl is not allowed here')
          return next(input)
        }),
    }

    const { results, calls } = await run(
      ['touch vetoed.txt && echo curl -s http://example.invalid', 'touch allowed.txt'],
      [noCurl],
    )

    expect(results[0]).toMatchObject({ callId: 'c1', ok: false })
    const denied = results[0]
    if (denied?.ok !== false) throw new Error('expected a failure')
    expect(denied.error.code).toBe('PLUGIN_DENIED')
    expect(denied.error.message).toContain('The plugin "no-curl" refused this bash call')
    expect(denied.error.message).toContain('curl is not allowed here')
    expect(denied.error.message).toContain('It did not run')
    expect(results[1]).toMatchObject({ callId: 'c2', ok: true })
    // Only the allowed call is on record as run, and only it had an effect.
    expect(calls.map((c) => c.callId)).toEqual(['c2'])
    expect(existsSync(join(H().projectDir, 'vetoed.txt'))).toBe(false)
    expect(existsSync(join(H().projectDir, 'allowed.txt'))).toBe(true)
  })

  it("a tool/dispatch plugin rewrites a call's arguments: the body runs them, tool/call logs them, and a rewrite the schema refuses does not run", async () => {
    const rewrite: ToolPlugin = {
      name: 'rewrite',
      setup: (ctx) =>
        void ctx.on('tool/dispatch', (input, next) => {
          const command = commandOf(input.args)
          if (command === 'echo one') return next({ ...input, args: { command: 'echo two' } })
          if (command === 'echo bad') return next({ ...input, args: { command: 42 } })
          return next(input)
        }),
    }

    const { results, calls } = await run(['echo one', 'echo bad'], [rewrite])

    expect(results[0]).toMatchObject({ callId: 'c1', ok: true, output: 'two\n' })
    expect(calls).toEqual([{ callId: 'c1', name: 'bash', args: { command: 'echo two' } }])
    expect(results[1]).toMatchObject({
      callId: 'c2',
      ok: false,
      error: { code: 'PLUGIN_INVALID_ARGUMENTS' },
    })
  })

  it("a tool/post plugin rewrites a call's output before it is capped and logged; a throw there is PLUGIN_FAILED", async () => {
    const seen: unknown[] = []
    const redact: ToolPlugin = {
      name: 'redact',
      setup: (ctx) =>
        void ctx.on('tool/post', async (input, next) => {
          seen.push(input.args)
          if (commandOf(input.args).includes('fail')) throw new Error('redactor broke')
          const output = await next(input)
          return { ...output, output: output.output.replace(/sk-[A-Za-z0-9]+/g, '[redacted]') }
        }),
    }

    const { results, calls } = await run(
      ['echo token=sk-abc123XYZ', 'touch ran.txt # fail'],
      [redact],
    )

    expect(results[0]).toMatchObject({ ok: true, output: 'token=[redacted]\n' })
    expect(seen).toEqual([
      { command: 'echo token=sk-abc123XYZ' },
      { command: 'touch ran.txt # fail' },
    ])
    if (results[1]?.ok !== false) throw new Error('expected a failure')
    expect(results[1].error.code).toBe('PLUGIN_FAILED')
    expect(results[1].error.message).toContain('bash ran, but the plugin "redact" failed after it')
    // It did run: the call is on record and its effect is there.
    expect(calls.map((c) => c.callId)).toEqual(['c1', 'c2'])
    expect(existsSync(join(H().projectDir, 'ran.txt'))).toBe(true)
  })

  it('a plugin may answer in the tool’s place: the result says so and nothing is logged as run', async () => {
    const cache: ToolPlugin = {
      name: 'cache',
      setup: (ctx) =>
        void ctx.on('tool/dispatch', (input, next) =>
          commandOf(input.args) === 'date' ? Promise.resolve({ output: 'cached' }) : next(input),
        ),
    }

    const { results, calls } = await run(['date'], [cache])

    expect(results[0]).toMatchObject({
      ok: true,
      output: 'cached',
      metadata: { answeredByPlugin: true },
    })
    expect(calls).toEqual([])
  })

  it('an approval request carries the validated arguments the pipeline holds', async () => {
    const asked: ApprovalRequest[] = []
    await run(['touch asked.txt'], [], { channel: (request) => asked.push(request) })

    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({
      callId: 'c1',
      tool: 'bash',
      args: { command: 'touch asked.txt' },
    })
  })
})
