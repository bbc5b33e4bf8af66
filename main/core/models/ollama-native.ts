/**
 * The adapter for Ollama's native chat API (`POST /api/chat`, NDJSON): what lets Bridle set the
 * context window Ollama runs (`options.num_ctx`), which its OpenAI-compatible endpoint cannot.
 * Time, decoding and the end of the stream are the shared runner's (stream-runner.ts); this
 * file only speaks the wire, over the same POST as the OpenAI adapter's (http-post.ts).
 */
import { errorBodyText, httpPost, postThroughFetch } from './http-post.js'
import {
  classifyError,
  describeEndpoint,
  errorFromStatus,
  extractServerMessage,
  modelError,
} from './model-errors.js'
import { OllamaStreamError, ollamaLineToChunk, toOllamaChatBody } from './ollama-request.js'
import { DEFAULT_PROFILE } from './profile.js'
import type { ServerProfile } from './profile.js'
import { recognizeRefusal } from './refusals.js'
import { ReplyError } from './reply-body.js'
import { replay, runnerSettings, runStream } from './stream-runner.js'
import type { EndpointConfig, ModelAdapter, ModelError } from './types.js'

export interface OllamaAdapterOptions {
  readonly newCallId?: (index: number) => string
  readonly fetch?: typeof fetch
  readonly profile?: ServerProfile
  readonly onProfileChange?: (profile: ServerProfile) => void
}

/** `http://127.0.0.1:11434/v1` -> `http://127.0.0.1:11434`: the native API sits at the root. */
export function ollamaRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
}

export function createOllamaAdapter(
  endpoint: EndpointConfig,
  options: OllamaAdapterOptions = {},
): ModelAdapter {
  const profile = options.profile ?? {
    ...DEFAULT_PROFILE,
    wire: { ...DEFAULT_PROFILE.wire, api: 'ollama' as const, streamUsage: false },
  }
  const settings = runnerSettings(endpoint, { ...options, profile })
  const post = options.fetch === undefined ? httpPost : postThroughFetch(options.fetch)
  const url = `${ollamaRoot(endpoint.baseUrl)}/api/chat`
  const where = describeEndpoint(endpoint.baseUrl)
  const context = {
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  }
  return {
    provider: 'ollama',
    wire: () => settings.profile.wire,
    stream: (request, signal) =>
      runStream(settings, request, signal, {
        open: async (wire, abort) => {
          const body = toOllamaChatBody({ ...request, wire })
          const reply = await post(url, {
            headers: {
              'content-type': 'application/json',
              accept: 'application/x-ndjson',
              ...endpoint.headers,
              ...(endpoint.apiKey === undefined
                ? {}
                : { authorization: `Bearer ${endpoint.apiKey}` }),
            },
            body: JSON.stringify(body),
            signal: abort,
          })
          if (!reply.ok) {
            const said = extractServerMessage(await errorBodyText(reply))
            throw new ReplyError(errorFromStatus(reply.status, said, context, reply.headers))
          }
          if (body['stream'] === false) {
            const index = { value: 0 }
            return replay([ollamaLineToChunk(await reply.json(), index)])
          }
          return chunksOf(reply.body)
        },
        classify: (error) => classifyOllama(error, where, context),
      }),
  }
}

/** NDJSON lines as OpenAI chunks. */
async function* chunksOf(body: AsyncIterable<Uint8Array>): AsyncGenerator {
  const decoder = new TextDecoder()
  const index = { value: 0 }
  let pending = ''
  for await (const bytes of body) {
    pending += decoder.decode(bytes, { stream: true })
    let newline = pending.indexOf('\n')
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim()
      pending = pending.slice(newline + 1)
      if (line !== '') yield ollamaLineToChunk(parseLine(line), index)
      newline = pending.indexOf('\n')
    }
  }
  const last = (pending + decoder.decode()).trim()
  if (last !== '') yield ollamaLineToChunk(parseLine(last), index)
}

/** A line that is not JSON is passed on as text, which the decoder reports as malformed. */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown
  } catch {
    return line
  }
}

function classifyOllama(
  error: unknown,
  where: string,
  context: { readonly baseUrl: string; readonly apiKey?: string },
): ModelError {
  if (error instanceof OllamaStreamError) {
    const said = error.serverMessage
    if (recognizeRefusal(said) === 'context-overflow') {
      return errorFromStatus(400, said, context)
    }
    return modelError('SERVER_ERROR', `${where} reported an error mid-stream: ${said}`)
  }
  return classifyError(error, context)
}
