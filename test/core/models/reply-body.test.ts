import { describe, expect, it } from 'vitest'
import {
  ReplyError,
  completionToChunks,
  rewriteErrorLines,
  shapeStreamReply,
} from '../../../main/core/models/reply-body.js'

const encoder = new TextEncoder()
const URL_WITH_SECRETS = 'http://user:secret@127.0.0.1:8080/v1?key=abc'

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

async function rewritten(text: string): Promise<string> {
  return textOf(rewriteErrorLines(streamOf([encoder.encode(text)])))
}

async function rejection(response: Response): Promise<ReplyError> {
  try {
    await shapeStreamReply(response, URL_WITH_SECRETS)
  } catch (error) {
    if (error instanceof ReplyError) return error
    throw error
  }
  throw new Error('shapeStreamReply did not throw')
}

function sseData(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)) as unknown)
}

describe('rewriteErrorLines', () => {
  const ERROR_STREAM =
    'data: {"choices":[]}\n\nerror: {"code":500,"message":"Ünïcode fails","type":"server_error"}\n\ndata: [DONE]\n\n'
  const EXPECTED =
    'data: {"choices":[]}\n\ndata: {"error":{"code":500,"message":"Ünïcode fails","type":"server_error"}}\n\ndata: [DONE]\n\n'

  it('rewrites an `error: {...}` line as `data: {"error": ...}`', async () => {
    expect(await rewritten(ERROR_STREAM)).toBe(EXPECTED)
  })

  it('gives the same bytes for a split at every byte position', async () => {
    const bytes = encoder.encode(ERROR_STREAM)
    for (let at = 0; at <= bytes.length; at++) {
      const out = await textOf(rewriteErrorLines(streamOf([bytes.slice(0, at), bytes.slice(at)])))
      expect(out, `split at byte ${at}`).toBe(EXPECTED)
    }
  })

  it('gives the same bytes one byte at a time', async () => {
    const bytes = encoder.encode(ERROR_STREAM)
    const chunks = [...bytes].map((byte) => Uint8Array.of(byte))
    expect(await textOf(rewriteErrorLines(streamOf(chunks)))).toBe(EXPECTED)
  })

  it('keeps CRLF line ends', async () => {
    expect(await rewritten('error: {"message":"down"}\r\n\r\ndata: [DONE]\r\n\r\n')).toBe(
      'data: {"error":{"message":"down"}}\r\n\r\ndata: [DONE]\r\n\r\n',
    )
  })

  it('unwraps a value that is itself {"error": {...}}', async () => {
    expect(await rewritten('error: {"error":{"message":"x"}}\n')).toBe(
      'data: {"error":{"message":"x"}}\n',
    )
  })

  it('makes a plain string value the message, with or without quotes or a space', async () => {
    expect(await rewritten('error: model crashed\n')).toBe(
      'data: {"error":{"message":"model crashed"}}\n',
    )
    expect(await rewritten('error:"quoted"\n')).toBe('data: {"error":{"message":"quoted"}}\n')
  })

  it('rewrites a last line without a newline', async () => {
    expect(await rewritten('data: {}\n\nerror: {"message":"end"}')).toBe(
      'data: {}\n\ndata: {"error":{"message":"end"}}',
    )
  })

  it('leaves data lines alone, even ones that contain "error:"', async () => {
    const text =
      'data: {"error": {"message": "already data"}}\n\ndata: {"content":"error: not a field"}\n\n: error: a comment\n\n'
    expect(await rewritten(text)).toBe(text)
  })
})

describe('completionToChunks', () => {
  it('replays content, reasoning and tool calls as one delta, with an index a call', () => {
    const chunks = completionToChunks({
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Reading.',
            reasoning_content: 'I should read.',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"p":1}' } },
              { id: 'c2', type: 'function', function: { name: 'write', arguments: '{}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 5 },
    })
    expect(chunks).toEqual([
      {
        choices: [
          {
            index: 0,
            delta: {
              content: 'Reading.',
              reasoning_content: 'I should read.',
              tool_calls: [
                {
                  index: 0,
                  id: 'c1',
                  type: 'function',
                  function: { name: 'read', arguments: '{"p":1}' },
                },
                {
                  index: 1,
                  id: 'c2',
                  type: 'function',
                  function: { name: 'write', arguments: '{}' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } },
    ])
  })

  it('takes the choice of index 0, "stop" when no finish reason, and no usage chunk without usage', () => {
    const chunks = completionToChunks({
      choices: [
        { index: 1, message: { content: 'other' } },
        { index: 0, message: { content: 'mine', refusal: null } },
      ],
    })
    expect(chunks).toEqual([
      { choices: [{ index: 0, delta: { content: 'mine' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ])
  })
})

describe('shapeStreamReply', () => {
  const SSE = 'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'

  it('passes an event stream through, rewriting error lines and dropping the length', async () => {
    const response = new Response(`${SSE}error: {"message":"late"}\n`, {
      headers: { 'content-type': 'text/event-stream', 'content-length': '999' },
    })
    const shaped = await shapeStreamReply(response, URL_WITH_SECRETS)
    expect(shaped.status).toBe(200)
    expect(shaped.headers.get('content-length')).toBeNull()
    expect(await shaped.text()).toBe(`${SSE}data: {"error":{"message":"late"}}\n`)
  })

  it('detects an event stream sent without its content type, even after blank lines', async () => {
    const body = `\n\n${SSE}`
    const shaped = await shapeStreamReply(new Response(encoder.encode(body)), URL_WITH_SECRETS)
    expect(await shaped.text()).toBe(body)
    const labelledJson = new Response(SSE, { headers: { 'content-type': 'application/json' } })
    expect(await (await shapeStreamReply(labelledJson, URL_WITH_SECRETS)).text()).toBe(SSE)
  })

  it('detects an event stream whose first bytes come one at a time', async () => {
    const chunks = [...encoder.encode(SSE)].map((byte) => Uint8Array.of(byte))
    const shaped = await shapeStreamReply(new Response(streamOf(chunks)), URL_WITH_SECRETS)
    expect(await shaped.text()).toBe(SSE)
  })

  it('replays a JSON completion as SSE chunks ending in [DONE]', async () => {
    const completion = {
      id: 'x',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'length' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }
    const response = Response.json(completion)
    const shaped = await shapeStreamReply(response, URL_WITH_SECRETS)
    expect(shaped.headers.get('content-type')).toBe('text/event-stream')
    const text = await shaped.text()
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true)
    expect(sseData(text)).toEqual(completionToChunks(completion))
  })

  it("throws a ReplyError with the server's message for a JSON error object", async () => {
    const error = await rejection(Response.json({ error: { message: 'model is loading' } }))
    expect(error.error.code).toBe('SERVER_ERROR')
    expect(error.error.isRetryable).toBe(false)
    expect(error.error.message).toContain('model is loading')
    expect(error.error.message).toContain('http://127.0.0.1:8080/v1')
    expect(error.message).toBe(error.error.message)
  })

  it('throws UNEXPECTED_REPLY for an HTML page, naming the type and the endpoint without secrets', async () => {
    const page = new Response('<!doctype html><html><body>Sign in</body></html>', {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    })
    const error = await rejection(page)
    expect(error.error.code).toBe('UNEXPECTED_REPLY')
    expect(error.error.message).toContain('got text/html from http://127.0.0.1:8080/v1')
    expect(error.error.message).not.toContain('secret')
    expect(error.error.message).not.toContain('key=abc')
  })

  it('says "a body that is not JSON" when the body has no content type', async () => {
    const error = await rejection(new Response(encoder.encode('Bad Gateway, try later')))
    expect(error.error.code).toBe('UNEXPECTED_REPLY')
    expect(error.error.message).toContain('got a body that is not JSON from')
  })
})
