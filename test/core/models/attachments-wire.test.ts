import { describe, expect, it } from 'vitest'
import { toChatCompletionParams } from '../../../main/core/models/chat-request.js'
import { toOllamaChatBody } from '../../../main/core/models/ollama-request.js'
import type { Message } from '../../../main/core/log/messages.js'

describe('images on the Ollama native API', () => {
  it("puts a user message's images next to its text as bare base64", () => {
    const user: Message = {
      role: 'user',
      content: 'what is this?',
      seq: 1,
      kind: 'input',
      images: [{ mime: 'image/png', data: 'AAAA' }],
    }
    const body = toOllamaChatBody({ model: 'llava', messages: [user], tools: [], params: {} })
    expect(body['messages']).toEqual([{ role: 'user', content: 'what is this?', images: ['AAAA'] }])
  })
})

describe('images with tools described as text', () => {
  it('keeps the images of merged user messages, in order, on both APIs', () => {
    const image = (data: string) => ({ mime: 'image/png' as const, data })
    const messages: Message[] = [
      { role: 'user', content: 'one', seq: 1, kind: 'input', images: [image('AAAA')] },
      { role: 'user', content: 'two', seq: 2, kind: 'input', images: [image('BBBB')] },
    ]
    const tools = [{ name: 'read', description: 'Reads a file.', parameters: {} }]
    const textWire = {
      api: 'openai',
      toolCalls: 'text',
      streamUsage: true,
      replayReasoning: false,
    } as const
    const openai = toChatCompletionParams({
      model: 'llava',
      messages,
      tools,
      params: {},
      wire: textWire,
    })
    expect(openai.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'one\n\ntwo' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,BBBB' } },
      ],
    })
    const ollama = toOllamaChatBody({
      model: 'llava',
      messages,
      tools,
      params: {},
      wire: { ...textWire, api: 'ollama' },
    })
    expect((ollama['messages'] as unknown[]).at(-1)).toEqual({
      role: 'user',
      content: 'one\n\ntwo',
      images: ['AAAA', 'BBBB'],
    })
  })
})
