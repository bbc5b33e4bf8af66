/**
 * The words of `endpoint/test` and `model/list`: what failed, and what to do about it, for
 * someone looking at a settings form. Built from the listing's ModelError, whose messages
 * already name the endpoint without credentials and never contain the key.
 */
import type { ModelError } from '../../models/types.js'
import { describeEndpoint, START_HINT_BY_PORT } from '../../models/model-errors.js'

export interface CheckContext {
  readonly baseUrl: string
  /** A key went with the request (a refusal then means a wrong key, not a missing one). */
  readonly keySent: boolean
  /** The endpoint is saved (its key can be set in Settings), not a URL being tried out. */
  readonly isSaved: boolean
  readonly timeoutMs: number
}

/** One sentence: what failed and what to do. */
export function describeListFailure(error: ModelError, ctx: CheckContext): string {
  const where = describeEndpoint(ctx.baseUrl)
  const status = error.status === undefined ? '' : ` (${error.status})`
  switch (error.code) {
    case 'ENDPOINT_UNREACHABLE':
      // Our own classification of ECONNREFUSED: nothing listens on that port.
      return /refused|nothing is listening/i.test(error.message)
        ? `nothing answered at ${originText(ctx.baseUrl)}: ${startHint(ctx.baseUrl)}`
        : `${error.message}: check the address and the network`
    case 'AUTH_FAILED':
      if (ctx.keySent)
        return ctx.isSaved
          ? `the server refused the API key${status}: check the key for this endpoint in Settings`
          : `the server refused the key${status}: check that it is the whole key, for this server`
      return ctx.isSaved
        ? `the server wants an API key${status}: set one for this endpoint in Settings, or name an environment variable in apiKeyEnv`
        : `the server wants an API key${status}: save the endpoint, then set its key in Settings`
    case 'NOT_FOUND':
      return error.status === 404
        ? `${where}/models was not found (404): is this the OpenAI-compatible base URL? It usually ends in /v1`
        : `${error.message}: check the base URL (it usually ends in /v1)`
    case 'MALFORMED_CHUNK':
      return `${where} answered, but not with JSON: is this the OpenAI-compatible base URL? It usually ends in /v1`
    case 'STALLED':
      return `${where} did not answer within ${Math.round(ctx.timeoutMs / 1000)} s: the server may be busy (loading a model); try again`
    case 'RATE_LIMITED':
      return `${where} is rate limiting${status}: wait a moment and try again`
    case 'SERVER_ERROR':
      return `${error.message}: the server is failing; check its log`
    case 'REQUEST_REJECTED':
    case 'CONTEXT_OVERFLOW':
    case 'PROFILE_CHANGED':
    case 'UNEXPECTED_REPLY':
    case 'DISCONNECTED':
    case 'ABORTED':
    case 'UNKNOWN':
      return error.message
  }
}

export function describeListSuccess(
  baseUrl: string,
  modelCount: number,
  latencyMs: number,
): string {
  const where = describeEndpoint(baseUrl)
  if (modelCount === 0) {
    return `${where} answered in ${latencyMs} ms but lists no models: load or pull one (e.g. ollama pull qwen3:8b)`
  }
  return `${where} answered in ${latencyMs} ms with ${modelCount} model${modelCount === 1 ? '' : 's'}`
}

function originText(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.protocol}//${url.host}`
  } catch {
    return describeEndpoint(baseUrl)
  }
}

function startHint(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    return START_HINT_BY_PORT[port] ?? 'is the server running, and is the address right?'
  } catch {
    return 'is the server running, and is the address right?'
  }
}
