/**
 * Endpoint faults (docs/ARCHITECTURE.md 4, "Failures are data") against the scripted server over real HTTP: each ends the
 * stream with exactly one `error` part carrying the right code, retryability and `hasStreamed`,
 * within its time budget, without the API key in any message.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { classifyError } from '../../../main/core/models/model-errors.js'
import type { ModelAdapter, ModelErrorCode, StreamPart } from '../../../main/core/models/types.js'
import { closedPort, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'
import type { ScriptedResponse } from '../../fixtures/model-server/script.js'
import { collect, errorOf, userRequest } from './helpers.js'

const API_KEY = 'sk-test-secret-4f9a'

let server: ModelServer
/** Short budgets so stalls are found in tests' time. */
let adapter: ModelAdapter

beforeAll(async () => {
  server = await startModelServer()
  adapter = createOpenAiCompatibleAdapter({
    baseUrl: server.url,
    apiKey: API_KEY,
    idleTimeoutMs: 200,
    firstContentTimeoutMs: 400,
  })
})
afterAll(() => server.close())
beforeEach(() => {
  server.requests.length = 0
})

async function failWith(response: ScriptedResponse) {
  server.setScript([response])
  const started = performance.now()
  const parts = await collect(adapter)
  const elapsedMs = performance.now() - started
  const { error, hasStreamed } = errorOf(parts)
  expect(error.message).not.toContain(API_KEY)
  return { error, hasStreamed, parts, elapsedMs }
}

const textSteps = [{ text: 'Partial answer that goes on' }]

describe('configuration', () => {
  it('fails at creation, not in the stream, for a base URL that is not http(s)', () => {
    for (const baseUrl of ['127.0.0.1:11434/v1', 'ftp://host/v1', '']) {
      expect(() => createOpenAiCompatibleAdapter({ baseUrl }), baseUrl).toThrow(/http\(s\) URL/)
    }
    expect(() =>
      createOpenAiCompatibleAdapter({ baseUrl: 'http://127.0.0.1/v1', idleTimeoutMs: 0 }),
    ).toThrow(/idleTimeoutMs/)
  })
})

describe('connection faults', () => {
  it('reports a refused connection, naming the endpoint', async () => {
    const port = await closedPort()
    const closed = createOpenAiCompatibleAdapter({ baseUrl: `http://127.0.0.1:${port}/v1` })
    const { error, hasStreamed } = errorOf(await collect(closed))
    expect(error).toMatchObject({ code: 'ENDPOINT_UNREACHABLE', isRetryable: true })
    // On this machine: nothing listens there, so only a short retry is worth it.
    expect(error).toMatchObject({ maxRetries: 2 })
    expect(error.message).toBe(
      `nothing is listening at http://127.0.0.1:${port}; is the server running?`,
    )
    expect(hasStreamed).toBe(false)
  })

  it('names the server that usually listens on a well-known port', () => {
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    })
    const cases: [string, string][] = [
      ['http://127.0.0.1:11434/v1', 'is Ollama running? (start it with `ollama serve`)'],
      [
        'http://localhost:1234/v1',
        "is LM Studio's server running? (start it with `lms server start`",
      ],
      ['http://127.0.0.1:8080/v1', 'is the llama.cpp server running? (start it with `llama-server'],
      ['http://[::1]:8000/v1', 'is vLLM running? (start it with `vllm serve MODEL`)'],
    ]
    for (const [baseUrl, hint] of cases) {
      const error = classifyError(refused, { baseUrl })
      expect(error).toMatchObject({ code: 'ENDPOINT_UNREACHABLE', maxRetries: 2 })
      expect(error.message).toContain(
        `nothing is listening at ${baseUrl.replace('/v1', '')}; ${hint}`,
      )
    }
    // Another machine's port may be a server restarting behind a proxy: the usual retries.
    const remote = classifyError(refused, { baseUrl: 'http://10.0.0.7:11434/v1' })
    expect(remote.message).toBe('endpoint refused at http://10.0.0.7:11434: is Ollama running?')
    expect(remote.maxRetries).toBeUndefined()
  })

  it('reports a host that does not resolve as unreachable', async () => {
    const nowhere = createOpenAiCompatibleAdapter({ baseUrl: 'http://no-such-host.invalid/v1' })
    const { error } = errorOf(await collect(nowhere))
    expect(error.code).toBe('ENDPOINT_UNREACHABLE')
    expect(error.message).toContain('no-such-host.invalid')
  })

  it('reports a connection reset before the headers as a disconnect', async () => {
    const { error, hasStreamed } = await failWith({ dropBeforeHeaders: true })
    expect(error).toMatchObject({ code: 'DISCONNECTED', isRetryable: true })
    expect(hasStreamed).toBe(false)
  })

  it('reports a connection dropped mid-stream as a disconnect after streaming', async () => {
    const { error, hasStreamed, parts } = await failWith({
      steps: textSteps,
      chunkSize: 4,
      dropAfter: 3,
    })
    expect(error).toMatchObject({ code: 'DISCONNECTED', isRetryable: true })
    expect(hasStreamed).toBe(true)
    expect(parts.slice(0, -1)).toEqual([
      { type: 'text', text: 'Part' },
      { type: 'text', text: 'ial ' },
    ])
  })

  it('reports a drop after only the role chunk as not having streamed', async () => {
    const { error, hasStreamed } = await failWith({ steps: textSteps, dropAfter: 1 })
    expect(error.code).toBe('DISCONNECTED')
    expect(hasStreamed).toBe(false)
  })

  it('finishes a stream that goes quiet after its finish reason, without waiting long', async () => {
    server.setScript([{ steps: [{ text: 'done' }, { finish: 'stop' }], stallAfter: 3 }])
    const started = performance.now()
    const parts = await collect(adapter)
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('reports a stream that ends without a finish reason as a disconnect', async () => {
    const streamed = await failWith({ steps: textSteps, noFinish: true })
    expect(streamed.error).toMatchObject({ code: 'DISCONNECTED', isRetryable: true })
    expect(streamed.hasStreamed).toBe(true)

    const empty = await failWith({ steps: [], noFinish: true, noDone: true })
    expect(empty.error.code).toBe('DISCONNECTED')
    expect(empty.hasStreamed).toBe(false)
  })
})

describe('HTTP errors carry the server message', () => {
  const cases: {
    status: number
    body: unknown
    code: ModelErrorCode
    isRetryable: boolean
    says: string
  }[] = [
    {
      status: 500,
      body: { error: { message: 'CUDA out of memory' } },
      code: 'SERVER_ERROR',
      isRetryable: true,
      says: 'CUDA out of memory',
    },
    {
      status: 503,
      body: 'Service Unavailable',
      code: 'SERVER_ERROR',
      isRetryable: true,
      says: 'Service Unavailable',
    },
    {
      status: 429,
      body: { error: { message: 'Rate limit reached' } },
      code: 'RATE_LIMITED',
      isRetryable: true,
      says: 'Rate limit reached',
    },
    {
      status: 401,
      body: { error: { message: 'Invalid API key' } },
      code: 'AUTH_FAILED',
      isRetryable: false,
      says: 'Invalid API key',
    },
    {
      status: 403,
      body: { error: { message: 'Forbidden' } },
      code: 'AUTH_FAILED',
      isRetryable: false,
      says: 'Forbidden',
    },
    // Ollama's dialect.
    {
      status: 404,
      body: { error: 'model "qwen9" not found, try pulling it first' },
      code: 'NOT_FOUND',
      isRetryable: false,
      says: 'model "qwen9" not found',
    },
    // vLLM's dialect.
    {
      status: 400,
      body: {
        object: 'error',
        message: "This model's maximum context length is 4096 tokens",
        type: 'BadRequestError',
        code: 400,
      },
      code: 'CONTEXT_OVERFLOW',
      isRetryable: false,
      says: 'maximum context length is 4096 tokens',
    },
    {
      status: 400,
      body: {
        error: { code: 400, message: 'invalid model parameters', type: 'invalid_request_error' },
      },
      code: 'REQUEST_REJECTED',
      isRetryable: false,
      says: 'invalid model parameters',
    },
    {
      status: 413,
      body: 'request entity too large',
      code: 'REQUEST_REJECTED',
      isRetryable: false,
      says: 'request entity too large',
    },
    // FastAPI's dialect.
    {
      status: 422,
      body: { detail: [{ msg: 'field required', loc: ['body', 'model'] }] },
      code: 'REQUEST_REJECTED',
      isRetryable: false,
      says: 'field required',
    },
  ]
  for (const { status, body, code, isRetryable, says } of cases) {
    it(`${status} -> ${code}`, async () => {
      const { error, hasStreamed } = await failWith({ status, body })
      expect(error).toMatchObject({ code, isRetryable, status })
      expect(error.message).toContain(says)
      expect(hasStreamed).toBe(false)
    })
  }

  it('passes on how long the server asked to wait', async () => {
    const limited = await failWith({ status: 429, body: {}, headers: { 'retry-after': '3' } })
    expect(limited.error.retryAfterMs).toBe(3000)
    const busy = await failWith({ status: 503, body: {}, headers: { 'retry-after-ms': '250' } })
    expect(busy.error.retryAfterMs).toBe(250)
  })

  it('reports a request beyond the script as a server error saying so', async () => {
    server.setScript([])
    const { error } = errorOf(await collect(adapter))
    expect(error.code).toBe('SERVER_ERROR')
    expect(error.message).toContain('script exhausted')
  })

  it('reports an error object sent inside the stream', async () => {
    const coded = await failWith({
      steps: [{ text: 'a' }, { chunk: { error: { message: 'overloaded', code: 503 } } }],
    })
    expect(coded.error).toMatchObject({ code: 'SERVER_ERROR', status: 503, isRetryable: true })
    expect(coded.error.message).toContain('overloaded')
    expect(coded.hasStreamed).toBe(true)

    const plain = await failWith({ steps: [{ chunk: { error: 'the model crashed' } }] })
    expect(plain.error.code).toBe('SERVER_ERROR')
    expect(plain.error.message).toContain('the model crashed')
  })

  it('reports an error sent as an `error:` field line (llama.cpp before 2025-09), and an `error` event', async () => {
    const line = await failWith({
      steps: [
        { text: 'a' },
        { raw: 'error: {"code":500,"message":"the slot crashed","type":"server_error"}\n\n' },
        { raw: 'data: [DONE]\n\n' },
      ],
      noDone: true,
    })
    expect(line.error).toMatchObject({ code: 'SERVER_ERROR', status: 500 })
    expect(line.error.message).toContain('the slot crashed')
    expect(line.hasStreamed).toBe(true)

    const event = await failWith({
      steps: [
        {
          raw: 'event: error\ndata: {"message":"the request exceeds the available context size"}\n\n',
        },
      ],
    })
    expect(event.error.code).toBe('CONTEXT_OVERFLOW')
  })

  it('keeps the API key out of messages even when the server echoes it', async () => {
    const { error } = await failWith({
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${API_KEY}` } },
    })
    expect(error.message).toContain('[redacted]')
  })
})

describe('malformed chunks', () => {
  it('reports a data line that is not JSON, without logging to the console', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      const { error, hasStreamed } = await failWith({
        steps: textSteps,
        chunkSize: 5,
        malformedAt: 2,
      })
      expect(error).toMatchObject({ code: 'MALFORMED_CHUNK', isRetryable: false })
      expect(hasStreamed).toBe(true)
      expect(consoleError).not.toHaveBeenCalled()
    } finally {
      consoleError.mockRestore()
    }
  })

  it('reports JSON that is not a chunk', async () => {
    for (const steps of [
      [{ data: '42' }],
      [{ chunk: { choices: 'none' } }],
      [{ data: 'null' }],
      // (`choices: [7]` is not caught: the SDK turns each choice into an object first.)
    ]) {
      const { error, hasStreamed } = await failWith({ steps })
      expect(error.code, JSON.stringify(steps)).toBe('MALFORMED_CHUNK')
      expect(hasStreamed).toBe(false)
    }
  })
})

describe('stalls', () => {
  it('detects a stall mid-stream after the idle timeout', async () => {
    const { error, hasStreamed, elapsedMs } = await failWith({
      steps: textSteps,
      chunkSize: 4,
      stallAfter: 3,
    })
    expect(error).toMatchObject({ code: 'STALLED', isRetryable: true })
    expect(hasStreamed).toBe(true)
    expect(elapsedMs).toBeGreaterThanOrEqual(190)
    expect(elapsedMs).toBeLessThan(1500)
  })

  it('detects a stall before any content after the first-content timeout', async () => {
    const { error, hasStreamed, elapsedMs } = await failWith({ steps: textSteps, stallAfter: 0 })
    expect(error.code).toBe('STALLED')
    expect(hasStreamed).toBe(false)
    expect(elapsedMs).toBeGreaterThanOrEqual(390)
    expect(elapsedMs).toBeLessThan(1500)
  })

  it('does not let keepalive comments or empty chunks hide a stall', async () => {
    const keepalives = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? { comment: 'keepalive' } : { delta: {} },
    ).flatMap((step) => [step, { sleepMs: 50 }])
    const { error, elapsedMs } = await failWith({
      steps: [{ text: 'a' }, ...keepalives, { text: 'b' }],
    })
    expect(error.code).toBe('STALLED')
    expect(elapsedMs).toBeLessThan(900)
  })

  it('does not time out a slow but steady stream', async () => {
    server.setScript([{ steps: [{ text: 'slow' }], chunkSize: 1, delayMs: 120 }])
    const parts = await collect(adapter)
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('does not count the time the consumer spends on a part', async () => {
    server.setScript([{ steps: [{ text: 'ab' }], chunkSize: 1 }])
    const parts: StreamPart[] = []
    for await (const part of adapter.stream(userRequest(), new AbortController().signal)) {
      parts.push(part)
      // Longer than the idle timeout (200 ms).
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })
})

describe('abort', () => {
  it('ends with ABORTED at once and sends nothing when already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const parts = await collect(adapter, userRequest(), controller.signal)
    expect(parts).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({ code: 'ABORTED', isRetryable: false }),
        hasStreamed: false,
      },
    ])
    expect(server.requests).toHaveLength(0)
  })

  it('ends with ABORTED promptly while waiting for the headers', async () => {
    let release = (): void => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    server.setScript([{ steps: textSteps, wait: held }])
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const started = performance.now()
    const parts = await collect(adapter, userRequest(), controller.signal)
    const elapsedMs = performance.now() - started
    release()
    const { error, hasStreamed } = errorOf(parts)
    expect(error.code).toBe('ABORTED')
    expect(hasStreamed).toBe(false)
    expect(elapsedMs).toBeLessThan(150)
  })

  it('ends with ABORTED promptly mid-stream, after what streamed', async () => {
    let release = (): void => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    server.setScript([{ steps: [{ text: 'Hello' }, { wait: held }, { text: ' never' }] }])
    const controller = new AbortController()
    const parts: StreamPart[] = []
    let abortedAt = 0
    for await (const part of adapter.stream(userRequest(), controller.signal)) {
      parts.push(part)
      if (part.type === 'text') {
        abortedAt = performance.now()
        setTimeout(() => controller.abort(), 10)
      }
    }
    const elapsedMs = performance.now() - abortedAt
    release()
    expect(parts[0]).toEqual({ type: 'text', text: 'Hello' })
    const { error, hasStreamed } = errorOf(parts)
    expect(error.code).toBe('ABORTED')
    expect(hasStreamed).toBe(true)
    expect(elapsedMs).toBeLessThan(150)
  })

  it('is not mistaken for a stall, nor a stall for an abort', async () => {
    const controller = new AbortController()
    server.setScript([{ steps: textSteps, stallAfter: 2 }])
    setTimeout(() => controller.abort(), 50)
    expect(errorOf(await collect(adapter, userRequest(), controller.signal)).error.code).toBe(
      'ABORTED',
    )
  })
})
