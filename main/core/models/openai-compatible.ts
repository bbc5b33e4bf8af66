/**
 * The OpenAI-compatible adapter: Ollama, LM Studio, llama.cpp server, vLLM, DeepSeek and OpenAI
 * through one base URL. Built on the official `openai` client for the HTTP, SSE framing and
 * UTF-8 decoding; everything about time (idle and first-content budgets) and every failure
 * mapping is ours, so the loop sees the same error codes whatever the server.
 */
import OpenAI from 'openai'
import type { Stream } from 'openai/core/streaming'
import { toChatCompletionParams } from './chat-request.js'
import { ChunkDecoder } from './chunk-decoder.js'
import { createEndpointFetch } from './endpoint-fetch.js'
import { classifyError, describeEndpoint, modelError } from './model-errors.js'
import type { EndpointConfig, ModelAdapter, ModelError, ModelRequest, StreamPart } from './types.js'

/** Between two content chunks of a started stream. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000
/**
 * From the request to its first content. Node's fetch (undici) gives up waiting for headers
 * after 300 s whatever we say, so a longer budget would not take effect.
 */
export const DEFAULT_FIRST_CONTENT_TIMEOUT_MS = 300_000
/**
 * After the finish reason, how long to wait for the usage chunk and the end of the stream (at
 * most the idle timeout). A server that never closes after its finish reason still finishes.
 */
export const FINISH_GRACE_MS = 5_000
/** setTimeout fires at once for delays above 2^31 - 1 ms. */
const MAX_TIMER_MS = 2_147_483_647
/** Local servers ignore the key; the client insists on one. */
const PLACEHOLDER_API_KEY = 'not-needed'

export interface AdapterOptions {
  /** Makes ids for tool calls the server sent without one (default `call_<index>_<random>`). */
  readonly newCallId?: (index: number) => string
  /** For tests: the fetch the client uses underneath (default the global fetch). */
  readonly fetch?: typeof fetch
}

/**
 * Throws (bad configuration, at start) when the base URL is not an http(s) URL or a timeout is
 * not a positive number; every later failure is data in the stream.
 */
export function createOpenAiCompatibleAdapter(
  endpoint: EndpointConfig,
  options: AdapterOptions = {},
): ModelAdapter {
  checkEndpoint(endpoint)
  const firstContentTimeoutMs = Math.min(
    endpoint.firstContentTimeoutMs ?? DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
    MAX_TIMER_MS - 1_000,
  )
  const idleTimeoutMs = Math.min(endpoint.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, MAX_TIMER_MS)
  const client = new OpenAI({
    baseURL: endpoint.baseUrl,
    apiKey: endpoint.apiKey ?? PLACEHOLDER_API_KEY,
    // Never the client's own retries: the loop owns the one retry budget (RELIABILITY 4.H).
    maxRetries: 0,
    // The client's timeout only covers the wait for headers; ours covers that and more. Kept
    // just above ours so that ours always fires first.
    timeout: Math.ceil(firstContentTimeoutMs) + 1_000,
    // The client would otherwise pick these up from OPENAI_* variables and send them along.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    // It logs malformed chunks to the console; we report them as data instead.
    logLevel: 'off',
    fetch: createEndpointFetch(
      options.fetch ?? globalThis.fetch,
      Object.keys(endpoint.headers ?? {}),
    ),
    ...(endpoint.headers === undefined ? {} : { defaultHeaders: { ...endpoint.headers } }),
  })
  const settings: StreamSettings = {
    client,
    endpoint,
    idleTimeoutMs,
    firstContentTimeoutMs,
    ...(options.newCallId === undefined ? {} : { newCallId: options.newCallId }),
  }
  return {
    provider: 'openai-compatible',
    stream: (request, signal) => streamChat(settings, request, signal),
  }
}

interface StreamSettings {
  readonly client: OpenAI
  readonly endpoint: EndpointConfig
  readonly idleTimeoutMs: number
  readonly firstContentTimeoutMs: number
  readonly newCallId?: (index: number) => string
}

/** Why our own controller aborted the request. */
type AbortCause = 'caller' | 'first-content' | 'idle' | 'after-finish'

/**
 * One request. Never throws; ends with exactly one `finish` or `error` part. The watchdog only
 * runs while we wait on the server, not while the consumer handles the parts we yielded.
 */
async function* streamChat(
  settings: StreamSettings,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<StreamPart> {
  const { endpoint } = settings
  const where = describeEndpoint(endpoint.baseUrl)
  if (signal.aborted) {
    yield {
      type: 'error',
      error: modelError('ABORTED', 'the request was cancelled'),
      hasStreamed: false,
    }
    return
  }

  const controller = new AbortController()
  let cause: AbortCause | undefined
  const abort = (why: AbortCause): void => {
    cause ??= why
    controller.abort()
  }
  const onCallerAbort = (): void => abort('caller')
  signal.addEventListener('abort', onCallerAbort, { once: true })
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (ms: number, why: AbortCause): void => {
    clearTimeout(timer)
    timer = setTimeout(() => abort(why), ms)
  }

  const decoder = new ChunkDecoder(settings.newCallId)
  let failure: ModelError | undefined
  try {
    arm(settings.firstContentTimeoutMs, 'first-content')
    const stream: Stream<unknown> = await settings.client.chat.completions.create(
      toChatCompletionParams(request),
      { signal: controller.signal },
    )
    for await (const chunk of stream) {
      const result = decoder.push(chunk)
      if ('malformed' in result) {
        failure = modelError('MALFORMED_CHUNK', `${where} sent ${result.malformed}`)
        break
      }
      if (!result.isContent) continue
      clearTimeout(timer)
      for (const part of result.parts) yield part
      if (decoder.hasFinished) {
        arm(Math.min(FINISH_GRACE_MS, settings.idleTimeoutMs), 'after-finish')
      } else {
        arm(settings.idleTimeoutMs, 'idle')
      }
    }
    // The client ends the iteration quietly when its signal aborts, so an abort shows up here
    // as an early end rather than as an exception.
    if (failure === undefined && cause !== undefined && cause !== 'after-finish') {
      failure = abortFailure(cause, settings, where)
    }
  } catch (error) {
    failure =
      cause !== undefined && cause !== 'after-finish'
        ? abortFailure(cause, settings, where)
        : decoder.hasFinished
          ? undefined // the answer was complete; only the trailing usage or [DONE] was lost
          : classifyError(error, endpoint)
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', onCallerAbort)
    // Releases the connection when the consumer stops early or the stream failed; a no-op for
    // a response already read to the end.
    controller.abort()
  }

  if (failure === undefined && !decoder.hasFinished) {
    failure = modelError(
      'DISCONNECTED',
      `${where} ended the stream without a finish reason (connection closed early?)`,
    )
  }
  if (failure !== undefined) {
    yield* decoder.flushContent()
    yield { type: 'error', error: failure, hasStreamed: decoder.hasStreamed }
    return
  }
  yield* decoder.end()
  const usage = decoder.lastUsage
  if (usage !== undefined) yield { type: 'usage', usage }
  yield { type: 'finish', reason: decoder.finishReason() }
}

function checkEndpoint(endpoint: EndpointConfig): void {
  let protocol: string
  try {
    protocol = new URL(endpoint.baseUrl).protocol
  } catch {
    protocol = ''
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new Error(
      'the model endpoint base URL is not an http(s) URL; set it like http://127.0.0.1:11434/v1',
    )
  }
  for (const [name, value] of [
    ['idleTimeoutMs', endpoint.idleTimeoutMs],
    ['firstContentTimeoutMs', endpoint.firstContentTimeoutMs],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new Error(`the model endpoint's ${name} must be a positive number of milliseconds`)
    }
  }
}

function abortFailure(
  cause: Exclude<AbortCause, 'after-finish'>,
  settings: StreamSettings,
  where: string,
): ModelError {
  switch (cause) {
    case 'caller':
      return modelError('ABORTED', 'the request was cancelled')
    case 'first-content':
      return modelError(
        'STALLED',
        `${where} sent no content within ${seconds(settings.firstContentTimeoutMs)} of the request` +
          ' (still loading the model? raise firstContentTimeoutMs)',
      )
    case 'idle':
      return modelError(
        'STALLED',
        `${where} stopped sending for ${seconds(settings.idleTimeoutMs)} in the middle of the answer`,
      )
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`
}
