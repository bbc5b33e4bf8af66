/**
 * The loop guard on the real path: the scripted model server proposes the calls, the real loop
 * and pipeline run them with the real `bash` (no sandbox: the guard decides whether a call runs
 * at all, not where) and `read` tools on a temp project, and the tests count what really ran
 * (lines appended to a file, `tool/call` events) and what the log says.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Config } from '../../../protocol/settings.js'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import type {
  ApprovalChannel,
  ApprovalMode,
  ApprovalRequest,
} from '../../../main/core/tools/approvals.js'
import { bashTool } from '../../../main/core/tools/builtin/bash.js'
import { readTool } from '../../../main/core/tools/builtin/read.js'
import { createToolPipeline } from '../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { canonicalJson, ordinal, REPEATED_CALL } from '../../../main/core/tools/repeat-guard.js'
import { OutputSpill } from '../../../main/core/tools/spill.js'
import { chatRequests } from '../../fixtures/model-server/server.js'
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

const APPEND = 'echo hi >> count.txt'
let ids = 0
/** One model reply proposing these calls (name and arguments as JSON text or an object). */
const reply = (...calls: [string, unknown][]) => ({
  steps: [
    ...calls.map(([name, args]) => ({
      toolCall: {
        id: `c${++ids}`,
        name,
        args: typeof args === 'string' ? args : JSON.stringify(args),
      },
    })),
    { finish: 'tool_calls' as const },
  ],
})
const bash = (command: string): [string, unknown] => ['bash', { command }]
/** `n` replies, each the same single call. */
const times = (n: number, call: [string, unknown]) => Array.from({ length: n }, () => reply(call))

async function run(
  script: Parameters<typeof startHarness>[0],
  opts: { mode?: ApprovalMode; channel?: ApprovalChannel; repeats?: number } = {},
) {
  h = await startHarness(script, {
    makeTools: ({ projectDir, homeDir }) => {
      const registry = new ToolRegistry()
      registry.register(bashTool({ env: process.env }))
      registry.register(readTool())
      return createToolPipeline({
        registry,
        approvals: new ApprovalPolicy(opts.mode ?? 'full-auto', [], opts.channel),
        spill: new OutputSpill(join(homeDir, 'outputs'), 10_000),
        projectDir,
        ...(opts.repeats === undefined ? {} : { loopGuard: { repeats: opts.repeats } }),
      })
    },
  })
  H().agent.send({ requestId: 'r1', text: 'go' })
  const [outcome] = await H().agent.runUntilIdle()
  return outcome
}

const lines = (file: string) => {
  try {
    return readFileSync(join(H().projectDir, file), 'utf8').split('\n').filter(Boolean).length
  } catch {
    return 0
  }
}
const events = () => H().session.slice()
const codes = () =>
  events().flatMap((e) => (e.type === 'tool/result' ? [e.data.ok ? 'ok' : e.data.error.code] : []))
const dispatched = () => events().filter((e) => e.type === 'tool/call').length
const isRepeatQuestion = (request: ApprovalRequest) =>
  (request.warnings ?? []).some((w) => w.startsWith('the same call for the'))

describe('the loop guard', () => {
  it('full-auto: of 12 identical bash calls 2 run; the 3rd is refused and the turn stops, logged as decided by the guard', async () => {
    const outcome = await run([...times(12, bash(APPEND)), 'never reached'])

    expect(lines('count.txt')).toBe(2)
    expect(codes()).toEqual(['ok', 'ok', REPEATED_CALL])
    // The turn stopped there: three requests, not twelve.
    expect(chatRequests(H().server)).toHaveLength(3)
    expect(outcome?.reason).toBe('error')
    expect(outcome?.error?.code).toBe(REPEATED_CALL)
    const turnError = events().find((e) => e.type === 'error' && e.data.scope === 'turn')
    expect(turnError?.type === 'error' && turnError.data.message).toMatch(
      /same bash call 3 times in a row .*echo hi >> count.txt.*the 3rd did not run.*loopGuard/,
    )
    expect(events().at(-1)?.type).toBe('turn/end')
    const refused = events().flatMap((e) =>
      e.type === 'approval/decided' && e.data.decision === 'deny' ? [e.data] : [],
    )
    expect(refused).toEqual([
      expect.objectContaining({
        by: 'guard',
        detail: 'loop guard: the same call for the 3rd time in a row',
      }),
    ])
  })

  it('the model is told why in the call result, in the next request it is sent', async () => {
    await run([...times(3, bash(APPEND)), 'I will stop repeating that.'])
    H().agent.send({ requestId: 'r2', text: 'what happened?' })
    await H().agent.runUntilIdle()

    const requests = chatRequests(H().server)
    expect(requests).toHaveLength(4)
    const messages = (requests[3]?.body as { messages: { role: string; content: unknown }[] })
      .messages
    const last = messages.filter((m) => m.role === 'tool').at(-1)
    expect(String(last?.content)).toContain(REPEATED_CALL)
    expect(String(last?.content)).toContain('3rd time in a row')
    expect(lines('count.txt')).toBe(2)
  })

  it('ask mode: the 3rd identical call is put to the user with the reason; a no refuses it and the turn goes on', async () => {
    const asked: ApprovalRequest[] = []
    const outcome = await run([...times(4, bash(APPEND)), 'done'], {
      mode: 'ask',
      channel: (request) => {
        asked.push(request)
        return Promise.resolve(
          isRepeatQuestion(request)
            ? { decision: 'deny', reason: 'you are looping' }
            : { decision: 'allow' },
        )
      },
    })

    expect(lines('count.txt')).toBe(2)
    expect(codes()).toEqual(['ok', 'ok', 'APPROVAL_DENIED', 'APPROVAL_DENIED'])
    expect(asked.map((r) => r.warnings?.[0])).toEqual([
      undefined,
      undefined,
      expect.stringMatching(/^the same call for the 3rd time in a row: /),
      expect.stringMatching(/^the same call for the 4th time in a row: /),
    ])
    // A repeat is asked about without "always allow" on offer.
    expect(asked[2]?.grantOptions).toBeUndefined()
    expect(outcome?.reason).toBe('completed')
  })

  it('ask mode: a repeat the user allowed is not put to them again in this turn', async () => {
    const asked: ApprovalRequest[] = []
    // Reads run unasked in ask mode; only the loop guard asks about them.
    const outcome = await run([...times(6, ['read', { path: 'a.txt' }]), 'done'], {
      mode: 'ask',
      channel: (request) => {
        asked.push(request)
        return Promise.resolve({ decision: 'allow' })
      },
    })

    expect(codes()).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok'])
    expect(asked).toHaveLength(1)
    expect(asked[0]?.warnings?.[0]).toMatch(/^the same call for the 3rd time in a row/)
    const byUser = events().filter(
      (e) => e.type === 'approval/decided' && e.data.by === 'user' && e.data.decision === 'allow',
    )
    expect(byUser).toHaveLength(1)
    expect(outcome?.reason).toBe('completed')
  })

  it('ask mode without anyone to ask stops the turn as full-auto does', async () => {
    const outcome = await run([...times(5, ['read', { path: 'a.txt' }]), 'done'], { mode: 'ask' })

    expect(codes()).toEqual(['ok', 'ok', REPEATED_CALL])
    expect(dispatched()).toBe(2)
    expect(outcome?.error?.code).toBe(REPEATED_CALL)
  })

  it('configured off (repeats 0), all 12 run', async () => {
    const outcome = await run([...times(12, bash(APPEND)), 'done'], { repeats: 0 })

    expect(lines('count.txt')).toBe(12)
    expect(codes().filter((c) => c === 'ok')).toHaveLength(12)
    expect(outcome?.reason).toBe('completed')
  })

  it('a configured threshold: with repeats 5, four run', async () => {
    await run([...times(8, bash(APPEND)), 'done'], { repeats: 5 })

    expect(lines('count.txt')).toBe(4)
    expect(codes()).toEqual(['ok', 'ok', 'ok', 'ok', REPEATED_CALL])
  })

  it('a different call in between starts the count again', async () => {
    const other = bash('echo x >> other.txt')
    const script = [1, 2, 3, 4].flatMap(() => [
      reply(bash(APPEND)),
      reply(bash(APPEND)),
      reply(other),
    ])
    const outcome = await run([...script, 'done'])

    expect(lines('count.txt')).toBe(8)
    expect(lines('other.txt')).toBe(4)
    expect(outcome?.reason).toBe('completed')
  })

  it('the same arguments in another key order are the same call', async () => {
    const outcome = await run([
      reply(['read', '{"path": "a.txt", "offset": 1}']),
      reply(['read', '{"offset": 1, "path": "a.txt"}']),
      reply(['read', '{ "offset":1,"path":"a.txt" }']),
      'done',
    ])

    expect(codes()).toEqual(['ok', 'ok', REPEATED_CALL])
    expect(outcome?.error?.code).toBe(REPEATED_CALL)
  })

  it('identical reads in one parallel batch count in model order: 2 run, the rest of the reply does not', async () => {
    const read: [string, unknown] = ['read', { path: 'a.txt' }]
    const outcome = await run([reply(read, read, read, read, ['read', { path: 'b.txt' }]), 'done'])

    expect(codes()).toEqual(['ok', 'ok', REPEATED_CALL, REPEATED_CALL, REPEATED_CALL])
    expect(dispatched()).toBe(2)
    const messages = events().flatMap((e) =>
      e.type === 'tool/result' && !e.data.ok ? [e.data.error.message] : [],
    )
    expect(messages[0]).toContain('3rd time in a row')
    expect(messages[1]).toContain('the turn was stopped at call')
    expect(messages[2]).toContain('the turn was stopped at call')
    expect(outcome?.reason).toBe('error')
  })

  it('a new turn starts the count again', async () => {
    await run([...times(2, bash(APPEND)), 'first done', reply(bash(APPEND)), 'second done'])
    H().agent.send({ requestId: 'r2', text: 'once more' })
    const [second] = await H().agent.runUntilIdle()

    expect(lines('count.txt')).toBe(3)
    expect(second?.reason).toBe('completed')
  })
})

describe('the loop guard words and settings', () => {
  it('compares arguments as canonical JSON and counts in English ordinals', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    )
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
      '23rd',
      '101st',
      '111th',
    ])
  })

  it('config.json takes loopGuard.repeats 0 (off) or at least 2', () => {
    expect(Config.parse({ loopGuard: { repeats: 0 } }).loopGuard?.repeats).toBe(0)
    expect(Config.parse({ loopGuard: { repeats: 4 } }).loopGuard?.repeats).toBe(4)
    expect(Config.parse({}).loopGuard).toBeUndefined()
    const one = Config.safeParse({ loopGuard: { repeats: 1 } })
    expect(one.success).toBe(false)
    expect(one.error?.issues[0]?.message).toContain('1 would stop every call')
    expect(Config.safeParse({ loopGuard: { repeat: 3 } }).success).toBe(false)
  })
})
