/**
 * The OpenAI-compatible adapter against the scripted model server over real HTTP: streaming
 * text, reasoning in its three dialects, tool calls however they are chunked, usage and finish
 * reasons, and what the server is sent.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { MISSING_TOOL_NAME } from '../../../main/core/models/chunk-decoder.js'
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import { DEFAULT_PROFILE } from '../../../main/core/models/profile.js'
import type { ModelAdapter } from '../../../main/core/models/types.js'
import { startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'
import type { ScriptedResponse } from '../../fixtures/model-server/script.js'
import { assemble, collect, countingFetch, userRequest } from './helpers.js'

let server: ModelServer
let adapter: ModelAdapter

beforeAll(async () => {
  server = await startModelServer()
  adapter = createOpenAiCompatibleAdapter({ baseUrl: server.url })
})
afterAll(() => server.close())
beforeEach(() => {
  server.requests.length = 0
})

async function streamOne(response: ScriptedResponse | string) {
  server.setScript([response])
  const parts = await collect(adapter)
  return { parts, result: assemble(parts) }
}

/** Arguments with a two-byte, three-byte and four-byte (surrogate pair) character. */
const UNICODE_ARGS = '{"path":"café/漢字.txt","note":"ok 🎉 done","n":[1,2]}'

describe('streaming text and reasoning', () => {
  it('streams text as it arrives and finishes with stop', async () => {
    const { parts, result } = await streamOne({ steps: [{ text: 'Hello, world!' }], chunkSize: 4 })
    expect(parts.filter((p) => p.type === 'text')).toHaveLength(4)
    expect(result).toMatchObject({
      text: 'Hello, world!',
      reasoning: '',
      calls: [],
      finish: 'stop',
    })
  })

  it('reads reasoning from reasoning_content and from reasoning', async () => {
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const { result } = await streamOne({
        steps: [{ reasoning: 'Think first.', field }, { text: 'Answer.' }],
        chunkSize: 3,
      })
      expect(result, field).toMatchObject({
        reasoning: 'Think first.',
        text: 'Answer.',
        finish: 'stop',
      })
    }
  })

  it('takes one of the two reasoning fields when a server sends both', async () => {
    const { result } = await streamOne({
      steps: [{ delta: { reasoning_content: 'once', reasoning: 'once' } }, { text: 'x' }],
    })
    expect(result.reasoning).toBe('once')
  })

  it('splits inline <think> tags from the answer, split at every position', async () => {
    const thought = 'Hmm </t> is not a close tag.'
    const wire = `<think>${thought}</think>\n\nHi!`
    for (let at = 1; at < wire.length; at++) {
      server.setScript([{ steps: [{ think: thought }, { text: '\n\nHi!' }], splitAt: [at] }])
      const result = assemble(await collect(adapter))
      expect(result, `split at ${at}`).toMatchObject({
        reasoning: thought,
        text: 'Hi!',
        finish: 'stop',
      })
    }
  })

  it('ignores SSE comments and empty chunks', async () => {
    const { result } = await streamOne({
      steps: [
        { comment: 'keepalive' },
        { delta: {} },
        { text: 'a' },
        { comment: 'ping' },
        { text: 'b' },
      ],
    })
    expect(result).toMatchObject({ text: 'ab', finish: 'stop' })
  })

  it('decodes multi-byte characters split across network packets', async () => {
    const text = 'naïve 漢字 🎉 ok'
    const counter = countingFetch()
    const counted = createOpenAiCompatibleAdapter({ baseUrl: server.url }, { fetch: counter.fetch })
    server.setScript([{ steps: [{ text }], chunkSize: 1, wireChunkBytes: 1 }])
    const result = assemble(await collect(counted))
    expect(result.text).toBe(text)
    // The packets really arrived apart: nearly one read per byte.
    expect(counter.reads()).toBeGreaterThan(counter.bytes() * 0.9)
  })
})

describe('tool calls', () => {
  it('assembles arguments split at every byte boundary identically', async () => {
    const bytes = Buffer.byteLength(UNICODE_ARGS)
    for (let at = 1; at < bytes; at++) {
      server.setScript([
        {
          steps: [{ toolCall: { id: 'call_a', name: 'read', args: UNICODE_ARGS } }],
          splitAt: [at],
        },
      ])
      const result = assemble(await collect(adapter))
      expect(result.calls, `split at byte ${at}`).toEqual([
        { index: 0, callId: 'call_a', name: 'read', args: UNICODE_ARGS },
      ])
      expect(result.finish).toBe('tool-calls')
    }
  })

  it('assembles arguments sent one UTF-16 unit per chunk and one byte per packet', async () => {
    const { parts, result } = await streamOne({
      steps: [{ toolCall: { id: 'call_a', name: 'read', args: UNICODE_ARGS } }],
      chunkSize: 1,
      wireChunkBytes: 1,
    })
    expect(parts.filter((p) => p.type === 'tool-call-delta')).toHaveLength(UNICODE_ARGS.length)
    expect(result.calls[0]?.args).toBe(UNICODE_ARGS)
  })

  it('keeps two tool calls apart when their deltas interleave by index', async () => {
    const { result } = await streamOne({
      steps: [
        { text: 'Reading both.' },
        {
          delta: {
            tool_calls: [
              {
                index: 0,
                id: 'call_x',
                type: 'function',
                function: { name: 'read', arguments: '' },
              },
            ],
          },
        },
        {
          delta: {
            tool_calls: [
              {
                index: 1,
                id: 'call_y',
                type: 'function',
                function: { name: 'grep', arguments: '{"q":' },
              },
            ],
          },
        },
        { delta: { tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] } },
        { delta: { tool_calls: [{ index: 1, function: { arguments: '"é"}' } }] } },
        { delta: { tool_calls: [{ index: 0, function: { arguments: '"a.ts"}' } }] } },
        { finish: 'tool_calls' },
      ],
    })
    expect(result.text).toBe('Reading both.')
    expect(result.calls).toEqual([
      { index: 0, callId: 'call_x', name: 'read', args: '{"path":"a.ts"}' },
      { index: 1, callId: 'call_y', name: 'grep', args: '{"q":"é"}' },
    ])
  })

  it('handles several calls in one delta, and whole calls in one delta each', async () => {
    const both = await streamOne({
      steps: [
        {
          delta: {
            tool_calls: [
              { index: 0, id: 'c0', function: { name: 'a', arguments: '{}' } },
              { index: 1, id: 'c1', function: { name: 'b', arguments: '{"x":1}' } },
            ],
          },
        },
      ],
    })
    expect(both.result.calls.map((c) => [c.index, c.callId, c.name, c.args])).toEqual([
      [0, 'c0', 'a', '{}'],
      [1, 'c1', 'b', '{"x":1}'],
    ])

    const { parts, result } = await streamOne({
      steps: [
        { toolCall: { name: 'read', args: UNICODE_ARGS } },
        { toolCall: { name: 'list', args: '{"path":"."}' } },
      ],
      nonStreamedToolCalls: true,
    })
    expect(parts.filter((p) => p.type === 'tool-call-delta')).toHaveLength(2)
    expect(result.calls.map((c) => [c.name, c.args])).toEqual([
      ['read', UNICODE_ARGS],
      ['list', '{"path":"."}'],
    ])
    expect(result.finish).toBe('tool-calls')
  })

  it('synthesises an id when the server omits it', async () => {
    const { result } = await streamOne({
      steps: [
        { toolCall: { id: null, name: 'read', args: '{}' } },
        { toolCall: { id: null, name: 'read', args: '{}' } },
      ],
    })
    const [first, second] = result.calls
    expect(first?.callId).toMatch(/^call_0_[0-9a-f]{8}$/)
    expect(second?.callId).toMatch(/^call_1_[0-9a-f]{8}$/)
    expect(first?.callId).not.toBe(second?.callId)
  })

  it('waits for a name that arrives after the first arguments', async () => {
    const { parts, result } = await streamOne({
      steps: [
        { delta: { tool_calls: [{ index: 0, id: 'late', function: { arguments: '{"a":' } }] } },
        { delta: { tool_calls: [{ index: 0, function: { name: 'read', arguments: '1}' } }] } },
        { finish: 'tool_calls' },
      ],
    })
    expect(parts[0]).toEqual({ type: 'tool-call-start', index: 0, callId: 'late', name: 'read' })
    expect(result.calls).toEqual([{ index: 0, callId: 'late', name: 'read', args: '{"a":1}' }])
  })

  it('starts a call whose name never came under a name no tool has', async () => {
    const { result } = await streamOne({
      steps: [
        { delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } },
        { finish: 'tool_calls' },
      ],
    })
    expect(result.calls[0]).toMatchObject({ name: MISSING_TOOL_NAME, args: '{}' })
  })

  it('gives a fresh index to a new call that reuses an index', async () => {
    const { result } = await streamOne({
      steps: [
        {
          delta: {
            tool_calls: [{ index: 0, id: 'c1', function: { name: 'a', arguments: '{"n":1}' } }],
          },
        },
        {
          delta: {
            tool_calls: [{ index: 0, id: 'c2', function: { name: 'b', arguments: '{"n":2}' } }],
          },
        },
        { finish: 'tool_calls' },
      ],
    })
    expect(result.calls.map((c) => [c.index, c.callId, c.args])).toEqual([
      [0, 'c1', '{"n":1}'],
      [1, 'c2', '{"n":2}'],
    ])
  })

  it('accepts arguments sent as an object instead of JSON text', async () => {
    const { result } = await streamOne({
      steps: [
        {
          delta: {
            tool_calls: [
              { index: 0, id: 'o', function: { name: 'read', arguments: { path: 'a' } } },
            ],
          },
        },
      ],
    })
    expect(result.calls[0]?.args).toBe('{"path":"a"}')
  })

  it('passes a tool call written as text through as text', async () => {
    const { result } = await streamOne({
      steps: [{ toolCall: { name: 'read', args: '{"path":"a.ts"}' } }],
      toolCallsAsText: true,
      chunkSize: 5,
    })
    expect(result.calls).toEqual([])
    expect(JSON.parse(result.text)).toEqual({ name: 'read', arguments: { path: 'a.ts' } })
    expect(result.finish).toBe('stop')
  })
})

describe('usage and finish reasons', () => {
  it('maps usage from the final chunk with empty choices, before finish', async () => {
    const { parts, result } = await streamOne({
      steps: [
        { text: 'x' },
        { finish: 'stop' },
        {
          usage: {
            prompt_tokens: 120,
            completion_tokens: 30,
            total_tokens: 150,
            completion_tokens_details: { reasoning_tokens: 12 },
            prompt_tokens_details: { cached_tokens: 64 },
          },
        },
      ],
    })
    expect(result.usage).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      reasoningTokens: 12,
      cachedInputTokens: 64,
    })
    expect(parts.slice(-2).map((p) => p.type)).toEqual(['usage', 'finish'])
  })

  it('reports the last usage once when a server repeats it in every chunk', async () => {
    const { parts, result } = await streamOne({
      steps: [
        {
          chunk: {
            choices: [{ index: 0, delta: { content: 'a' } }],
            usage: { prompt_tokens: 5, completion_tokens: 1 },
          },
        },
        {
          chunk: {
            choices: [{ index: 0, delta: { content: 'b' } }],
            usage: { prompt_tokens: 5, completion_tokens: 2 },
          },
        },
      ],
    })
    expect(parts.filter((p) => p.type === 'usage')).toHaveLength(1)
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 2 })
  })

  it('maps each finish reason', async () => {
    const cases: [string, string][] = [
      ['stop', 'stop'],
      ['tool_calls', 'tool-calls'],
      ['function_call', 'tool-calls'],
      ['length', 'max-tokens'],
      ['content_filter', 'content-filter'],
      ['eos_token', 'other'],
    ]
    for (const [wire, reason] of cases) {
      const { result } = await streamOne({ steps: [{ text: 'x' }, { finish: wire }] })
      expect(result.finish, wire).toBe(reason)
    }
  })

  it('reports tool-calls when a server says stop after tool calls', async () => {
    const { result } = await streamOne({
      steps: [{ toolCall: { name: 'read', args: '{}' } }, { finish: 'stop' }],
    })
    expect(result.finish).toBe('tool-calls')
  })

  it('keeps a partial tool call on a length finish (the loop must not run it)', async () => {
    const { result } = await streamOne({
      steps: [
        { toolCall: { id: 'c', name: 'write', args: '{"path":"a.ts","content":"unfini' } },
        { finish: 'length' },
      ],
    })
    expect(result.finish).toBe('max-tokens')
    expect(result.calls[0]?.args).toBe('{"path":"a.ts","content":"unfini')
  })

  it('finishes normally when the server omits [DONE] after the finish reason', async () => {
    const { result } = await streamOne({ steps: [{ text: 'x' }], noDone: true })
    expect(result).toMatchObject({ text: 'x', finish: 'stop' })
  })
})

describe('what the server is sent', () => {
  it('maps messages, tools and parameters onto the chat completions body', async () => {
    server.setScript(['ok'])
    const request = userRequest('unused', {
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'You are Bridle.', seq: 0 },
        { role: 'user', content: 'Read a.ts', seq: 1, kind: 'input' },
        {
          role: 'assistant',
          seq: 2,
          isInterrupted: false,
          blocks: [
            { type: 'reasoning', text: 'I should read it.' },
            { type: 'text', text: 'Reading ' },
            { type: 'text', text: 'it.' },
            { type: 'tool-call', callId: 'call_1', name: 'read', args: '{"path":"a.ts"}' },
          ],
        },
        { role: 'tool', callId: 'call_1', isError: false, content: 'export {}', seq: 3 },
        {
          role: 'assistant',
          seq: 4,
          isInterrupted: false,
          blocks: [{ type: 'tool-call', callId: 'call_2', name: 'list', args: '{}' }],
        },
        {
          role: 'tool',
          callId: 'call_2',
          isError: true,
          content: 'PATH_OUTSIDE_PROJECT: no',
          seq: 5,
        },
        {
          role: 'assistant',
          seq: 6,
          isInterrupted: true,
          blocks: [{ type: 'reasoning', text: 'hmm' }],
        },
        { role: 'user', content: 'Summary so far', seq: 7, kind: 'summary' },
      ],
      tools: [
        {
          name: 'read',
          description: 'Read a file',
          parameters: {
            type: 'object',
            properties: { path: { type: 'string' } },
            required: ['path'],
          },
        },
      ],
      params: { temperature: 0.2, topP: 0.9, maxTokens: 512, stop: ['END'], seed: 7 },
    })
    const parts = await collect(adapter, request)
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
    const [recorded] = server.requests
    expect(recorded?.method).toBe('POST')
    expect(recorded?.path).toBe('/v1/chat/completions')
    expect(recorded?.body).toEqual({
      model: 'qwen3:8b',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 512,
      stop: ['END'],
      seed: 7,
      messages: [
        { role: 'system', content: 'You are Bridle.' },
        { role: 'user', content: 'Read a.ts' },
        {
          role: 'assistant',
          content: 'Reading it.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read', arguments: '{"path":"a.ts"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'export {}' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_2', type: 'function', function: { name: 'list', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_2', content: 'PATH_OUTSIDE_PROJECT: no' },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'Summary so far' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read',
            description: 'Read a file',
            parameters: {
              type: 'object',
              properties: { path: { type: 'string' } },
              required: ['path'],
            },
          },
        },
      ],
    })
  })

  it('leaves out tools and unset parameters', async () => {
    server.setScript(['ok'])
    await collect(adapter, userRequest('hi'))
    expect(server.requests[0]?.body).toEqual({
      model: 'scripted',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    })
  })

  it('sends the API key as a bearer token and the configured headers', async () => {
    server.setScript(['ok'])
    const keyed = createOpenAiCompatibleAdapter({
      baseUrl: server.url,
      apiKey: 'sk-test-secret-123',
      headers: { 'x-team': 'bridle' },
    })
    await collect(keyed)
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test-secret-123')
    expect(server.requests[0]?.headers['x-team']).toBe('bridle')
  })

  it('lets a configured Authorization header, in any case, replace the bearer token', async () => {
    server.setScript(['ok'])
    const gateway = createOpenAiCompatibleAdapter({
      baseUrl: server.url,
      apiKey: 'sk-test-secret-123',
      headers: { Authorization: 'Basic Z2F0ZTp3YXk=' },
    })
    await collect(gateway)
    expect(server.requests[0]?.headers['authorization']).toBe('Basic Z2F0ZTp3YXk=')
  })

  it('sends a placeholder key when there is none, and no OpenAI organisation or project', async () => {
    server.setScript(['ok'])
    await collect(adapter)
    const headers = server.requests[0]?.headers ?? {}
    expect(headers['authorization']).toBe('Bearer not-needed')
    expect(headers['openai-organization']).toBeUndefined()
    expect(headers['openai-project']).toBeUndefined()
  })
})

describe('the native-nonstream mode', () => {
  it('asks without streaming when tools are offered and reads the whole completion as parts', async () => {
    const server = await startModelServer({
      script: [
        {
          steps: [
            { reasoning: 'Read it.' },
            { text: 'Reading.' },
            { toolCall: { id: 'c1', name: 'read', args: '{"path":"a.txt"}' } },
          ],
        },
      ],
    })
    try {
      const adapter = createOpenAiCompatibleAdapter(
        { baseUrl: server.url },
        {
          profile: { ...DEFAULT_PROFILE, wire: { ...DEFAULT_WIRE, toolCalls: 'native-nonstream' } },
        },
      )
      const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }]
      const result = assemble(await collect(adapter, userRequest('read a.txt', { tools })))
      expect(result).toMatchObject({
        text: 'Reading.',
        reasoning: 'Read it.',
        calls: [{ callId: 'c1', name: 'read', args: '{"path":"a.txt"}' }],
        finish: 'tool-calls',
        usage: { inputTokens: 100, outputTokens: 10 },
      })
      const body = server.requests.find((r) => r.method === 'POST')?.body as Record<string, unknown>
      expect(body['stream']).toBe(false)
      expect(body['stream_options']).toBeUndefined()
    } finally {
      await server.close()
    }
  })
})
