/**
 * Turns what can go wrong talking to an endpoint into a `ModelError`: a code the loop can act
 * on, whether a retry may help, and a message that says what failed and what to do. Messages
 * name the endpoint without credentials or query, and never contain the API key.
 */
import { contextWindowIn, recognizeRefusal } from './refusals.js'
import type { ModelError, ModelErrorCode } from './types.js'

/** The servers that usually listen on a port, for "is Ollama running?". */
export const LIKELY_SERVER_BY_PORT: Readonly<Record<number, string>> = {
  11434: 'Ollama',
  1234: 'LM Studio',
  8080: 'the llama.cpp server',
  8000: 'vLLM',
}

/** How to start the server that usually listens on a port, for "nothing is listening at". */
export const START_HINT_BY_PORT: Readonly<Record<number, string>> = {
  11434: 'is Ollama running? (start it with `ollama serve`)',
  1234: "is LM Studio's server running? (start it with `lms server start`, or Developer > Start Server)",
  8080: 'is the llama.cpp server running? (start it with `llama-server -m MODEL.gguf --jinja`)',
  8000: 'is vLLM running? (start it with `vllm serve MODEL`)',
}

/**
 * A refused connection to this machine means nothing listens on the port: a server being
 * restarted is back within a second or two, so the loop tries that long and then says so,
 * instead of backing off for half a minute.
 */
export const LOCAL_REFUSED_MAX_RETRIES = 2

/** Longest server message kept in an error; an HTML error page is not worth more. */
const MAX_SERVER_MESSAGE_CHARS = 500

const RETRYABLE_BY_CODE: Readonly<Record<ModelErrorCode, boolean>> = {
  ENDPOINT_UNREACHABLE: true,
  AUTH_FAILED: false,
  NOT_FOUND: false,
  RATE_LIMITED: true,
  REQUEST_REJECTED: false,
  CONTEXT_OVERFLOW: false,
  PROFILE_CHANGED: true,
  UNEXPECTED_REPLY: false,
  SERVER_ERROR: true,
  STALLED: true,
  DISCONNECTED: true,
  MALFORMED_CHUNK: false,
  ABORTED: false,
  UNKNOWN: false,
}

type ErrorExtra = {
  status?: number
  isRetryable?: boolean
  retryAfterMs?: number
  maxRetries?: number
  contextWindow?: number
}

export function modelError(
  code: ModelErrorCode,
  message: string,
  extra: ErrorExtra = {},
): ModelError {
  return {
    code,
    message,
    isRetryable: extra.isRetryable ?? RETRYABLE_BY_CODE[code],
    ...(extra.status === undefined ? {} : { status: extra.status }),
    ...(extra.retryAfterMs === undefined ? {} : { retryAfterMs: extra.retryAfterMs }),
    ...(extra.maxRetries === undefined ? {} : { maxRetries: extra.maxRetries }),
    ...(extra.contextWindow === undefined ? {} : { contextWindow: extra.contextWindow }),
  }
}

/** The endpoint as it may appear in a message: no user, password, query or fragment. */
export function describeEndpoint(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
  } catch {
    // Not a URL at all: say so rather than echo what may be a pasted secret.
    return '(an invalid base URL)'
  }
}

/** `http://127.0.0.1:11434`, the server that usually listens there, and whether it is this machine. */
function describeOrigin(baseUrl: string): {
  origin: string
  likelyServer?: string
  startHint?: string
  isLocal: boolean
} {
  try {
    const url = new URL(baseUrl)
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
    const likelyServer = LIKELY_SERVER_BY_PORT[port]
    const startHint = START_HINT_BY_PORT[port]
    return {
      origin: `${url.protocol}//${url.host}`,
      isLocal: isLoopbackHost(url.hostname),
      ...(likelyServer === undefined ? {} : { likelyServer }),
      ...(startHint === undefined ? {} : { startHint }),
    }
  } catch {
    return { origin: describeEndpoint(baseUrl), isLocal: false }
  }
}

/** `localhost`, 127.0.0.0/8 and ::1: a refusal there is this machine saying no. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

export interface ErrorContext {
  readonly baseUrl: string
  /** Scrubbed from every message. */
  readonly apiKey?: string
}

/** Replaces the key (and any bearer token) in text that may echo a request. */
export function redact(text: string, apiKey: string | undefined): string {
  let out = text
  if (apiKey !== undefined && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]')
  return out.replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]')
}

/**
 * Classifies an error thrown while starting or reading a stream. Stalls and caller aborts are
 * decided by the caller (it knows which of its own timers or signals fired), not here.
 */
export function classifyError(error: unknown, context: ErrorContext): ModelError {
  const make = makerFor(context)
  const where = describeEndpoint(context.baseUrl)

  const decided = replyErrorIn(error)
  if (decided !== undefined) return { ...decided, message: redact(decided.message, context.apiKey) }
  if (error instanceof SyntaxError) {
    return make('MALFORMED_CHUNK', `${where} sent a stream event that is not valid JSON`)
  }
  const transport = transportCode(error)
  if (transport !== undefined) return classifyTransport(error, context, make)
  return make('UNKNOWN', `unexpected failure talking to ${where}: ${messageOf(error)}`)
}

/**
 * The error object a server sent inside a stream after a 200 (`data: {"error": ...}`, or an
 * `error` event): its `code` when that is an HTTP status, else what its message says.
 */
export function errorInStream(
  error: unknown,
  context: ErrorContext,
  headers?: Headers,
): ModelError {
  const make = makerFor(context)
  const where = describeEndpoint(context.baseUrl)
  const serverMessage = messageOfBody(error)
  const status = numericCode(isRecord(error) ? error['code'] : undefined)
  if (status !== undefined) return fromStatus(status, serverMessage, where, headers, make)
  if (recognizeRefusal(serverMessage) === 'context-overflow') {
    return overflow(serverMessage, where, undefined, make)
  }
  return make('SERVER_ERROR', `${where} reported an error mid-stream: ${serverMessage}`)
}

/** An HTTP error status as a ModelError; `serverMessage` is what the server said (may be empty). */
export function errorFromStatus(
  status: number,
  serverMessage: string,
  context: ErrorContext,
  headers?: Headers,
): ModelError {
  return fromStatus(
    status,
    serverMessage,
    describeEndpoint(context.baseUrl),
    headers,
    makerFor(context),
  )
}

type Make = (code: ModelErrorCode, message: string, extra?: ErrorExtra) => ModelError

/** Makes this endpoint's ModelErrors, its key scrubbed from every message. */
const makerFor =
  (context: ErrorContext): Make =>
  (code, message, extra) =>
    modelError(code, redact(message, context.apiKey), extra)

/** The ModelError a fetch wrapper already decided (reply-body.ts), along the cause chain. */
function replyErrorIn(error: unknown): ModelError | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current.name === 'ReplyError' && isRecord((current as { error?: unknown }).error)) {
      return (current as unknown as { error: ModelError }).error
    }
    current = current.cause
  }
  return undefined
}

/** "The prompt does not fit": never retried as it is; the loop compacts and asks once more. */
function overflow(
  serverMessage: string,
  where: string,
  status: number | undefined,
  make: Make,
): ModelError {
  const window = contextWindowIn(serverMessage)
  return make(
    'CONTEXT_OVERFLOW',
    `${where} says the prompt does not fit its context: ${serverMessage}`,
    {
      ...(status === undefined ? {} : { status }),
      ...(window === undefined ? {} : { contextWindow: window }),
    },
  )
}

function fromStatus(
  status: number,
  serverMessage: string,
  where: string,
  headers: Headers | undefined,
  make: Make,
): ModelError {
  const error = statusError(status, serverMessage, where, headers, make)
  if (serverMessage === '') return error
  // The server's words alone, redacted like the message: for cards and for reading refusals.
  return { ...error, serverMessage: make(error.code, serverMessage).message }
}

function statusError(
  status: number,
  serverMessage: string,
  where: string,
  headers: Headers | undefined,
  make: Make,
): ModelError {
  const said = serverMessage.length > 0 ? `: ${serverMessage}` : ''
  if (status === 401 || status === 403) {
    return make(
      'AUTH_FAILED',
      `${where} refused the credentials (${status})${said}; check the API key for this endpoint`,
      { status },
    )
  }
  if (status === 404) {
    return make(
      'NOT_FOUND',
      `${where} answered 404${said}; check the model name (GET /models lists them) and that the base URL ends in /v1`,
      { status },
    )
  }
  if (status === 429) {
    const retryAfterMs = headers === undefined ? undefined : parseRetryAfter(headers)
    return make('RATE_LIMITED', `${where} is rate limiting (429)${said}`, {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    })
  }
  if (recognizeRefusal(serverMessage) === 'context-overflow') {
    return overflow(serverMessage, where, status, make)
  }
  if (status >= 500) {
    const retryAfterMs = headers === undefined ? undefined : parseRetryAfter(headers)
    return make('SERVER_ERROR', `${where} failed with ${status}${said}`, {
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    })
  }
  return make('REQUEST_REJECTED', `${where} rejected the request (${status})${said}`, {
    status,
    // 408 and 409 say "try again", unlike the other client errors.
    isRetryable: status === 408 || status === 409,
  })
}

function classifyTransport(error: unknown, context: ErrorContext, make: Make): ModelError {
  const code = transportCode(error)
  const { origin, likelyServer, startHint, isLocal } = describeOrigin(context.baseUrl)
  switch (code) {
    case 'ECONNREFUSED': {
      if (isLocal) {
        return make(
          'ENDPOINT_UNREACHABLE',
          `nothing is listening at ${origin}; ${startHint ?? 'is the server running?'}`,
          { maxRetries: LOCAL_REFUSED_MAX_RETRIES },
        )
      }
      const hint =
        likelyServer === undefined ? 'is the server running?' : `is ${likelyServer} running?`
      return make('ENDPOINT_UNREACHABLE', `endpoint refused at ${origin}: ${hint}`)
    }
    case 'ENOTFOUND':
      return make(
        'ENDPOINT_UNREACHABLE',
        `cannot resolve the host of ${origin} (DNS lookup failed)`,
        {
          isRetryable: false,
        },
      )
    case 'EAI_AGAIN':
      return make('ENDPOINT_UNREACHABLE', `cannot resolve the host of ${origin} right now (DNS)`)
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return make('ENDPOINT_UNREACHABLE', `cannot reach ${origin} (${code})`)
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return make('DISCONNECTED', `${origin} closed the connection before the answer was complete`)
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return make('STALLED', `${origin} sent nothing for too long (${code})`)
    case undefined:
      break
    default:
      if (code.startsWith('ERR_TLS') || code.includes('CERT')) {
        return make('ENDPOINT_UNREACHABLE', `TLS failed for ${origin} (${code})`, {
          isRetryable: false,
        })
      }
  }
  return make('ENDPOINT_UNREACHABLE', `cannot connect to ${origin}: ${deepestMessage(error)}`)
}

/** The first `code` along the error's cause chain (AggregateError members included). */
function transportCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 8 && isRecord(current); depth++) {
    const code = current['code']
    if (typeof code === 'string' && code.length > 0) return code
    const errors = current['errors']
    if (Array.isArray(errors)) {
      for (const member of errors) {
        if (isRecord(member) && typeof member['code'] === 'string') return member['code']
      }
    }
    current = current['cause']
  }
  return undefined
}

function deepestMessage(error: unknown): string {
  let message = messageOf(error)
  let current: unknown = error
  for (let depth = 0; depth < 8 && isRecord(current); depth++) {
    if (typeof current['message'] === 'string' && current['message'].length > 0) {
      message = current['message']
    }
    current = current['cause']
  }
  return message
}

/** An error object a server sent (in a stream or a body): what it said. */
function messageOfBody(body: unknown): string {
  if (typeof body === 'string') return clip(body)
  if (isRecord(body) && typeof body['message'] === 'string') return clip(body['message'])
  return ''
}

function numericCode(code: unknown): number | undefined {
  const n = typeof code === 'string' ? Number(code) : code
  return typeof n === 'number' && Number.isInteger(n) && n >= 400 && n < 600 ? n : undefined
}

/** `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`, in milliseconds. */
export function parseRetryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms >= 0) return Math.round(ms)
  const value = headers.get('retry-after')
  if (value === null) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

/**
 * The human part of an error body in the dialects servers use: OpenAI and llama.cpp
 * `{"error": {"message"}}`, Ollama `{"error": "..."}`, vLLM `{"object": "error", "message"}`,
 * FastAPI `{"detail": ...}`, or plain text.
 */
export function extractServerMessage(body: string): string {
  const text = body.trim()
  if (text.length === 0) return ''
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return clip(text)
  }
  if (isRecord(parsed)) {
    const error = parsed['error']
    if (typeof error === 'string') return clip(error)
    if (isRecord(error) && typeof error['message'] === 'string') return clip(error['message'])
    if (typeof parsed['message'] === 'string') return clip(parsed['message'])
    const detail = parsed['detail']
    if (typeof detail === 'string') return clip(detail)
    if (detail !== undefined) return clip(JSON.stringify(detail))
  }
  return clip(text)
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim()
  return oneLine.length > MAX_SERVER_MESSAGE_CHARS
    ? `${oneLine.slice(0, MAX_SERVER_MESSAGE_CHARS)}...`
    : oneLine
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
