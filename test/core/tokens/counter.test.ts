import { describe, expect, it, vi } from 'vitest'
import { deepFreeze } from '../../../main/core/log/freeze.js'
import type { Message } from '../../../main/core/log/messages.js'
import type { ToolSpec } from '../../../main/core/models/types.js'
import {
  Calibration,
  estimateTokens,
  loadEncoding,
  makeTokenCounter,
  MESSAGE_OVERHEAD,
  REPLY_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  tokenCounter,
  TOOLS_OVERHEAD,
} from '../../../main/core/tokens/index.js'
import type { TextTokenizer } from '../../../main/core/tokens/index.js'

const long = (seed: string): string => `${seed} `.repeat(100)

function conversation(): Message[] {
  return [
    { role: 'system', content: long('You are a careful coding agent.'), seq: 1 },
    { role: 'user', content: 'Fix the failing test in src/add.ts', seq: 2, kind: 'input' },
    {
      role: 'assistant',
      seq: 3,
      isInterrupted: false,
      blocks: [
        { type: 'reasoning', text: long('Let me think about where the bug could be.') },
        { type: 'text', text: 'Reading the file first.' },
        { type: 'tool-call', callId: 'c1', name: 'read', args: '{"path":"src/add.ts"}' },
      ],
    },
    { role: 'tool', callId: 'c1', isError: false, content: long('export const add = 1'), seq: 4 },
  ]
}

const tools: ToolSpec[] = [
  {
    name: 'read',
    // As long as a real tool's: schemas of 256+ characters are cached by content.
    description:
      'Reads a text file of the project and returns its lines with line numbers. Use offset and ' +
      'limit to page through a long file; binary files are refused.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
]

/** The estimate behind a spy, so a test sees every text that was tokenized. */
function spyTokenizer(): TextTokenizer & { countText: ReturnType<typeof vi.fn> } {
  return { kind: 'estimate', encoding: null, countText: vi.fn(estimateTokens) }
}

describe('countMessages', () => {
  it('keeps the tools count while the list holds the same frozen specs; recounts a changed list', () => {
    const counter = tokenCounter('qwen2.5-coder:7b')
    const messages = conversation()
    const frozen = deepFreeze(structuredClone(tools))
    const first = counter.countMessages(messages, frozen).tools
    expect(counter.countMessages(messages, [...frozen]).tools).toBe(first)
    expect(counter.countMessages(messages, frozen.slice(1)).tools).toBeLessThan(first)
    // Specs that are not frozen may change between calls: always counted again.
    const open = structuredClone(tools)
    const before = counter.countMessages(messages, open).tools
    const spec = open[0] as { description: string }
    spec.description += ` ${'longer '.repeat(40)}`
    expect(counter.countMessages(messages, open).tools).toBeGreaterThan(before)
  })

  it('splits the prompt into system, tools and history, framing included', () => {
    const counter = tokenCounter('qwen2.5-coder:7b')
    const messages = conversation()
    const count = counter.countMessages(messages, tools)
    expect(count.perMessage).toHaveLength(4)
    expect(count.system).toBe(count.perMessage[0])
    expect(count.history).toBe(count.perMessage.slice(1).reduce((a, b) => a + b, 0))
    expect(count.total).toBe(count.system + count.tools + count.history + REPLY_OVERHEAD)
    expect(count.uncalibrated).toBe(count.total)
    expect(count.perMessage[1]).toBe(
      MESSAGE_OVERHEAD + counter.count('Fix the failing test in src/add.ts'),
    )
    expect(count.tools).toBe(
      TOOLS_OVERHEAD +
        counter.count(
          JSON.stringify({
            name: 'read',
            description: tools[0]?.description,
            parameters: tools[0]?.parameters,
          }),
        ),
    )
    expect(counter.countMessages(messages).tools).toBe(0)
    expect(counter.countMessages([]).total).toBe(REPLY_OVERHEAD)
  })

  it('counts tool calls but not reasoning, which is not sent back', () => {
    const counter = tokenCounter('gpt-4o')
    const [, , assistant] = conversation()
    if (assistant?.role !== 'assistant') throw new Error('fixture')
    const [count] = counter.countMessages([assistant]).perMessage
    expect(count).toBe(
      MESSAGE_OVERHEAD +
        counter.count('Reading the file first.') +
        TOOL_CALL_OVERHEAD +
        counter.count('read') +
        counter.count('{"path":"src/add.ts"}'),
    )
  })

  it('counts exactly for an OpenAI model', () => {
    const count = tokenCounter('gpt-4.1').countMessages([
      { role: 'user', content: 'tiktoken is great!', seq: 1, kind: 'input' },
    ])
    expect(count.total).toBe(MESSAGE_OVERHEAD + 6 + REPLY_OVERHEAD)
  })
})

describe('caching', () => {
  it('tokenizes nothing again when the same frozen messages are counted twice', () => {
    const tokenizer = spyTokenizer()
    const counter = makeTokenCounter('llama3.1:8b', tokenizer)
    const messages = deepFreeze(conversation())
    const first = counter.countMessages(messages, tools)
    const calls = tokenizer.countText.mock.calls.length
    expect(calls).toBeGreaterThan(0)
    // The next step's history: the same objects plus one new message.
    const next = [
      ...messages,
      deepFreeze<Message>({ role: 'user', content: 'thanks', seq: 5, kind: 'input' }),
    ]
    const second = counter.countMessages(next, tools)
    expect(tokenizer.countText.mock.calls.length - calls).toBe(1)
    expect(second.perMessage.slice(0, 4)).toEqual(first.perMessage)
    counter.countMessages(next, tools)
    expect(tokenizer.countText.mock.calls.length - calls).toBe(1)
  })

  it('recognises long texts by content when the message objects are new', () => {
    const tokenizer = spyTokenizer()
    const counter = makeTokenCounter('llama3.1:8b', tokenizer)
    counter.countMessages(conversation())
    const longTexts = (): number =>
      tokenizer.countText.mock.calls.filter(([text]) => String(text).length >= 256).length
    const before = longTexts()
    expect(before).toBe(2)
    // Unfrozen copies: not trusted by identity, but their long contents are already counted.
    const again = counter.countMessages(conversation())
    expect(longTexts()).toBe(before)
    expect(again.total).toBe(counter.countMessages(conversation()).total)
  })

  it('does not trust an unfrozen message that changed', () => {
    const counter = tokenCounter('mistral-small')
    const message = { role: 'user' as const, content: 'short', seq: 1, kind: 'input' as const }
    const before = counter.countMessages([message]).total
    message.content = long('now much longer')
    expect(counter.countMessages([message]).total).toBeGreaterThan(before)
  })

  it('makes re-counting a long history free with an exact encoding too', () => {
    const countText = vi.fn(loadEncoding('o200k_base'))
    const counter = makeTokenCounter('gpt-4o', { kind: 'exact', encoding: 'o200k_base', countText })
    const history = deepFreeze(
      Array.from({ length: 200 }, (_, i): Message => ({
        role: 'tool',
        callId: `c${i}`,
        isError: false,
        content: `line ${i} of a long tool output\n`.repeat(50 + i),
        seq: i,
      })),
    )
    const first = counter.countMessages(history)
    expect(countText).toHaveBeenCalledTimes(200)
    expect(counter.countMessages(history)).toEqual(first)
    expect(countText).toHaveBeenCalledTimes(200)
    expect(first.total).toBe(first.history + REPLY_OVERHEAD)
  })
})

describe('calibration in the counter', () => {
  it('scales estimates by the learnt ratio and leaves exact counts alone', () => {
    const calibration = new Calibration()
    for (let i = 0; i < 5; i++) calibration.observe('llama3.1:8b', 1000, 1500)
    for (let i = 0; i < 5; i++) calibration.observe('gpt-4o', 1000, 1500)
    const estimate = tokenCounter('llama3.1:8b', { calibration })
    const plain = tokenCounter('llama3.1:8b')
    const text = long('some words to count')
    expect(estimate.count(text)).toBe(Math.round(plain.count(text) * 1.5))
    const messages = deepFreeze(conversation())
    const scaled = estimate.countMessages(messages, tools)
    const raw = plain.countMessages(messages, tools)
    expect(scaled.uncalibrated).toBe(raw.total)
    expect(scaled.total / raw.total).toBeCloseTo(1.5, 1)
    expect(scaled.total).toBe(
      scaled.system + scaled.tools + scaled.history + Math.round(REPLY_OVERHEAD * 1.5),
    )

    const exact = tokenCounter('gpt-4o', { calibration })
    expect(exact.count('tiktoken is great!')).toBe(6)
  })

  it('brings the estimate to what the server reports', () => {
    const calibration = new Calibration()
    const counter = tokenCounter('deepseek-r1:14b', { calibration })
    const messages = deepFreeze(conversation())
    // A server whose tokenizer and template cost 30% more than our estimate.
    const reported = Math.round(counter.countMessages(messages, tools).uncalibrated * 1.3)
    for (let i = 0; i < 10; i++) {
      const { uncalibrated } = counter.countMessages(messages, tools)
      calibration.observe('deepseek-r1:14b', uncalibrated, reported)
    }
    const { total } = counter.countMessages(messages, tools)
    expect(Math.abs(total - reported) / reported).toBeLessThan(0.02)
  })
})
