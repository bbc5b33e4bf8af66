/**
 * The part of an adapter that does not depend on the wire: time (a first-content budget, then an
 * idle budget between content chunks), the caller's abort, decoding chunks into parts, and
 * ending with exactly one `finish` or `error` part. An adapter gives it a way to open the stream
 * (chunks in the OpenAI shape, whatever the server spoke) and to classify what it throws.
 */
import type { WireSettings } from '../../../protocol/events.js'
import { ChunkDecoder } from './chunk-decoder.js'
import { describeEndpoint, modelError } from './model-errors.js'
import { adaptToRefusal } from './profile.js'
import type { ServerProfile } from './profile.js'
import type { EndpointConfig, ModelError, ModelRequest, StreamPart } from './types.js'

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

/** What an adapter keeps for the life of its endpoint. */
export interface RunnerSettings {
  readonly endpoint: EndpointConfig
  readonly idleTimeoutMs: number
  readonly firstContentTimeoutMs: number
  /** Changed when the server refuses a shape (see adaptToRefusal). */
  profile: ServerProfile
  readonly newCallId?: (index: number) => string
  readonly onProfileChange?: (profile: ServerProfile) => void
}

export function runnerSettings(
  endpoint: EndpointConfig,
  options: {
    readonly profile: ServerProfile
    readonly newCallId?: (index: number) => string
    readonly onProfileChange?: (profile: ServerProfile) => void
  },
): RunnerSettings {
  checkEndpoint(endpoint)
  return {
    endpoint,
    firstContentTimeoutMs: Math.min(
      endpoint.firstContentTimeoutMs ?? DEFAULT_FIRST_CONTENT_TIMEOUT_MS,
      MAX_TIMER_MS - 1_000,
    ),
    idleTimeoutMs: Math.min(endpoint.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, MAX_TIMER_MS),
    profile: options.profile,
    ...(options.newCallId === undefined ? {} : { newCallId: options.newCallId }),
    ...(options.onProfileChange === undefined ? {} : { onProfileChange: options.onProfileChange }),
  }
}

/** Why our own controller aborted the request. */
type AbortCause = 'caller' | 'first-content' | 'idle' | 'after-finish'

export interface StreamSource {
  /** Sends the request; resolves with its chunks, in the OpenAI chunk shape. */
  open(wire: WireSettings, signal: AbortSignal): Promise<AsyncIterable<unknown>>
  /** What a thrown error means (never called for our own timers or the caller's abort). */
  classify(error: unknown): ModelError
}

/**
 * One request. Never throws; ends with exactly one `finish` or `error` part. The watchdog only
 * runs while we wait on the server, not while the consumer handles the parts we yielded.
 */
export async function* runStream(
  settings: RunnerSettings,
  request: ModelRequest,
  signal: AbortSignal,
  source: StreamSource,
): AsyncGenerator<StreamPart> {
  const where = describeEndpoint(settings.endpoint.baseUrl)
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

  const wire: WireSettings = request.wire ?? settings.profile.wire
  const decoder = new ChunkDecoder({
    ...(settings.newCallId === undefined ? {} : { newCallId: settings.newCallId }),
    toolNames: new Set(request.tools.map((tool) => tool.name)),
    unopenedThink: settings.profile.unopenedThink,
  })
  let failure: ModelError | undefined
  try {
    arm(settings.firstContentTimeoutMs, 'first-content')
    const stream = await source.open(wire, controller.signal)
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
    // Clients end the iteration quietly when their signal aborts, so an abort shows up here as
    // an early end rather than as an exception.
    if (failure === undefined && cause !== undefined && cause !== 'after-finish') {
      failure = abortFailure(cause, settings, where)
    }
  } catch (error) {
    failure =
      cause !== undefined && cause !== 'after-finish'
        ? abortFailure(cause, settings, where)
        : decoder.hasFinished
          ? undefined // the answer was complete; only the trailing usage or [DONE] was lost
          : source.classify(error)
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
    if (!decoder.hasStreamed) failure = renegotiate(settings, wire, request, failure)
    yield* decoder.flushContent()
    yield { type: 'error', error: failure, hasStreamed: decoder.hasStreamed }
    return
  }
  yield* decoder.end()
  const usage = decoder.lastUsage
  if (usage !== undefined) yield { type: 'usage', usage }
  yield { type: 'finish', reason: decoder.finishReason() }
}

/**
 * A refusal of how the request was shaped changes the profile, and the failure becomes
 * PROFILE_CHANGED (retried at once, in the new shape); any other failure is returned as it is.
 */
function renegotiate(
  settings: RunnerSettings,
  wire: WireSettings,
  request: ModelRequest,
  failure: ModelError,
): ModelError {
  const change = adaptToRefusal(settings.profile, wire, failure, request.tools.length > 0)
  if (change === undefined) return failure
  settings.profile = change.profile
  try {
    settings.onProfileChange?.(change.profile)
  } catch (error) {
    // Keeping the change for later sessions failed (a read-only data folder); it still holds
    // for this adapter, and the stream must end as data, never with a throw.
    console.error('[bridle] could not keep what the server taught:', error)
  }
  return {
    ...failure,
    code: 'PROFILE_CHANGED',
    isRetryable: true,
    retryNow: true,
    message: `${failure.message}; ${change.remedy}`,
  }
}

/** A completion's chunks, as if they had streamed. */
export function replay(chunks: readonly unknown[]): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]: () => {
      const items = chunks.values()
      return { next: () => Promise.resolve(items.next()) }
    },
  }
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
  settings: RunnerSettings,
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
