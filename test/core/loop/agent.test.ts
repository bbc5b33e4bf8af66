import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Kernel } from '../../../main/core/kernel/index.js'
import { CUT_REPLY_NOTICE, OUTPUT_TRUNCATED } from '../../../main/core/loop/agent.js'
import type { LoopEvents } from '../../../main/core/loop/agent.js'
import { chatRequests } from '../../fixtures/model-server/server.js'
import { deriveMessagesAt } from '../../../main/core/log/index.js'
import { toChatCompletionParams } from '../../../main/core/models/chat-request.js'
import { startHarness, typesFrom } from './harness.js'
import type { LoopHarness } from './harness.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const call = (name: string, args: unknown, id = `call_${name}`) => ({
  steps: [{ toolCall: { id, name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }],
})

describe('the agent loop against the scripted server', () => {
  it('runs a read, edit, test task as exactly the expected sequence of events', async () => {
    h = await startHarness([
      call('read', { path: 'a.txt' }),
      call('edit', { path: 'a.txt', old: 'bug', new: 'fix' }),
      call('test', {}),
      {
        steps: [
          { text: 'Fixed the bug; the tests pass.' },
          { usage: { prompt_tokens: 120, completion_tokens: 9 } },
          { finish: 'stop' },
        ],
      },
    ])
    const start = h.session.length
    expect(h.agent.send({ requestId: 'r1', text: 'fix the bug in a.txt' })).toEqual({
      accepted: true,
    })
    const outcomes = await h.agent.runUntilIdle()
    expect(outcomes).toEqual([{ turn: 1, reason: 'completed' }])
    const toolStep = (withHeader: boolean) => [
      'step/start',
      ...(withHeader ? ['user/message', 'request/header'] : []),
      'request/start',
      'assistant/chunk',
      'assistant/message',
      // Every decision is logged, automatic ones too (here: the approval mode allowed it).
      'approval/decided',
      'tool/call',
      'tool/result',
      'step/end',
    ]
    expect(typesFrom(h.session, start)).toEqual([
      'inbox/queued',
      'turn/start',
      'inbox/claimed',
      ...toolStep(true),
      ...toolStep(false),
      ...toolStep(false),
      'step/start',
      'request/start',
      'assistant/chunk',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
    expect(readFileSync(join(h.projectDir, 'a.txt'), 'utf8')).toBe('there is a fix here\n')
    const results = h.session.slice().filter((e) => e.type === 'tool/result')
    expect(results.map((e) => e.data)).toMatchObject([
      { ok: true, output: 'there is a bug here\n' },
      { ok: true, output: 'edited a.txt' },
      { ok: true, output: '1 passed' },
    ])
    const answer = h.session.slice().findLast((e) => e.type === 'assistant/message')
    expect(answer?.data).toMatchObject({
      blocks: [{ type: 'text', text: 'Fixed the bug; the tests pass.' }],
      finish: 'stop',
      usage: { inputTokens: 120, outputTokens: 9 },
    })
    expect(h.session.slice().at(-1)?.data).toEqual({ reason: 'completed' })
  })

  it('sends the model exactly what the log says it was sent, for every request', async () => {
    h = await startHarness([
      call('read', { path: 'a.txt' }),
      'It says there is a bug.',
      call('read', { path: 'a.txt' }, 'c2'),
      'Still a bug.',
    ])
    h.agent.send({ requestId: 'r1', text: 'read a.txt' })
    await h.agent.runUntilIdle()
    h.agent.send({ requestId: 'r2', text: 'again please' })
    await h.agent.runUntilIdle()
    const events = h.session.slice()
    const starts = events.filter((e) => e.type === 'request/start')
    const sent = h.server.requests.filter((r) => r.path.endsWith('/chat/completions'))
    expect(sent).toHaveLength(starts.length)
    starts.forEach((start, i) => {
      const header = events[start.data.headerSeq]
      if (header?.type !== 'request/header') throw new Error('no header')
      const rebuilt = toChatCompletionParams({
        model: start.data.model,
        messages: deriveMessagesAt(events, start.seq),
        tools: header.data.tools,
        params: start.data.params,
        ...(start.data.wire === undefined ? {} : { wire: start.data.wire }),
      })
      const body = sent[i]?.body as { messages: unknown; tools?: unknown }
      expect(body.messages).toEqual(JSON.parse(JSON.stringify(rebuilt.messages)))
      expect(body.tools).toEqual(JSON.parse(JSON.stringify(rebuilt.tools)))
    })
    // Each request extends the one before: the prefix a local server caches stays valid.
    for (let i = 1; i < sent.length; i++) {
      const previous = (sent[i - 1]?.body as { messages: unknown[] }).messages
      const current = (sent[i]?.body as { messages: unknown[] }).messages
      expect(current.slice(0, previous.length)).toEqual(previous)
    }
    expect(sent).toHaveLength(4)
  })

  it('assembles tool-call arguments split at every byte boundary identically', async () => {
    const args = JSON.stringify({ path: 'naïve/漢字.txt', note: 'ok 🚀', n: 12 })
    const bytes = Buffer.byteLength(args)
    const script = []
    for (let at = 1; at < bytes; at++) {
      script.push({
        steps: [{ toolCall: { id: `c${at}`, name: 'nope', args } }, { finish: 'tool_calls' }],
        wireChunkBytes: at,
      })
      script.push('ok')
    }
    h = await startHarness(script)
    for (let at = 1; at < bytes; at++) {
      h.agent.send({ requestId: `r${at}`, text: `split at ${at}` })
      await h.agent.runUntilIdle()
    }
    const calls = h.session
      .slice()
      .flatMap((e) =>
        e.type === 'assistant/message' ? e.data.blocks.filter((b) => b.type === 'tool-call') : [],
      )
    expect(calls).toHaveLength(bytes - 1)
    for (const block of calls) expect(block).toMatchObject({ name: 'nope', args })
  })

  it('never runs a tool call of a reply cut off at max tokens, says so, and lets the model redo it once', async () => {
    const cut = {
      steps: [
        { text: 'Let me read ' },
        { toolCall: { id: 'c1', name: 'edit', args: '{"path":"a.t' } },
        { finish: 'length' },
      ],
    }
    h = await startHarness([cut, call('read', { path: 'a.txt' }, 'c2'), 'It says there is a bug.'])
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    const events = h.session.slice()
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.data.name)).toEqual(['read'])
    const message = events.find((e) => e.type === 'assistant/message')
    expect(message?.data).toMatchObject({
      blocks: [{ type: 'text', text: 'Let me read ' }],
      finish: 'max-tokens',
    })
    expect(events.find((e) => e.type === 'step/end')?.data).toEqual({ reason: 'max-tokens' })
    expect(events.find((e) => e.type === 'notice')?.data).toMatchObject({
      level: 'warning',
      code: OUTPUT_TRUNCATED,
      message: expect.stringContaining('its tool call (edit) did not run'),
    })
    // The model hears it in its next request, right after its cut reply.
    const second = chatRequests(h.server)[1]?.body as {
      messages: { role: string; content: string }[]
    }
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: CUT_REPLY_NOTICE })
    expect(readFileSync(join(h.projectDir, 'a.txt'), 'utf8')).toBe('there is a bug here\n')
  })

  it('ends the turn when a reply is cut with calls in it a second time', async () => {
    const cut = {
      steps: [{ toolCall: { name: 'edit', args: '{"path":"a.t' } }, { finish: 'length' }],
    }
    h = await startHarness([cut, cut])
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome).toMatchObject({ reason: 'error', error: { code: OUTPUT_TRUNCATED } })
    expect(typesFrom(h.session)).not.toContain('tool/call')
    expect(chatRequests(h.server)).toHaveLength(2)
  })

  it('keeps a reply cut without calls as the answer, and tells the user it was cut', async () => {
    h = await startHarness([
      { steps: [{ text: 'The long answer goes on and' }, { finish: 'length' }] },
    ])
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    expect(h.session.slice().find((e) => e.type === 'notice')?.data).toEqual({
      level: 'warning',
      code: OUTPUT_TRUNCATED,
      message: 'the answer was cut at the output limit',
    })
    expect(chatRequests(h.server)).toHaveLength(1)
  })

  it('on cancel mid-stream keeps what streamed as an interrupted message and runs nothing', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    h = await startHarness([
      {
        steps: [
          { text: 'I will edit ' },
          { wait: held },
          { toolCall: { id: 'c1', name: 'edit', args: '{}' } },
          { finish: 'tool_calls' },
        ],
      },
    ])
    h.agent.onDelta(({ delta }) => {
      if (delta.kind === 'text') h?.agent.cancel()
    })
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    release()
    expect(outcome?.reason).toBe('cancelled')
    const types = typesFrom(h.session)
    expect(types).not.toContain('tool/call')
    const message = h.session.slice().find((e) => e.type === 'assistant/message')
    expect(message?.data).toMatchObject({
      blocks: [{ type: 'text', text: 'I will edit ' }],
      interrupted: true,
    })
    expect(types.slice(-2)).toEqual(['step/end', 'turn/end'])
    expect(h.session.slice().at(-1)?.data).toEqual({ reason: 'cancelled' })
  })

  it('gives two calls with one id in one reply their own ids, says so, and runs both', async () => {
    h = await startHarness([
      {
        steps: [
          { toolCall: { id: 'call_0', name: 'read', args: '{"path":"a.txt"}' } },
          { toolCall: { id: 'call_0', name: 'read', args: '{"path":"a.txt"}' } },
          { finish: 'tool_calls' },
        ],
      },
      'Read it twice.',
    ])
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    const events = h.session.slice()
    const results = events.flatMap((e) => (e.type === 'tool/result' ? [e.data.callId] : []))
    expect(results).toEqual(['call_0', 'call_0_2'])
    const notice = events.find((e) => e.type === 'notice')
    expect(notice?.data).toMatchObject({ code: 'DUPLICATE_CALL_ID', level: 'info' })
    // The model is sent back the ids the log holds, so each result answers its own call.
    const request = deriveMessagesAt(events, events.length)
    const ids = request.flatMap((m) =>
      m.role === 'tool'
        ? [m.callId]
        : m.role === 'assistant'
          ? m.blocks.flatMap((b) => (b.type === 'tool-call' ? [b.callId] : []))
          : [],
    )
    expect(ids).toEqual(['call_0', 'call_0_2', 'call_0', 'call_0_2'])
  })

  it('ignores a second send with the same requestId', async () => {
    h = await startHarness(['one answer'])
    expect(h.agent.send({ requestId: 'same', text: 'hi' })).toEqual({ accepted: true })
    expect(h.agent.send({ requestId: 'same', text: 'hi' })).toEqual({ accepted: false })
    const outcomes = await h.agent.runUntilIdle()
    expect(outcomes).toHaveLength(1)
    expect(typesFrom(h.session).filter((t) => t === 'inbox/queued')).toHaveLength(1)
  })

  it('claims input sent during a turn at the next step (steering)', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    h = await startHarness([
      {
        steps: [
          { wait: held },
          { toolCall: { id: 'c1', name: 'read', args: '{"path":"a.txt"}' } },
          { finish: 'tool_calls' },
        ],
      },
      'Understood, stopping after the read.',
    ])
    h.agent.send({ requestId: 'r1', text: 'read a.txt' })
    const running = h.agent.runUntilIdle()
    while (h.server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    h.agent.send({ requestId: 'r2', text: 'actually, only read it' })
    release()
    const outcomes = await running
    expect(outcomes).toHaveLength(1)
    const claims = h.session.slice().filter((e) => e.type === 'inbox/claimed')
    expect(claims.map((e) => [e.data.requestIds, e.turn])).toEqual([
      [['r1'], 1],
      [['r2'], 1],
    ])
    const second = h.server.requests[1]?.body as { messages: { role: string; content: unknown }[] }
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: 'actually, only read it' })
  })

  it('ends the turn at max steps', async () => {
    h = await startHarness(
      [
        call('read', { path: 'a.txt' }, 'c1'),
        call('read', { path: 'a.txt' }, 'c2'),
        call('read', { path: 'a.txt' }, 'c3'),
      ],
      {
        limits: { maxSteps: 2 },
      },
    )
    h.agent.send({ requestId: 'r1', text: 'loop forever' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('max-steps')
    expect(typesFrom(h.session).filter((t) => t === 'step/start')).toHaveLength(2)
  })

  it('lets a pre-step plugin reject the input: the turn closes with no step', async () => {
    const kernel = new Kernel<LoopEvents>()
    await kernel.load({
      name: 'no-secrets',
      setup: (ctx) =>
        void ctx.on('loop/pre-step', (input, next) =>
          input.claimed.some((c) => c.message.includes('password'))
            ? { action: 'reject', reason: 'the input looks like it contains a password' }
            : next(input),
        ),
    })
    h = await startHarness([], { kernel })
    h.agent.send({ requestId: 'r1', text: 'my password is hunter2' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome).toMatchObject({ reason: 'rejected', error: { code: 'INPUT_REJECTED' } })
    expect(typesFrom(h.session)).not.toContain('step/start')
    expect(h.server.requests).toHaveLength(0)
  })
})

describe('limits, restarts and request observers', () => {
  it('ends a turn that runs past its wall time with max-time', async () => {
    h = await startHarness(
      [{ steps: [{ text: 'thinking…' }, { sleepMs: 5000 }, { text: 'late' }] }],
      {
        limits: { maxWallMs: 200 },
      },
    )
    h.agent.send({ requestId: 'r1', text: 'go' })
    const started = Date.now()
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('max-time')
    expect(Date.now() - started).toBeLessThan(4000)
    expect(h.session.slice().find((e) => e.type === 'assistant/message')?.data).toMatchObject({
      interrupted: true,
    })
  })

  it('claims input that was queued before a restart', async () => {
    h = await startHarness(['answered after the restart'])
    h.agent.send({ requestId: 'r1', text: 'queued, then the app quit', wake: true })
    h.session.close()
    const { Session } = await import('../../../main/core/log/index.js')
    const { Agent } = await import('../../../main/core/loop/agent.js')
    const { createOpenAiCompatibleAdapter } =
      await import('../../../main/core/models/openai-compatible.js')
    const reopened = Session.open(h.home.open(), h.session.id)
    expect(reopened.queuedInput().map((q) => q.requestId)).toEqual(['r1'])
    const agent = new Agent({
      session: reopened,
      adapter: createOpenAiCompatibleAdapter({ baseUrl: h.server.url }),
      model: 'scripted',
      tools: { specs: () => [], runCalls: () => Promise.resolve({}) },
      prompt: () => [{ name: 'identity', text: 'x' }],
    })
    const [outcome] = await agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    expect(reopened.queuedInput()).toEqual([])
    reopened.close()
  })

  it('shows observers the frozen request, which they cannot change', async () => {
    const faults: { plugin: string; error: unknown }[] = []
    const kernel = new Kernel<LoopEvents>((fault) => faults.push(fault))
    const seen: unknown[] = []
    await kernel.load({
      name: 'meddler',
      setup: (ctx) =>
        void ctx.on('loop/request', ({ request }) => {
          seen.push(request.messages.length)
          ;(request.messages as unknown[]).push({ role: 'user', content: 'injected' })
        }),
    })
    h = await startHarness(['fine'], { kernel })
    h.agent.send({ requestId: 'r1', text: 'hello' })
    await h.agent.runUntilIdle()
    expect(seen).toEqual([2])
    const sent = h.server.requests[0]?.body as { messages: { content: string }[] }
    expect(sent.messages.map((m) => m.content)).not.toContain('injected')
    expect(faults).toEqual([
      expect.objectContaining({ plugin: 'meddler', error: expect.any(TypeError) }),
    ])
  })
})
