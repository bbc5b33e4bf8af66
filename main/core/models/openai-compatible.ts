/**
 * The OpenAI-compatible adapter: Ollama, LM Studio, llama.cpp server, vLLM, DeepSeek and OpenAI
 * through one base URL. Built on the official `openai` client for the HTTP, SSE framing and
 * UTF-8 decoding; everything about time (stream-runner.ts) and every failure mapping is ours, so
 * the loop sees the same error codes whatever the server.
 *
 * It keeps a profile of the server (profile.ts): how requests are shaped for it. When the server
 * refuses a shape in words we know (tools without a tool parser, `stream_options`, reasoning it
 * wants back; refusals.ts), the profile changes and the stream ends with PROFILE_CHANGED, so that
 * the loop logs the refusal and asks again at once in the new shape.
 */
import OpenAI from 'openai'
import type { Stream } from 'openai/core/streaming'
import { toChatCompletionParams } from './chat-request.js'
import { createEndpointFetch } from './endpoint-fetch.js'
import { classifyError } from './model-errors.js'
import { DEFAULT_PROFILE } from './profile.js'
import type { ServerProfile } from './profile.js'
import { completionToChunks } from './reply-body.js'
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
  const client = openAiClient(endpoint, {
    // The client's timeout only covers the wait for headers; ours covers that and more. Kept
    // just above ours so that ours always fires first.
    timeoutMs: Math.ceil(settings.firstContentTimeoutMs) + 1_000,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  })
  return {
    provider: 'openai-compatible',
    wire: () => settings.profile.wire,
    stream: (request, signal) =>
      runStream(settings, request, signal, {
        open: async (wire, abort) => {
          const params = toChatCompletionParams({ ...request, wire })
          if (params.stream) {
            return (await client.chat.completions.create(params, {
              signal: abort,
            })) as Stream<unknown>
          }
          // A server that cannot stream calls: the whole completion, replayed as chunks.
          const completion: unknown = await client.chat.completions.create(params, {
            signal: abort,
          })
          return replay(completionToChunks(completion as Record<string, unknown>))
        },
        classify: (error) => classifyError(error, endpoint),
      }),
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
