/**
 * What a server may answer with a 200 to a streaming chat request, made into something the
 * `openai` client reads, or into a clear error:
 *
 * - an event stream whose errors come as an `error:` field line (llama.cpp before September
 *   2025 wrote `error: {...}` then `data: [DONE]`), which the SSE rules say to ignore: such a
 *   line is rewritten as `data: {"error": ...}`, the form the client reports;
 * - a JSON completion (a server or proxy that does not stream): replayed as one stream;
 * - a JSON error object: the server's message, as an error;
 * - an HTML page or anything else (a wrong URL, a proxy's login page): "this URL does not look
 *   like an OpenAI-compatible API".
 */
import { describeEndpoint, extractServerMessage, isRecord, modelError } from './model-errors.js'
import type { ModelError } from './types.js'

/** A body that is not an event stream is read up to this size; a completion is never larger. */
const MAX_PLAIN_BODY_BYTES = 16 * 1024 * 1024
/** An event stream starts with one of these (after optional blank lines). */
const SSE_START = /^(data|event|id|retry|error)?:/

/** A failure decided while reading the reply, thrown from the fetch and reported as `error`. */
export class ReplyError extends Error {
  constructor(readonly error: ModelError) {
    super(error.message)
    this.name = 'ReplyError'
  }
}

/**
 * The response the client should read for a 200 to a streaming request. Throws ReplyError for
 * an error object or a body that is not from an OpenAI-compatible API.
 */
export async function shapeStreamReply(response: Response, url: string): Promise<Response> {
  const type = response.headers.get('content-type') ?? ''
  if (response.body === null) return response
  if (type.includes('text/event-stream'))
    return withBody(response, rewriteErrorLines(response.body))
  // Not labelled as a stream: look at how it starts before deciding.
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>
  const head = await readHead(reader)
  const rest = prepend(head.bytes, reader)
  if (SSE_START.test(head.text.trimStart())) return withBody(response, rewriteErrorLines(rest))
  const text = await readAll(rest)
  return new Response(replayPlainBody(text, type, url), {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
  })
}

/** The SSE for a plain body: a completion as chunks, or a thrown ReplyError. */
function replayPlainBody(text: string, type: string, url: string): string {
  const where = describeEndpoint(url)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    const got = type === '' ? 'a body that is not JSON' : type.split(';')[0]
    throw new ReplyError(
      modelError(
        'UNEXPECTED_REPLY',
        `this URL does not look like an OpenAI-compatible API (got ${got} from ${where}); check the base URL, which usually ends in /v1`,
      ),
    )
  }
  if (isRecord(parsed) && Array.isArray(parsed['choices'])) {
    return `${completionToChunks(parsed)
      .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      .join('')}data: [DONE]\n\n`
  }
  const said = extractServerMessage(text)
  throw new ReplyError(
    modelError('SERVER_ERROR', `${where} answered with an error instead of a stream: ${said}`, {
      isRetryable: false,
    }),
  )
}

/**
 * A chat completion (`choices[].message`) as the chunks a stream of it would have had: the
 * message as one delta (tool calls with their index), then the finish reason and usage.
 */
export function completionToChunks(completion: Record<string, unknown>): unknown[] {
  const choices = Array.isArray(completion['choices']) ? completion['choices'] : []
  const choice: unknown =
    choices.find((c: unknown) => isRecord(c) && c['index'] === 0) ?? choices[0]
  const message = isRecord(choice) && isRecord(choice['message']) ? choice['message'] : {}
  const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : []
  const delta: Record<string, unknown> = {}
  for (const field of ['content', 'reasoning_content', 'reasoning', 'refusal']) {
    if (typeof message[field] === 'string') delta[field] = message[field]
  }
  if (calls.length > 0) {
    delta['tool_calls'] = calls.map((call: unknown, index) =>
      isRecord(call) ? { index, ...call } : call,
    )
  }
  const finish = isRecord(choice) ? choice['finish_reason'] : undefined
  const chunks: unknown[] = [{ choices: [{ index: 0, delta, finish_reason: null }] }]
  chunks.push({
    choices: [{ index: 0, delta: {}, finish_reason: typeof finish === 'string' ? finish : 'stop' }],
  })
  if (isRecord(completion['usage'])) chunks.push({ choices: [], usage: completion['usage'] })
  return chunks
}

/** `error: {...}` field lines as `data: {"error": ...}` lines; everything else as it came. */
export function rewriteErrorLines(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  let pending = ''
  const rewrite = (text: string): string =>
    text.includes('error:')
      ? text.replace(/^error:[ \t]?(.*)$/gm, (_, value: string) => errorData(value))
      : text
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true })
        // Whole lines only: a field name split across two chunks must still be seen.
        const cut = pending.lastIndexOf('\n') + 1
        if (cut === 0) return
        controller.enqueue(encoder.encode(rewrite(pending.slice(0, cut))))
        pending = pending.slice(cut)
      },
      flush(controller) {
        pending += decoder.decode()
        if (pending !== '') controller.enqueue(encoder.encode(rewrite(pending)))
      },
    }),
  )
}

function errorData(value: string): string {
  return `data: ${JSON.stringify({ error: errorOfLine(value) })}`
}

/** The error object an `error:` field line carries, whatever shape the server gave it. */
export function errorOfLine(value: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    parsed = value
  }
  const inner = isRecord(parsed) ? parsed['error'] : undefined
  return isRecord(inner)
    ? inner
    : typeof inner === 'string'
      ? { message: inner }
      : isRecord(parsed)
        ? parsed
        : { message: String(parsed) }
}

async function readHead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ bytes: Uint8Array[]; text: string }> {
  const bytes: Uint8Array[] = []
  const decoder = new TextDecoder()
  let text = ''
  while (text.trim().length < 8) {
    const { value, done } = await reader.read()
    if (done) break
    bytes.push(value)
    text += decoder.decode(value, { stream: true })
  }
  return { bytes, text }
}

/** The bytes already read, then the rest of the reader, as one stream. */
function prepend(
  head: readonly Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  const queue = [...head]
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queue.shift()
      if (next !== undefined) {
        controller.enqueue(next)
        return
      }
      const { value, done } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    bytes += value.byteLength
    text += decoder.decode(value, { stream: true })
    if (bytes > MAX_PLAIN_BODY_BYTES) {
      await reader.cancel()
      break
    }
  }
  return text + decoder.decode()
}

function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers)
  // The body is decoded and may change length: these no longer describe it.
  headers.delete('content-length')
  headers.delete('content-encoding')
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}
