/**
 * The OpenAI-compatible adapter: Ollama, LM Studio, llama.cpp server, vLLM, DeepSeek and OpenAI
 * through one base URL. Chat requests are a plain fetch read as server-sent events
 * (event-stream.ts): the `openai` client cost 1-2 ms of CPU per request, a sixth of a whole
 * agent step (issue 21), for framing that takes a few lines. Everything about time
 * (stream-runner.ts) and every failure mapping is ours, so the loop sees the same error codes
 * whatever the server.
 *
 * It keeps a profile of the server (profile.ts): how requests are shaped for it. When the server
 * refuses a shape in words we know (tools without a tool parser, `stream_options`, reasoning it
 * wants back; refusals.ts), the profile changes and the stream ends with PROFILE_CHANGED, so that
 * the loop logs the refusal and asks again at once in the new shape.
 */
import OpenAI from 'openai'
import { toChatCompletionParams } from './chat-request.js'
import { createEndpointFetch } from './endpoint-fetch.js'
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

/** Local servers ignore the key; the client insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed'

export interface AdapterOptions {
  /** Makes ids for tool calls the server sent without one (default `call_<index>_<random>`). */
  readonly newCallId?: (index: number) => string
  /** For tests: the fetch the client uses underneath (default the global fetch). */
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
  // The endpoint's fetch, whose error bodies keep the server's words. A 200 labelled as an event
  // stream is read as it comes (its `error:` lines too); anything else is shaped here.
  const send = createEndpointFetch(
    options.fetch ?? globalThis.fetch,
    Object.keys(endpoint.headers ?? {}),
    { shapeStreams: false },
  )
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
  return {
    provider: 'openai-compatible',
    wire: () => settings.profile.wire,
    stream: (request, signal) =>
      runStream(settings, request, signal, {
        open: async (wire, abort) => {
          const params = toChatCompletionParams({ ...request, wire })
          const response = await send(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(params),
            signal: abort,
          })
          if (!response.ok) {
            const said = extractServerMessage(await response.text())
            throw new ReplyError(errorFromStatus(response.status, said, context, response.headers))
          }
          if (params.stream) {
            const reply = isEventStream(response) ? response : await shapeStreamReply(response, url)
            return reply.body === null ? replay([]) : chunksOf(reply.body, reply.headers, context)
          }
          // A server that cannot stream calls: the whole completion, replayed as chunks.
          const completion: unknown = await response.json()
          return replay(completionToChunks(isRecord(completion) ? completion : {}))
        },
        classify: (error) => classifyError(error, endpoint),
      }),
  }
}

/**
 * The chunks of a streamed reply, up to `[DONE]`. A chunk that is not JSON throws a SyntaxError
 * (MALFORMED_CHUNK); an error the server sent inside the stream (an `error` event, or a chunk
 * with an `error` member) throws it as a ReplyError.
 */
async function* chunksOf(
  body: ReadableStream<Uint8Array>,
  headers: Headers,
  context: ErrorContext,
): AsyncGenerator {
  for await (const { event, data, error: errorLine } of serverEvents(body)) {
    if (errorLine !== undefined)
      throw new ReplyError(errorInStream(errorOfLine(errorLine), context, headers))
    if (data === '[DONE]') return
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      throw new SyntaxError('a server-sent event is not valid JSON')
    }
    const error: unknown = isRecord(chunk) ? chunk['error'] : undefined
    if (event === 'error' || Boolean(error)) {
      throw new ReplyError(errorInStream(error ?? chunk, context, headers))
    }
    yield chunk
  }
}

/**
 * The `openai` client as every part of Bridle uses it: no retries of its own (the loop owns the
 * one retry budget, docs/ARCHITECTURE.md 4), no logging (failures are data), none of the OPENAI_*
 * variables it would otherwise pick up, and our fetch underneath (endpoint-fetch.ts).
 */
export function openAiClient(
  endpoint: EndpointConfig,
  options: { readonly timeoutMs: number; readonly fetch?: typeof fetch },
): OpenAI {
  return new OpenAI({
    baseURL: endpoint.baseUrl,
    apiKey: endpoint.apiKey ?? PLACEHOLDER_API_KEY,
    maxRetries: 0,
    timeout: options.timeoutMs,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: 'off',
    fetch: createEndpointFetch(
      options.fetch ?? globalThis.fetch,
      Object.keys(endpoint.headers ?? {}),
    ),
    ...(endpoint.headers === undefined ? {} : { defaultHeaders: { ...endpoint.headers } }),
  })
}

function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.includes('text/event-stream') === true
}
