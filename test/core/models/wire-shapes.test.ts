import { describe, expect, it } from 'vitest'
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import type { WireSettings } from '../../../protocol/events.js'
import type { Message } from '../../../main/core/log/messages.js'
import {
  REASONING_PLACEHOLDER,
  toChatCompletionParams,
} from '../../../main/core/models/chat-request.js'
import {
  OllamaStreamError,
  ollamaLineToChunk,
  toOllamaChatBody,
} from '../../../main/core/models/ollama-request.js'
import type { ModelRequest, ToolSpec } from '../../../main/core/models/types.js'

const READ: ToolSpec = {
  name: 'read',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}

/** A turn with reasoning and a call, a context message, a call without reasoning, an answer. */
const HISTORY: readonly Message[] = [
  { role: 'system', content: 'You are Bridle.', seq: 1 },
  { role: 'user', content: 'Read a.ts', seq: 2, kind: 'input' },
  {
    role: 'assistant',
    blocks: [
      { type: 'reasoning', text: 'I need the file.' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', callId: 'c1', name: 'read', args: '{"path":"a.ts"}' },
    ],
    seq: 3,
    isInterrupted: false,
  },
  { role: 'tool', callId: 'c1', isError: false, content: 'export {}', seq: 4 },
  { role: 'user', content: 'The time is 10:00.', seq: 5, kind: 'context' },
  {
    role: 'assistant',
    blocks: [{ type: 'tool-call', callId: 'c2', name: 'read', args: 'not json' }],
    seq: 6,
    isInterrupted: false,
  },
  { role: 'tool', callId: 'c2', isError: true, content: 'INVALID_ARGUMENTS: bad', seq: 7 },
  { role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }], seq: 8, isInterrupted: false },
]

function request(
  wire: WireSettings | undefined,
  overrides: Partial<ModelRequest> = {},
): ModelRequest {
  return {
    model: 'm',
    messages: HISTORY,
    tools: [READ],
    params: {},
    ...(wire === undefined ? {} : { wire }),
    ...overrides,
  }
}

const wireWith = (settings: Partial<WireSettings>): WireSettings => ({
  ...DEFAULT_WIRE,
  ...settings,
})
const OLLAMA: WireSettings = wireWith({ api: 'ollama', streamUsage: false })

describe('toChatCompletionParams', () => {
  it('streams with stream_options and native tools by default', () => {
    const params = toChatCompletionParams(request(undefined))
    expect(params.stream).toBe(true)
    expect(params.stream_options).toEqual({ include_usage: true })
    expect(params.tools).toEqual([
      {
        type: 'function',
        function: { name: 'read', description: 'Reads a file.', parameters: READ.parameters },
      },
    ])
  })

  it('sends stream_options only when streamUsage is on', () => {
    expect(
      toChatCompletionParams(request(wireWith({ streamUsage: false }))).stream_options,
    ).toBeUndefined()
  })

  it('does not stream native-nonstream requests that have tools, and streams those without', () => {
    const wire = wireWith({ toolCalls: 'native-nonstream' })
    const withTools = toChatCompletionParams(request(wire))
    expect(withTools.stream).toBe(false)
    expect(withTools.stream_options).toBeUndefined()
    expect(withTools.tools).toHaveLength(1)
    const without = toChatCompletionParams(request(wire, { tools: [] }))
    expect(without.stream).toBe(true)
    expect(without.stream_options).toEqual({ include_usage: true })
    expect(without.tools).toBeUndefined()
  })

  it('maps the sampling parameters', () => {
    const params = toChatCompletionParams(
      request(undefined, {
        params: { temperature: 0.2, topP: 0.9, maxTokens: 64, stop: ['X'], seed: 7 },
      }),
    )
    expect(params).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      stop: ['X'],
      seed: 7,
    })
  })

  describe('in text mode', () => {
    const params = toChatCompletionParams(request(wireWith({ toolCalls: 'text' })))
    const messages = params.messages as { role: string; content: string }[]

    it('sends no tools, and describes them in the system message', () => {
      expect(params.tools).toBeUndefined()
      expect(messages[0]?.role).toBe('system')
      expect(messages[0]?.content.startsWith('You are Bridle.\n\n# Tool calls')).toBe(true)
      expect(messages[0]?.content).toContain('- read(path: string)\n  Reads a file.')
    })

    it('writes calls back as <tool_call> blocks and results as <tool_response> user messages', () => {
      expect(messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ])
      expect(messages[2]?.content).toBe(
        'Reading.\n<tool_call>\n{"name":"read","arguments":{"path":"a.ts"}}\n</tool_call>',
      )
      expect(messages[4]?.content).toBe(
        '<tool_call>\n{"name":"read","arguments":"not json"}\n</tool_call>',
      )
      expect(messages[5]?.content).toBe(
        '<tool_response>\n{"name":"read"}\nINVALID_ARGUMENTS: bad\n</tool_response>',
      )
    })

    it('merges a tool result and the user message after it into one user message', () => {
      expect(messages[3]?.content).toBe(
        '<tool_response>\n{"name":"read"}\nexport {}\n</tool_response>\n\nThe time is 10:00.',
      )
    })
  })

  it('sends reasoning back with replayReasoning, a placeholder for a call turn without any', () => {
    const params = toChatCompletionParams(request(wireWith({ replayReasoning: true })))
    const assistants = params.messages.filter((message) => message.role === 'assistant')
    expect(assistants).toEqual([
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
        ],
        reasoning_content: 'I need the file.',
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c2', type: 'function', function: { name: 'read', arguments: 'not json' } },
        ],
        reasoning_content: REASONING_PLACEHOLDER,
      },
      { role: 'assistant', content: 'Done.' },
    ])
    expect(REASONING_PLACEHOLDER).toBe(' ')
  })

  it('leaves reasoning out without replayReasoning', () => {
    const params = toChatCompletionParams(request(undefined))
    expect(JSON.stringify(params.messages)).not.toContain('reasoning')
    expect(JSON.stringify(params.messages)).not.toContain('I need the file.')
  })
})

describe('toOllamaChatBody', () => {
  it('puts num_ctx, num_predict and the sampling parameters in options', () => {
    const body = toOllamaChatBody(
      request(
        { ...OLLAMA, numCtx: 16384 },
        { params: { maxTokens: 512, temperature: 0.1, topP: 0.8, stop: ['</s>'], seed: 3 } },
      ),
    )
    expect(body['options']).toEqual({
      num_ctx: 16384,
      num_predict: 512,
      temperature: 0.1,
      top_p: 0.8,
      stop: ['</s>'],
      seed: 3,
    })
    expect(body['stream']).toBe(true)
    expect(body).not.toHaveProperty('stream_options')
  })

  it('sends no options when there are none, and streams by default', () => {
    const body = toOllamaChatBody(request(undefined))
    expect(body).not.toHaveProperty('options')
    expect(body['stream']).toBe(true)
  })

  it('sends tool arguments as objects, tool_name on results, and no reasoning', () => {
    const body = toOllamaChatBody(request(OLLAMA))
    expect(body['messages']).toEqual([
      { role: 'system', content: 'You are Bridle.' },
      { role: 'user', content: 'Read a.ts' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ function: { name: 'read', arguments: { path: 'a.ts' } } }],
      },
      { role: 'tool', content: 'export {}', tool_name: 'read' },
      { role: 'user', content: 'The time is 10:00.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'read', arguments: {} } }],
      },
      { role: 'tool', content: 'INVALID_ARGUMENTS: bad', tool_name: 'read' },
      { role: 'assistant', content: 'Done.' },
    ])
    expect(body['tools']).toEqual([
      {
        type: 'function',
        function: { name: 'read', description: 'Reads a file.', parameters: READ.parameters },
      },
    ])
  })

  it('leaves tool_name out for a result whose call is not in the history', () => {
    const messages: Message[] = [
      { role: 'tool', callId: 'gone', isError: false, content: 'x', seq: 1 },
    ]
    expect(toOllamaChatBody(request(OLLAMA, { messages }))['messages']).toEqual([
      { role: 'tool', content: 'x' },
    ])
  })

  it('does not stream native-nonstream requests with tools, and uses text mode when asked', () => {
    expect(toOllamaChatBody(request({ ...OLLAMA, toolCalls: 'native-nonstream' }))['stream']).toBe(
      false,
    )
    const text = toOllamaChatBody(request({ ...OLLAMA, toolCalls: 'text' }))
    expect(text).not.toHaveProperty('tools')
    expect(JSON.stringify(text['messages'])).toContain('<tool_response>')
  })
})

describe('ollamaLineToChunk', () => {
  it('maps content and thinking to a delta with reasoning', () => {
    const line = { message: { role: 'assistant', content: 'Hi', thinking: 'hmm' }, done: false }
    expect(ollamaLineToChunk(line, { value: 0 })).toEqual({
      choices: [{ index: 0, delta: { content: 'Hi', reasoning: 'hmm' }, finish_reason: null }],
    })
  })

  it('gives calls running indexes across the lines of a stream', () => {
    const next = { value: 0 }
    const call = (name: string, id?: string) => ({
      ...(id === undefined ? {} : { id }),
      function: { name, arguments: { path: name } },
    })
    const first = ollamaLineToChunk({ message: { tool_calls: [call('a', 'x1'), call('b')] } }, next)
    const second = ollamaLineToChunk({ message: { tool_calls: [call('c')] } }, next)
    expect(first).toEqual({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: 'x1',
                type: 'function',
                function: { name: 'a', arguments: { path: 'a' } },
              },
              { index: 1, type: 'function', function: { name: 'b', arguments: { path: 'b' } } },
            ],
          },
          finish_reason: null,
        },
      ],
    })
    expect(second).toMatchObject({ choices: [{ delta: { tool_calls: [{ index: 2 }] } }] })
    expect(next.value).toBe(3)
  })

  it('turns the done line into a finish reason and usage', () => {
    const done = {
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'length',
      prompt_eval_count: 4096,
      eval_count: 20,
    }
    expect(ollamaLineToChunk(done, { value: 0 })).toEqual({
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 4096, completion_tokens: 20 },
    })
    expect(ollamaLineToChunk({ done: true }, { value: 0 })).toEqual({
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: {},
    })
  })

  it('throws OllamaStreamError with the server message for an error line', () => {
    expect(() =>
      ollamaLineToChunk({ error: 'model runner has unexpectedly stopped' }, { value: 0 }),
    ).toThrow(new OllamaStreamError('model runner has unexpectedly stopped'))
    try {
      ollamaLineToChunk({ error: { message: 'out of memory' } }, { value: 0 })
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(OllamaStreamError)
      expect((error as OllamaStreamError).serverMessage).toBe('out of memory')
    }
  })

  it('returns a line that is not an object as it is', () => {
    expect(ollamaLineToChunk('[DONE]', { value: 0 })).toBe('[DONE]')
  })
})
