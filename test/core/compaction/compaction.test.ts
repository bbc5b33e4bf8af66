import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from '../../../main/core/tools/types.js'
import { fullAutoTools } from '../../fixtures/pipeline.js'
import {
  compactSession,
  roughCount,
  uncompactSession,
} from '../../../main/core/compaction/compactor.js'
import { pruneOldOutputs } from '../../../main/core/compaction/prune.js'
import { compactionPlugin } from '../../../main/core/compaction/plugin.js'
import type { CompactResult } from '../../../main/core/compaction/compactor.js'
import { chooseRange } from '../../../main/core/compaction/range.js'
import { recallTool } from '../../../main/core/compaction/recall.js'
import { Kernel } from '../../../main/core/kernel/index.js'
import type { SurfaceNode } from '../../../main/core/log/index.js'
import type { LoopEvents } from '../../../main/core/loop/agent.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
let summariser: ModelServer | undefined
afterEach(async () => {
  await h?.close()
  await summariser?.close()
  h = undefined
  summariser = undefined
})

type WireMessage = {
  role: string
  content: string | null
  tool_call_id?: string
  tool_calls?: { id: string }[]
}
const wireMessages = (server: ModelServer, index: number): WireMessage[] =>
  (server.requests[index]?.body as { messages: WireMessage[] }).messages

/** No request may carry a tool result whose call is not in an earlier assistant message. */
function expectEveryResultHasItsCall(server: ModelServer) {
  server.requests.forEach((_, i) => {
    const proposed = new Set<string>()
    for (const message of wireMessages(server, i)) {
      for (const call of message.tool_calls ?? []) proposed.add(call.id)
      if (message.role === 'tool') expect(proposed.has(message.tool_call_id ?? '')).toBe(true)
    }
  })
}

const readCall = (id: string) => ({
  steps: [{ toolCall: { id, name: 'read', args: '{"path":"a.txt"}' } }, { finish: 'tool_calls' }],
})

const FACT = 'the deploy key is rotated every 17 days'

async function turn(text: string) {
  h?.agent.send({ requestId: `r-${text}`, text })
  return (await h?.agent.runUntilIdle())?.[0]
}

async function startSummariser(script: Parameters<typeof startModelServer>[0]) {
  summariser = await startModelServer(script)
  return createOpenAiCompatibleAdapter({ baseUrl: summariser.url, idleTimeoutMs: 2000 })
}

describe('compaction', () => {
  it('compacts automatically past the threshold: the summary replaces the range, recent turns stay verbatim, the log keeps everything', async () => {
    const adapter = await startSummariser({ script: ['## Goals and constraints\nSUMMARY-1'] })
    const results: CompactResult[] = []
    const counts: number[] = []
    const kernel = new Kernel<LoopEvents>()
    await kernel.load(
      compactionPlugin({
        adapter,
        model: 'summariser',
        // Small enough that the fourth turn crosses 80%.
        contextWindow: 560,
        keepUserTurns: 1,
        onCompacted: (result) => results.push(result),
        count: (messages, tools) => {
          const n = roughCount(messages, tools)
          counts.push(n)
          return n
        },
      }),
    )
    h = await startHarness(
      [
        readCall('c1'),
        `Noted: ${FACT}.`,
        readCall('c2'),
        'Second answer with some length to it, enough to grow the context a little.',
        'Third answer, also long enough to count for something in the window estimate.',
        'Fourth answer after compaction.',
      ],
      { kernel },
    )
    await turn(`Remember this: ${FACT}.`)
    await turn('Now read it again and tell me more about the file.')
    await turn('And a third question to grow the history further.')
    expect(results, String(counts)).toEqual([])
    await turn('Fourth question, the one that crosses the threshold.')

    expect(results, String(counts)).toHaveLength(1)
    const [result] = results
    if (!result?.ok) throw new Error(`compaction failed: ${JSON.stringify(result)}`)
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore)
    const checkpoint = h.session.slice().find((e) => e.type === 'compaction/checkpoint')
    expect(checkpoint?.data).toMatchObject({ summary: '## Goals and constraints\nSUMMARY-1' })

    // The summariser saw the range as a transcript, with the fact in it.
    const asked = wireMessages(summariser as ModelServer, 0)
    expect(asked[0]?.content).toContain('## Open problems')
    expect(asked[1]?.content).toContain(FACT)

    // The request after the compaction: system, the summary, the kept turn verbatim, the new input.
    const main = h.server
    const last = wireMessages(main, main.requests.length - 1)
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'user'])
    expect(last[1]?.content).toContain('SUMMARY-1')
    expect(last[2]?.content).toBe('And a third question to grow the history further.')
    expect(last.at(-1)?.content).toBe('Fourth question, the one that crosses the threshold.')
    expect(JSON.stringify(last)).not.toContain(FACT)
    expectEveryResultHasItsCall(main)

    // Nothing was deleted: the fact is still in the log.
    expect(JSON.stringify(h.session.slice())).toContain(FACT)
  })

  it('uncompact puts the originals back in the next request; recall finds a fact only in the compacted range', async () => {
    const adapter = await startSummariser({ script: ['SUMMARY-2'] })
    h = await startHarness([
      readCall('c1'),
      `Noted: ${FACT}.`,
      'ok',
      'after compaction',
      'after undo',
    ])
    await turn(`Remember: ${FACT}.`)
    await turn('Second.')
    const result = await compactSession(h.session, {
      adapter,
      model: 'summariser',
      signal: new AbortController().signal,
      keepUserTurns: 1,
    })
    if (!result.ok) throw new Error(result.message)
    await turn('Third.')
    const compacted = wireMessages(h.server, h.server.requests.length - 1)
    expect(JSON.stringify(compacted)).not.toContain(FACT)
    expect(compacted[1]?.content).toContain('SUMMARY-2')

    const session = h.session
    const recall = recallTool(() => session)
    const ctx = {
      projectDir: h.projectDir,
      signal: new AbortController().signal,
      beforeWrite: () => undefined,
    }
    const found = await recall.run(recall.schema.parse({ query: 'DEPLOY key ROTATED' }), ctx)
    expect(found.output).toContain(FACT)
    expect(found.output).toMatch(/--- seq \d+/)
    const missing = await recall.run(recall.schema.parse({ query: 'no such words here' }), ctx)
    expect(missing.output).toContain('No compacted event matches')

    await uncompactSession(h.session, result.checkpointSeq)
    await turn('Fourth.')
    const restored = wireMessages(h.server, h.server.requests.length - 1)
    expect(JSON.stringify(restored)).toContain(FACT)
    expect(JSON.stringify(restored)).not.toContain('SUMMARY-2')
    expect(restored.filter((m) => m.role === 'tool')).toHaveLength(1)
    expectEveryResultHasItsCall(h.server)
    expect(h.session.slice().map((e) => e.type)).toContain('compaction/undone')
    const afterUndo = await recall.run(recall.schema.parse({ query: 'deploy' }), ctx)
    expect(afterUndo.output).toBe('Nothing is compacted in this conversation yet.')
  })

  it('a failing or cancelled summary leaves the view exactly as it was and logs an error', async () => {
    const adapter = await startSummariser({
      script: [
        { status: 500, body: { error: { message: 'out of memory' } } },
        { steps: [{ sleepMs: 5000 }, { text: 'late' }] },
      ],
    })
    h = await startHarness([readCall('c1'), 'one', 'two'])
    await turn('First.')
    await turn('Second.')
    const before = h.session.deriveMessages()
    const failed = await compactSession(h.session, {
      adapter,
      model: 'summariser',
      signal: new AbortController().signal,
      keepUserTurns: 1,
    })
    expect(failed).toMatchObject({ ok: false, code: 'SUMMARY_FAILED' })
    expect(!failed.ok && failed.message).toContain('SERVER_ERROR')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const cancelled = await compactSession(h.session, {
      adapter,
      model: 'summariser',
      signal: controller.signal,
      keepUserTurns: 1,
    })
    expect(cancelled).toMatchObject({ ok: false, code: 'CANCELLED' })
    expect(h.session.deriveMessages()).toEqual(before)
    const errors = h.session.slice().flatMap((e) => (e.type === 'error' ? [e.data] : []))
    expect(errors.map((e) => `${e.scope} ${e.code}`)).toEqual([
      'compaction SUMMARY_FAILED',
      'compaction CANCELLED',
    ])
    expect(h.session.slice().some((e) => e.type === 'compaction/checkpoint')).toBe(false)
  })
})

/** A tool whose output (10 KB) is worth pruning. */
const big = defineTool({
  name: 'dump',
  description: 'prints a lot',
  kind: 'read',
  schema: z.object({ tag: z.string() }),
  run: ({ tag }) => Promise.resolve({ output: `${tag}:${'x'.repeat(10_000)}` }),
})

describe('pruning old tool outputs', () => {
  const dump = (id: string, tag: string) => ({
    steps: [
      { toolCall: { id, name: 'dump', args: JSON.stringify({ tag }) } },
      { finish: 'tool_calls' },
    ],
  })

  it('past the threshold, old large outputs become stubs first; no summary is needed when that suffices', async () => {
    // A summariser that would fail: the test proves it is never asked.
    const adapter = await startSummariser({ script: [] })
    const results: CompactResult[] = []
    const kernel = new Kernel<LoopEvents>()
    await kernel.load(
      compactionPlugin({
        adapter,
        model: 'summariser',
        contextWindow: 8000,
        prune: { keepSteps: 2, minBytes: 4096 },
        onCompacted: (result) => results.push(result),
      }),
    )
    h = await startHarness(
      [dump('c1', 'ONE'), dump('c2', 'TWO'), dump('c3', 'THREE'), 'dumped', 'next answer'],
      { kernel, makeTools: (dirs) => fullAutoTools([big], dirs) },
    )
    await turn('dump three times')
    await turn('and now?')
    expect(results).toEqual([])
    expect(summariser?.requests).toHaveLength(0)
    // Before the fourth step three outputs passed 80% of the window; the two latest steps stay
    // whole, so only the first output became a stub, and that was enough.
    const pruned = h.session.slice().filter((e) => e.type === 'compaction/pruned')
    expect(pruned).toHaveLength(1)
    const last = wireMessages(h.server, h.server.requests.length - 1)
    const tools = last.filter((m) => m.role === 'tool').map((m) => m.content ?? '')
    expect(tools).toHaveLength(3)
    expect(tools[0]).toMatch(
      /^\[output pruned from view to save context: 10004 bytes; recall with fromSeq \d+ and toSeq \d+ shows it again\]$/,
    )
    expect(tools[1]).toBe(`TWO:${'x'.repeat(10_000)}`)
    expect(tools[2]).toBe(`THREE:${'x'.repeat(10_000)}`)
    expectEveryResultHasItsCall(h.server)

    const session = h.session
    const recall = recallTool(() => session)
    const ctx = {
      projectDir: h.projectDir,
      signal: new AbortController().signal,
      beforeWrite: () => undefined,
    }
    const found = await recall.run(recall.schema.parse({ query: 'ONE:' }), ctx)
    expect(found.output).toContain(`ONE:${'x'.repeat(10_000)}`)
  })
})

describe('pruneOldOutputs', () => {
  it('with keepSteps 0 takes every large output out of view, the last step’s too', async () => {
    h = await startHarness(
      [
        {
          steps: [
            { toolCall: { id: 'c1', name: 'dump', args: '{"tag":"ONE"}' } },
            { finish: 'tool_calls' },
          ],
        },
        'dumped',
      ],
      { makeTools: (dirs) => fullAutoTools([big], dirs) },
    )
    await turn('dump once')
    expect(await pruneOldOutputs(h.session, { keepSteps: 2, minBytes: 4096 })).toEqual([])
    const pruned = await pruneOldOutputs(h.session, { keepSteps: 0, minBytes: 4096 })
    expect(pruned).toHaveLength(1)
    const result = h.session.slice().find((e) => e.type === 'tool/result')
    expect(pruned).toEqual([result?.seq])
  })
})

describe('choosing the range', () => {
  const user = (seq: number): SurfaceNode => ({ seq, kind: 'user' })
  const options = {
    keepUserTurns: 1,
    isUserInput: (node: SurfaceNode) => node.kind === 'user',
    tokensOf: () => 10,
    keepTailTokens: 25,
  }

  it('moves the end back so a parallel tool batch is never split', () => {
    // user, assistant calling a and b, result a, result b, assistant, user (kept)
    const nodes: SurfaceNode[] = [
      user(1),
      { seq: 5, kind: 'assistant', callIds: ['a', 'b'] },
      { seq: 7, kind: 'tool', callId: 'a' },
      { seq: 8, kind: 'tool', callId: 'b' },
      { seq: 9, kind: 'assistant' },
      user(12),
    ]
    expect(chooseRange(nodes, options)).toMatchObject({ fromSeq: 1, toSeq: 9 })
    // One long turn: keeping a tail of one node would end the range between the two results
    // (or between the call and its results), so the end moves back before the batch.
    const oneTurn = nodes.slice(0, 4)
    expect(chooseRange(oneTurn, { ...options, keepTailTokens: 10 })).toBeUndefined()
    const longer: SurfaceNode[] = [user(1), { seq: 2, kind: 'assistant' }, ...nodes.slice(1, 4)]
    expect(chooseRange(longer, { ...options, keepTailTokens: 10 })).toMatchObject({
      fromSeq: 1,
      toSeq: 2,
    })
  })

  it('starts after the latest checkpoint and keeps the last K user inputs', () => {
    const nodes: SurfaceNode[] = [
      { seq: 3, kind: 'checkpoint', replaced: [user(1), { seq: 2, kind: 'assistant' }] },
      user(4),
      { seq: 6, kind: 'assistant' },
      user(8),
      { seq: 10, kind: 'assistant' },
      user(12),
      { seq: 14, kind: 'assistant' },
    ]
    expect(chooseRange(nodes, { ...options, keepUserTurns: 2 })).toMatchObject({
      fromSeq: 4,
      toSeq: 6,
    })
    // Keeping three turns would keep everything: a tail of about keepTailTokens is kept instead.
    expect(chooseRange(nodes, { ...options, keepUserTurns: 3 })).toMatchObject({
      fromSeq: 4,
      toSeq: 8,
    })
    expect(
      chooseRange(nodes, { ...options, keepUserTurns: 3, keepTailTokens: 1000 }),
    ).toBeUndefined()
  })
})
