/**
 * The model adapter seam: a provider-neutral request and stream vocabulary. Adapters turn these
 * into a wire protocol; the loop never sees a vendor type. Provider failures are data: a stream
 * ends with a `finish` part, or with an `error` part, and never throws.
 */
import type { FinishReason, WireSettings } from '../../../protocol/events.js'
import type { Message } from '../log/messages.js'

export interface ToolSpec {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments (from the tool's zod schema), passed through as JSON. */
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface ModelParams {
  readonly temperature?: number
  readonly topP?: number
  readonly maxTokens?: number
  readonly stop?: readonly string[]
  readonly seed?: number
}

export interface ModelRequest {
  readonly model: string
  /** System first (if any), then the conversation, exactly as derived from the log. */
  readonly messages: readonly Message[]
  readonly tools: readonly ToolSpec[]
  readonly params: ModelParams
  /**
   * How to put it on the wire, as logged in its `request/start` (absent: the adapter's current
   * profile). Passing the logged settings makes what is sent exactly what the log says.
   */
  readonly wire?: WireSettings
}

export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly reasoningTokens?: number
  readonly cachedInputTokens?: number
}

export type ModelErrorCode =
  /** Nothing listens at the address (ECONNREFUSED), or DNS failed. */
  | 'ENDPOINT_UNREACHABLE'
  /** 401/403: the key is missing or wrong. */
  | 'AUTH_FAILED'
  /** 404: no such model or path. */
  | 'NOT_FOUND'
  /** 429. */
  | 'RATE_LIMITED'
  /** 400/413/422: the server refused the request; the server's message. */
  | 'REQUEST_REJECTED'
  /** The prompt does not fit the context the server runs (it said so); compacting may help. */
  | 'CONTEXT_OVERFLOW'
  /**
   * The server cannot take the request as it was shaped (tools without a tool parser,
   * `stream_options`, reasoning it wants back): the adapter has changed its profile, and the
   * same request, sent again at once, goes out in the shape the server takes.
   */
  | 'PROFILE_CHANGED'
  /** The answer is not from an OpenAI-compatible API (an HTML page, a proxy's body). */
  | 'UNEXPECTED_REPLY'
  /** 5xx. */
  | 'SERVER_ERROR'
  /** No bytes for the idle timeout. */
  | 'STALLED'
  /** The connection closed before the stream finished. */
  | 'DISCONNECTED'
  /** A chunk that is not valid JSON or not a chat completion chunk. */
  | 'MALFORMED_CHUNK'
  /** The caller's signal aborted the request. */
  | 'ABORTED'
  | 'UNKNOWN'

export interface ModelError {
  readonly code: ModelErrorCode
  /** What failed and, where it helps, what to do ("is Ollama running?"). */
  readonly message: string
  readonly status?: number
  /** True when the same request may succeed if sent again (refused, 429, 5xx, stall, drop). */
  readonly isRetryable: boolean
  /** How long the server asked us to wait before retrying (Retry-After), when it said. */
  readonly retryAfterMs?: number
  /** At most this many retries, whatever the loop's policy allows (a refused local port). */
  readonly maxRetries?: number
  /** Retry at once rather than after a backoff (the adapter changed how it asks). */
  readonly retryNow?: boolean
  /** The context the server says it runs, in tokens, when its error said (`n_ctx`). */
  readonly contextWindow?: number
  /** What the server itself said, when it said something (part of `message` too). */
  readonly serverMessage?: string
}

/** One piece of a streamed answer. Tool-call parts carry the index the provider gave the call. */
export type StreamPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | {
      readonly type: 'tool-call-start'
      readonly index: number
      readonly callId: string
      readonly name: string
    }
  | { readonly type: 'tool-call-delta'; readonly index: number; readonly argsDelta: string }
  /** Everything streamed as text so far in this reply was reasoning (an unopened `</think>`). */
  | { readonly type: 'text-is-reasoning' }
  /** The tool-call parts that follow were read from the reply's text, written in this format. */
  | { readonly type: 'text-calls'; readonly format: string }
  | { readonly type: 'usage'; readonly usage: Usage }
  /** The last part of a successful stream. */
  | { readonly type: 'finish'; readonly reason: FinishReason }
  /** The last part of a failed stream. `hasStreamed` says whether any content part came first. */
  | { readonly type: 'error'; readonly error: ModelError; readonly hasStreamed: boolean }

export interface ModelAdapter {
  /** e.g. `openai-compatible`; logged in `request/start`. */
  readonly provider: string
  /**
   * How the next request will be shaped for this server (logged in `request/start`, then passed
   * back in `ModelRequest.wire`). Absent: always `DEFAULT_WIRE`.
   */
  wire?(): WireSettings
  /**
   * Streams one request. Must not throw and must not retry: every failure ends the stream with
   * an `error` part (the loop decides about retries). Aborting `signal` ends it with `ABORTED`.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart>
}

export interface ModelInfo {
  readonly id: string
  /** The context window in tokens: the one the server runs where it says, else the largest it advertises. */
  readonly contextWindow?: number
  /**
   * `server`: the window the server runs (llama.cpp `/props` n_ctx, vLLM `max_model_len`, a
   * loaded model's context in LM Studio or Ollama); `default`: a server default assumed (Ollama's
   * `num_ctx` by version); `advertised`: what the model was trained for, or a maximum, which the
   * server may not run.
   */
  readonly contextSource?: 'server' | 'default' | 'advertised'
  /** The model's trained context, when the server says and it differs from the window. */
  readonly trainedContext?: number
}

export interface EndpointConfig {
  readonly baseUrl: string
  /** The API key itself; read from an environment variable or the credential store, never logged. */
  readonly apiKey?: string
  /**
   * Milliseconds without content (a chunk that carries text, reasoning, a tool call, usage or a
   * finish reason; SSE comments and empty keepalive chunks do not count) before a stream that
   * has started counts as stalled.
   */
  readonly idleTimeoutMs?: number
  /**
   * Milliseconds from sending the request to its first content (connect, headers, model load,
   * prompt processing) before it counts as stalled. Longer than the idle timeout, because a
   * local server may be loading the model.
   */
  readonly firstContentTimeoutMs?: number
  readonly headers?: Readonly<Record<string, string>>
}
