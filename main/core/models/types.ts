/**
 * The model adapter seam: a provider-neutral request and stream vocabulary. Adapters turn these
 * into a wire protocol; the loop never sees a vendor type. Provider failures are data: a stream
 * ends with a `finish` part, or with an `error` part, and never throws.
 */
import type { FinishReason } from '../log/events.js'
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
  /** 400/413/422: the server refused the request (e.g. context too long); the server's message. */
  | 'REQUEST_REJECTED'
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
  | { readonly type: 'usage'; readonly usage: Usage }
  /** The last part of a successful stream. */
  | { readonly type: 'finish'; readonly reason: FinishReason }
  /** The last part of a failed stream. `hasStreamed` says whether any content part came first. */
  | { readonly type: 'error'; readonly error: ModelError; readonly hasStreamed: boolean }

export interface ModelAdapter {
  /** e.g. `openai-compatible`; logged in `request/start`. */
  readonly provider: string
  /**
   * Streams one request. Must not throw and must not retry: every failure ends the stream with
   * an `error` part (the loop decides about retries). Aborting `signal` ends it with `ABORTED`.
   */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamPart>
}

export interface ModelInfo {
  readonly id: string
  /** The context window in tokens, when the server reports one. */
  readonly contextWindow?: number
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
