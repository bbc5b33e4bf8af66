/**
 * The OpenAI-compatible adapter: Ollama, LM Studio, llama.cpp server, vLLM, DeepSeek and OpenAI
 * through one base URL. Chat requests are one POST (http-post.ts) whose reply is read as
 * server-sent events (event-stream.ts): neither the `openai` client nor the global fetch, which
 * cost 1-2 and 2.5 ms of CPU per request, a sixth and a quarter of a whole agent step (issue 21),
 * for framing that takes a few lines. Everything about time (stream-runner.ts) and every failure
 * mapping is ours, so the loop sees the same error codes whatever the server.
 *
 * It keeps a profile of the server (profile.ts): how requests are shaped for it. When the server
 * refuses a shape in words we know (tools without a tool parser, `stream_options`, reasoning it
 * wants back; refusals.ts), the profile changes and the stream ends with PROFILE_CHANGED, so that
 * the loop logs the refusal and asks again at once in the new shape.
 */
import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions'
import { toChatCompletionParams } from './chat-request.js'
import { errorBodyText, httpPost, postThroughFetch } from './http-post.js'
import { serverEvents } from './event-stream.js'
import {
  classifyError,
  errorFromStatus,
  errorInStream,
  extractServerMessage,
  isRecord,
} from './model-errors.js'
import type { ErrorContext } from './model-errors.js'
import { DEFAULT_PROFILE } from './profile.js'
import type { ServerProfile } from './profile.js'
import { completionToChunks, errorOfLine, ReplyError, shapeStreamReply } from './reply-body.js'
import { replay, runnerSettings, runStream } from './stream-runner.js'
import type { EndpointConfig, ModelAdapter } from './types.js'

export {
  DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  FINISH_GRACE_MS,
} from './stream-runner.js'

/** Local servers ignore the key; some proxies insist on one. */
const PLACEHOLDER_API_KEY = 'not-needed'

export interface AdapterOptions {
  /** Makes ids for tool calls the server sent without one (default `call_<index>_<random>`). */
  readonly newCallId?: (index: number) => string
  /** For tests: a fetch to send chat requests through (default Node's http, http-post.ts). */
  readonly fetch?: typeof fetch
  /** How this server is talked to (default: clean OpenAI streaming, calls read from text too). */
  readonly profile?: ServerProfile
  /** Told when a refusal changed the profile, so it can be kept for the next session. */
  readonly onProfileChange?: (profile: ServerProfile) => void
}

/**
 * Throws (bad configuration, at start) when the base URL is not an http(s) URL or a timeout is
 * not a positive number; every later failure is data in the stream.
 */
export function createOpenAiCompatibleAdapter(
  endpoint: EndpointConfig,
  options: AdapterOptions = {},
): ModelAdapter {
  const settings = runnerSettings(endpoint, {
    ...options,
    profile: options.profile ?? DEFAULT_PROFILE,
  })
  const send = chatSender(endpoint, options.fetch)
  return {
    provider: 'openai-compatible',
    wire: () => settings.profile.wire,
    stream: (request, signal) =>
      runStream(settings, request, signal, {
        open: (wire, abort) => send(toChatCompletionParams({ ...request, wire }), abort),
        classify: (error) => classifyError(error, endpoint),
      }),
  }
}

/**
 * Sends chat requests to the endpoint (`fetch`: for tests, a fetch to send them through) and
 * gives each reply as OpenAI chunks: an event stream as it comes, anything else a 200 may be
 * (a completion, a stream not labelled as one) shaped into chunks. What the server refused,
 * whatever the shape, is thrown as a ReplyError; a transport failure as Node's error.
 */
export function chatSender(
  endpoint: EndpointConfig,
  fetch?: typeof globalThis.fetch,
): (params: ChatCompletionCreateParams, signal: AbortSignal) => Promise<AsyncIterable<unknown>> {
  const post = fetch === undefined ? httpPost : postThroughFetch(fetch)
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const context: ErrorContext = {
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  }
  // The endpoint's own headers win, whatever their case (a second `Authorization` would be sent
  // as well as ours, not instead).
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${endpoint.apiKey ?? PLACEHOLDER_API_KEY}`,
  }
  for (const [name, value] of Object.entries(endpoint.headers ?? {}))
    headers[name.toLowerCase()] = value
  return async (params, signal) => {
    const reply = await post(url, { headers, body: JSON.stringify(params), signal })
    if (!reply.ok) {
      const said = extractServerMessage(await errorBodyText(reply))
      throw new ReplyError(errorFromStatus(reply.status, said, context, reply.headers))
    }
    if (params.stream) {
      if (reply.contentType.includes('text/event-stream')) {
        return chunksOf(reply.body, () => reply.headers, context)
      }
      const shaped = await shapeStreamReply(reply.toResponse(), url)
      return shaped.body === null
        ? replay([])
        : chunksOf(shaped.body, () => shaped.headers, context)
    }
    // A server that cannot stream calls: the whole completion, replayed as chunks.
    const completion: unknown = await reply.json()
    return replay(completionToChunks(isRecord(completion) ? completion : {}))
  }
}

/**
 * The chunks of a streamed reply, up to `[DONE]`. A chunk that is not JSON throws a SyntaxError
 * (MALFORMED_CHUNK); an error the server sent inside the stream (an `error` event, or a chunk
 * with an `error` member) throws it as a ReplyError.
 */
async function* chunksOf(
  body: AsyncIterable<Uint8Array>,
  headers: () => Headers,
  context: ErrorContext,
): AsyncGenerator {
  for await (const { event, data, error: errorLine } of serverEvents(body)) {
    if (errorLine !== undefined)
      throw new ReplyError(errorInStream(errorOfLine(errorLine), context, headers()))
    if (data === '[DONE]') return
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      throw new SyntaxError('a server-sent event is not valid JSON')
    }
    const error: unknown = isRecord(chunk) ? chunk['error'] : undefined
    if (event === 'error' || Boolean(error)) {
      throw new ReplyError(errorInStream(error ?? chunk, context, headers()))
    }
    yield chunk
  }
}
