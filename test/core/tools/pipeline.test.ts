import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import type {
  ApprovalChannel,
  ApprovalMode,
  ApprovalRule,
} from '../../../main/core/tools/approvals.js'
import type { Guard } from '../../../main/core/tools/guards.js'
import { createToolPipeline, readOutputTool } from '../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../main/core/tools/spill.js'
import { defineTool } from '../../../main/core/tools/types.js'
import type { Tool } from '../../../main/core/tools/types.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
/** The running harness (a test that uses it before `harness()` is a bug). */
const H = (): LoopHarness => {
  if (!h) throw new Error('no harness started')
  return h
}
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Tools that record when they run, so tests can see order and overlap. */
function instrumented() {
  const log: string[] = []
  let running = 0
  let peak = 0
  const sleepTool = (name: string, isSafe: boolean, kind: Tool['kind'] = 'read') =>
    defineTool({
      name,
      description: name,
      kind,
      schema: z.object({ ms: z.number(), tag: z.string() }),
      isConcurrencySafe: () => isSafe,
      async run({ ms, tag }, ctx) {
        running++
        peak = Math.max(peak, running)
        log.push(`start ${tag}`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer)
            resolve()
          })
        })
        log.push(`end ${tag}`)
        running--
        return { output: `done ${tag}` }
      },
    })
  return {
    log,
    peak: () => peak,
    tools: [
      sleepTool('peek', true),
      sleepTool('poke', false, 'edit'),
      sleepTool('run', false, 'execute'),
      defineTool({
        name: 'shout',
        description: 'prints a lot',
        kind: 'read',
        schema: z.object({ bytes: z.number() }),
        run: ({ bytes }) => Promise.resolve({ output: 'x'.repeat(bytes) }),
      }),
    ],
  }
}

const callsOf = (...calls: [string, unknown][]) => ({
  steps: [
    ...calls.map(([name, args], i) => ({
      toolCall: {
        id: `c${i + 1}`,
        name,
        args: typeof args === 'string' ? args : JSON.stringify(args),
      },
    })),
    { finish: 'tool_calls' },
  ],
})

async function harness(
  script: Parameters<typeof startHarness>[0],
  opts: {
    mode?: ApprovalMode
    rules?: ApprovalRule[]
    channel?: ApprovalChannel
    guards?: Guard[]
    extra?: Tool[]
  } = {},
) {
  const kit = instrumented()
  const registry = new ToolRegistry()
  for (const tool of [...kit.tools, ...(opts.extra ?? [])]) registry.register(tool)
  let spill: OutputSpill | undefined
  h = await startHarness(script, {
    makeTools: ({ projectDir, homeDir }) => {
      spill = new OutputSpill(join(homeDir, 'outputs'), 1000)
      registry.register(readOutputTool(spill))
      return createToolPipeline({
        registry,
        approvals: new ApprovalPolicy(opts.mode ?? 'full-auto', opts.rules ?? [], opts.channel),
        guards: opts.guards ?? [],
        spill,
        projectDir,
      })
    },
  })
  return { ...kit, spill: () => spill as OutputSpill }
}

const results = () =>
  H()
    .session.slice()
    .flatMap((e) => (e.type === 'tool/result' ? [{ seq: e.seq, ...e.data }] : []))

const codes = () => results().map((r) => (r.ok ? 'ok' : r.error.code))

describe('the tool pipeline', () => {
  it('answers unknown tools and bad arguments with codes the model can act on', async () => {
    await harness([
      callsOf(['nope', {}], ['peek', '{"ms": 1,'], ['peek', { ms: 'soon', tag: 'x' }]),
      'ok',
    ])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['UNKNOWN_TOOL', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS'])
    const [unknown, badJson, badSchema] = results()
    expect(unknown?.ok === false && unknown.error.message).toContain('Available tools: peek, poke')
    expect(badJson?.ok === false && badJson.error.message).toContain('not valid JSON')
    expect(badSchema?.ok === false && badSchema.error.message).toContain('ms')
    expect(
      H()
        .session.slice()
        .filter((e) => e.type === 'tool/call'),
    ).toHaveLength(0)
  })

  it('keeps approval outcomes distinct: no channel, denied with a reason, a policy rule', async () => {
    const asked: string[] = []
    await harness(
      [
        callsOf(
          ['poke', { ms: 1, tag: 'a' }],
          ['run', { ms: 1, tag: 'b' }],
          ['peek', { ms: 1, tag: 'c' }],
        ),
        'ok',
      ],
      {
        mode: 'ask',
        rules: [{ tool: 'run', effect: 'deny' }],
        channel: (request) => {
          asked.push(request.tool)
          return Promise.resolve({ decision: 'deny', reason: 'not today' })
        },
      },
    )
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['APPROVAL_DENIED', 'POLICY_DENIED', 'ok'])
    expect(asked).toEqual(['poke'])
    const denied = results()[0]
    expect(denied?.ok === false && denied.error.message).toContain('not today')
  })

  it('logs the approval audit pair before acting on the answer', async () => {
    const seenAtAnswer: string[] = []
    await harness([callsOf(['poke', { ms: 1, tag: 'a' }], ['run', { ms: 1, tag: 'b' }]), 'ok'], {
      mode: 'ask',
      channel: (request) => {
        // The question is durable before anyone answers it.
        seenAtAnswer.push(
          H()
            .session.slice()
            .map((e) => e.type)
            .filter((t) => t.startsWith('approval/'))
            .join(','),
        )
        return Promise.resolve(
          request.tool === 'poke'
            ? { decision: 'allow', remember: true }
            : { decision: 'deny', reason: 'use the test script' },
        )
      },
    })
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(seenAtAnswer).toEqual([
      'approval/requested',
      'approval/requested,approval/decided,approval/requested',
    ])
    const trail = H()
      .session.slice()
      .flatMap((e) => {
        switch (e.type) {
          case 'approval/decided':
            return [
              `decided ${e.data.callId} ${e.data.decision}${e.data.remember ? ' remember' : ''}${e.data.reason ? ` (${e.data.reason})` : ''}`,
            ]
          case 'approval/requested':
            return [`asked ${e.data.callId} ${e.data.description}`]
          case 'tool/call':
          case 'tool/result':
            return [`${e.type} ${e.data.callId}`]
          default:
            return []
        }
      })
    expect(trail).toEqual([
      'asked c1 poke {"ms":1,"tag":"a"}',
      'decided c1 allow remember',
      'tool/call c1',
      'tool/result c1',
      // Two exclusive calls are two batches: the second is asked once the first is done.
      'asked c2 run {"ms":1,"tag":"b"}',
      'decided c2 deny (use the test script)',
      'tool/result c2',
    ])
  })

  it('a cancel while an approval is open settles it as cancelled, and a failing channel denies', async () => {
    await harness([callsOf(['poke', { ms: 1, tag: 'a' }])], {
      mode: 'ask',
      // Never answers: only the cancel can end the wait.
      channel: () => new Promise(() => undefined),
    })
    H().session.subscribe((event) => {
      if (event.type === 'approval/requested') setTimeout(() => h?.agent.cancel(), 20)
    })
    H().agent.send({ requestId: 'r', text: 'go' })
    const [outcome] = await H().agent.runUntilIdle()
    expect(outcome?.reason).toBe('cancelled')
    expect(codes()).toEqual(['ABORTED_BEFORE_DISPATCH'])
    expect(
      H()
        .session.slice()
        .flatMap((e) => (e.type === 'approval/decided' ? [e.data.decision] : [])),
    ).toEqual(['cancelled'])
    await h?.close()

    await harness([callsOf(['poke', { ms: 1, tag: 'a' }]), 'ok'], {
      mode: 'ask',
      channel: () => Promise.reject(new Error('the window is gone')),
    })
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['NO_APPROVAL_CHANNEL'])
    const [result] = results()
    expect(result?.ok === false && result.error.message).toContain('the window is gone')
  })

  it('in headless ask mode an edit yields NO_APPROVAL_CHANNEL and never runs', async () => {
    const kit = await harness([callsOf(['poke', { ms: 1, tag: 'a' }]), 'ok'], { mode: 'ask' })
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['NO_APPROVAL_CHANNEL'])
    expect(kit.log).toEqual([])
  })

  it('remembers "always allow" for later calls', async () => {
    let asked = 0
    await harness(
      [callsOf(['poke', { ms: 1, tag: 'a' }]), callsOf(['poke', { ms: 1, tag: 'b' }]), 'ok'],
      {
        mode: 'ask',
        channel: () => {
          asked++
          return Promise.resolve({ decision: 'allow', remember: true })
        },
      },
    )
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['ok', 'ok'])
    expect(asked).toBe(1)
  })

  it('refuses what a call would do in every mode, asks for a confirm-level call except in full-auto, and no guard can overturn a refusal', async () => {
    const ran: string[] = []
    const shell = defineTool({
      name: 'sh',
      description: 'pretends to run a command',
      kind: 'execute',
      schema: z.object({ command: z.string() }),
      approvalKey: ({ command }) => command,
      assess: ({ command }) =>
        command.startsWith('rm -rf /')
          ? { level: 'refuse', reasons: ['it would delete the whole disk'] }
          : command.startsWith('git reset --hard')
            ? { level: 'confirm', reasons: ['it throws away uncommitted work'], grantable: false }
            : { level: 'normal', reasons: [] },
      run: ({ command }) => {
        ran.push(command)
        return Promise.resolve({ output: 'pretended' })
      },
    })
    const permissive: Guard = () => undefined
    await harness(
      [
        callsOf(
          ['sh', { command: 'rm -rf /' }],
          ['sh', { command: 'git reset --hard HEAD~3' }],
          ['sh', { command: 'ls -la' }],
        ),
        'ok',
      ],
      {
        mode: 'full-auto',
        guards: [permissive],
        extra: [shell],
      },
    )
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['GUARD_DENIED', 'POLICY_DENIED', 'ok'])
    expect(ran).toEqual(['ls -la'])
    // Every decision is logged, with who made it.
    expect(
      H()
        .session.slice()
        .flatMap((e) =>
          e.type === 'approval/decided' ? [`${e.data.decision} by ${e.data.by ?? '?'}`] : [],
        ),
    ).toEqual(['deny by assessment', 'deny by assessment', 'allow by mode'])
    await H().close()
    ran.length = 0
    // A rule the user wrote for exactly this command lets the confirm-level call pass.
    await harness([callsOf(['sh', { command: 'git reset --hard' }]), 'ok'], {
      mode: 'ask',
      rules: [{ tool: 'sh', prefix: 'git reset --hard', effect: 'allow' }],
      extra: [shell],
    })
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(codes()).toEqual(['ok'])
    expect(ran).toEqual(['git reset --hard'])
  })

  it('commits results in the model’s order even when a later call finishes first', async () => {
    const kit = await harness([
      callsOf(['peek', { ms: 150, tag: 'slow' }], ['peek', { ms: 5, tag: 'fast' }]),
      'ok',
    ])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(kit.log).toEqual(['start slow', 'start fast', 'end fast', 'end slow'])
    expect(results().map((r) => r.callId)).toEqual(['c1', 'c2'])
  })

  it('runs safe calls together, and an exclusive call between them waits for them and they for it', async () => {
    const kit = await harness([
      callsOf(
        ['peek', { ms: 60, tag: 'a' }],
        ['peek', { ms: 60, tag: 'b' }],
        ['poke', { ms: 20, tag: 'x' }],
        ['peek', { ms: 20, tag: 'c' }],
      ),
      'ok',
    ])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(kit.log.slice(0, 2).sort()).toEqual(['start a', 'start b'])
    expect(kit.log.slice(4)).toEqual(['start x', 'end x', 'start c', 'end c'])
    expect(kit.peak()).toBe(2)
  })

  it('never runs more than 10 safe calls at once', async () => {
    const calls = Array.from({ length: 12 }, (_, i): [string, unknown] => [
      'peek',
      { ms: 40, tag: `p${i}` },
    ])
    const kit = await harness([callsOf(...calls), 'ok'])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    expect(kit.peak()).toBe(10)
    expect(codes()).toEqual(Array.from({ length: 12 }, () => 'ok'))
  })

  it('cancel before dispatch gives ABORTED_BEFORE_DISPATCH; during a call, ABORTED after it settles', async () => {
    const kit = await harness(
      [callsOf(['run', { ms: 5000, tag: 'long' }], ['poke', { ms: 1, tag: 'next' }])],
      { mode: 'full-auto' },
    )
    H().session.subscribe((event) => {
      if (event.type === 'tool/call') setTimeout(() => h?.agent.cancel(), 30)
    })
    H().agent.send({ requestId: 'r', text: 'go' })
    const started = Date.now()
    const [outcome] = await H().agent.runUntilIdle()
    expect(Date.now() - started).toBeLessThan(2000)
    expect(outcome?.reason).toBe('cancelled')
    expect(codes()).toEqual(['ABORTED', 'ABORTED_BEFORE_DISPATCH'])
    expect(kit.log).toEqual(['start long', 'end long'])
  })

  it('caps long output for the model and keeps all of it behind outputRef', async () => {
    const kit = await harness([callsOf(['shout', { bytes: 5000 }]), 'ok'])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    const [capped] = results()
    if (!capped?.ok) throw new Error('expected an ok result')
    expect(capped.output).toContain('output cut at 1000 of 5000 bytes')
    expect(Buffer.byteLength(capped.output)).toBeLessThan(1400)
    expect(capped.outputRef).toMatch(/\/1\.1\.c1\.txt$/)
    const full = kit.spill().read(capped.outputRef ?? '', 0, 10_000)
    expect(full).toBe('x'.repeat(5000))
    expect(() => kit.spill().read('../../etc/passwd')).toThrow('not an output reference')
  })

  it('keeps the outputs of calls whose ids the server reuses from step to step apart', async () => {
    const kit = await harness([
      callsOf(['shout', { bytes: 5000 }]),
      callsOf(['shout', { bytes: 3000 }]),
      'ok',
    ])
    H().agent.send({ requestId: 'r', text: 'go' })
    await H().agent.runUntilIdle()
    const refs = results().map((result) => (result.ok ? result.outputRef : undefined))
    expect(refs).toHaveLength(2)
    expect(new Set(refs).size).toBe(2)
    const lengths = refs.map((ref) => kit.spill().read(ref ?? '', 0, 10_000).length)
    expect(lengths).toEqual([5000, 3000])
  })
})
