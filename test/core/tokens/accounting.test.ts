import { afterEach, describe, expect, it } from 'vitest'
import type { LogEvent } from '../../../protocol/events.js'
import type { Session } from '../../../main/core/log/index.js'
import {
  calibrationFromLog,
  estimateTokens,
  loadEncoding,
  MESSAGE_OVERHEAD,
  sessionTokens,
} from '../../../main/core/tokens/index.js'
import type { ScriptEntry } from '../../fixtures/model-server/script.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

interface SentBody {
  readonly messages: readonly {
    readonly role: string
    readonly content?: string | null
    readonly tool_calls?: readonly { readonly function: { name: string; arguments: string } }[]
  }[]
  readonly tools?: readonly unknown[]
}

/** A step that reads a.txt, reporting the prompt tokens the server's "own tokenizer" counted. */
/**
 * A step reading a.txt, spelled with `hops` leading `./`: the same file by another path, so a
 * run of them is not one call repeated (which the loop guard stops at the third).
 */
const readStep =
  (promptTokens: (body: SentBody) => number, hops = 0): ScriptEntry =>
  (body) => ({
    steps: [
      { toolCall: { name: 'read', args: JSON.stringify({ path: `${'./'.repeat(hops)}a.txt` }) } },
      { usage: { prompt_tokens: promptTokens(body as SentBody), completion_tokens: 7 } },
      { finish: 'tool_calls' },
    ],
  })

const answer =
  (promptTokens: (body: SentBody) => number): ScriptEntry =>
  (body) => ({
    steps: [
      { text: 'Done.' },
      { usage: { prompt_tokens: promptTokens(body as SentBody), completion_tokens: 2 } },
      { finish: 'stop' },
    ],
  })

type StartEvent = LogEvent & { type: 'request/start' }
type MessageEvent = LogEvent & { type: 'assistant/message' }

const starts = (session: Session): StartEvent[] =>
  session.slice().filter((e): e is StartEvent => e.type === 'request/start')
const answers = (session: Session): MessageEvent[] =>
  session.slice().filter((e): e is MessageEvent => e.type === 'assistant/message')

describe('token accounting in the loop', () => {
  it('logs an exact o200k count with every request, and the server figure beside it', async () => {
    const o200k = loadEncoding('o200k_base')
    // OpenAI's published way of counting a chat prompt: 3 per message plus its text, 3 to reply.
    const serverCount = (body: SentBody) =>
      3 + body.messages.reduce((sum, m) => sum + 3 + o200k(m.content ?? ''), 0)
    const script = [readStep(serverCount), readStep(serverCount), answer(serverCount)]
    h = await startHarness(script, { model: 'gpt-4o' })
    const tokens = sessionTokens(h.session.slice(), 'gpt-4o')
    await h.close()
    h = await startHarness(script, { model: 'gpt-4o', tokens })
    h.agent.send({ requestId: 'r1', text: 'read a.txt a few times' })
    await h.agent.runUntilIdle()

    const sent = starts(h.session)
    const reported = answers(h.session).map((e) => e.data.usage?.inputTokens)
    expect(sent).toHaveLength(3)
    expect(reported).toHaveLength(3)
    const requests = h.server.requests.filter((r) => r.path === '/v1/chat/completions')
    const system = (requests[0]?.body as SentBody).messages[0]?.content ?? ''
    for (const [i, start] of sent.entries()) {
      const estimate = start.data.estimate
      expect(estimate?.method).toBe('o200k_base')
      // The system part is the real tokenizer's count of exactly what was sent, plus framing.
      expect(estimate?.system).toBe(o200k(system) + MESSAGE_OVERHEAD)
      expect(estimate?.tokens).toBe(
        (estimate?.system ?? 0) + (estimate?.tools ?? 0) + (estimate?.history ?? 0) + 3,
      )
      // Exact counts are not scaled by what the server says.
      expect(estimate?.uncalibrated).toBe(estimate?.tokens)
      expect(reported[i]).toBe(serverCount(requests[i]?.body as SentBody))
    }
    // Each request carries the one before it plus a call and its result: the history only grows.
    const history = sent.map((s) => s.data.estimate?.history ?? 0)
    expect(history[1]).toBeGreaterThan(history[0] ?? Infinity)
    expect(history[2]).toBeGreaterThan(history[1] ?? Infinity)
  })

  it('calibrates the estimate of a model without a bundled tokenizer from what the server reports', async () => {
    // A server whose tokenizer splits text 1.6 times as finely as our estimate assumes, with a
    // chat template of its own (heavier message framing, none around tool calls).
    const serverCount = (body: SentBody) =>
      Math.round(
        1.6 *
          body.messages.reduce(
            (sum, m) =>
              sum +
              6 +
              estimateTokens(m.content ?? '') +
              (m.tool_calls ?? []).reduce(
                (calls, c) =>
                  calls + estimateTokens(c.function.name) + estimateTokens(c.function.arguments),
                0,
              ),
            3 + estimateTokens(JSON.stringify(body.tools ?? [])),
          ),
      )
    const script: ScriptEntry[] = [
      ...Array.from({ length: 5 }, (_, i) => readStep(serverCount, i)),
      answer(serverCount),
    ]
    h = await startHarness(script, { model: 'qwen3:8b' })
    const tokens = sessionTokens(h.session.slice(), 'qwen3:8b')
    await h.close()
    h = await startHarness(script, { model: 'qwen3:8b', tokens })
    h.agent.send({ requestId: 'r1', text: 'read a.txt over and over' })
    await h.agent.runUntilIdle()

    const sent = starts(h.session)
    const reported = answers(h.session).map((e) => e.data.usage?.inputTokens ?? 0)
    expect(sent.map((s) => s.data.estimate?.method)).toEqual(Array(6).fill('estimate'))
    const error = (i: number) =>
      Math.abs((sent[i]?.data.estimate?.tokens ?? 0) / (reported[i] ?? 0) - 1)
    // Uncalibrated, the first estimate is far off; after a few reports it tracks the server.
    expect(error(0)).toBeGreaterThan(0.3)
    for (let i = 1; i < sent.length; i++) expect(error(i)).toBeLessThan(0.1)
    expect(tokens.calibration.ratio('qwen3:8b')).toBeGreaterThan(1.3)

    // The log alone rebuilds the same calibration, so a reopened session counts as well.
    const rebuilt = calibrationFromLog(h.session.slice())
    expect(rebuilt.ratio('qwen3:8b')).toBeCloseTo(tokens.calibration.ratio('qwen3:8b'), 10)
    expect(rebuilt.samples('qwen3:8b')).toBe(6)
  })
})
