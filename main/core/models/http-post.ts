/**
 * How a chat request reaches a model server: one POST of JSON text, its reply read as it comes.
 *
 * On Node's own `http`/`https` rather than the global `fetch`: fetch builds WHATWG requests,
 * headers and streams around every call, and measured in a `bridle run` of 100 steps it cost
 * 3.3 ms of CPU per request against 0.8 ms here (issue 21), a third of a whole step. What fetch
 * did that a model API needs is kept:
 * - connections are kept alive between requests (the global agents; an idle socket does not
 *   keep the process alive);
 * - a compressed reply is decompressed (gzip, deflate, br), though none is asked for;
 * - a 307 or 308 is followed with the same POST, and so are 301, 302 and 303, whose GET would
 *   only meet a 405 on a chat route; `authorization` is not sent on to another origin;
 * - the caller's signal cancels the request or the reply at any point.
 * Transport failures are Node's errors (`code`: ECONNREFUSED, ENOTFOUND, ECONNRESET, ...), which
 * model-errors.ts classifies.
 */
import { request as httpRequest } from 'node:http'
import type { IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'

/** Redirects followed before the request fails (fetch follows 20; an API needs one or two). */
const MAX_REDIRECTS = 5
/** An error page longer than this is cut before its message is extracted. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

/** A reply to a POST: its status and headers, and its body to read once. */
export interface HttpReply {
  readonly status: number
  readonly ok: boolean
  /** The `content-type` header ('' when absent). */
  readonly contentType: string
  /** All the headers (built when first asked for). */
  readonly headers: Headers
  /** The body's bytes as they arrive, decompressed. */
  readonly body: AsyncIterable<Uint8Array>
  /** The whole body as text. */
  text(): Promise<string>
  json(): Promise<unknown>
  /** The reply as a WHATWG Response (for the rare replies that must be reshaped). */
  toResponse(): Response
}

export interface PostInit {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly signal: AbortSignal
}

/** Sends a POST; the reply's body is read through the returned HttpReply. */
export type Post = (url: string, init: PostInit) => Promise<HttpReply>

/** POST over Node's http/https (see the top of this file). */
export const httpPost: Post = async (url, init) => {
  let target = new URL(url)
  let headers = { ...init.headers }
  for (let hop = 0; ; hop++) {
    const reply = await postOnce(target, headers, init.body, init.signal)
    const location = reply.headers['location']
    if (!isRedirect(reply.statusCode) || location === undefined || hop >= MAX_REDIRECTS) {
      return toReply(reply, init.signal)
    }
    reply.resume()
    const next = new URL(location, target)
    if (next.origin !== target.origin) headers = withoutAuthorization(headers)
    target = next
  }
}

/** The same interface over a fetch (tests that wrap the global fetch to watch what it reads). */
export function postThroughFetch(send: typeof fetch): Post {
  return async (url, init) => {
    const response = await send(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      signal: init.signal,
    })
    return {
      status: response.status,
      ok: response.ok,
      contentType: response.headers.get('content-type') ?? '',
      headers: response.headers,
      body: response.body ?? emptyBody(),
      text: () => response.text(),
      json: () => response.json(),
      toResponse: () => response,
    }
  }
}

function postOnce(
  target: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted()
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    const request = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      signal,
    })
    request.once('response', resolve)
    // `on`, not `once`: a second error would otherwise be thrown as uncaught.
    request.on('error', reject)
    request.end(body)
  })
}

function toReply(message: IncomingMessage, signal: AbortSignal): HttpReply {
  const status = message.statusCode ?? 0
  const body = decoded(message)
  // A reply read to its end leaves nothing to cancel; before that, the signal destroys it.
  const cancel = () => message.destroy(signal.reason instanceof Error ? signal.reason : undefined)
  signal.addEventListener('abort', cancel, { once: true })
  message.once('close', () => signal.removeEventListener('abort', cancel))
  let headers: Headers | undefined
  const text = () => readText(body, Number.POSITIVE_INFINITY)
  return {
    status,
    ok: status >= 200 && status < 300,
    contentType: message.headers['content-type'] ?? '',
    get headers() {
      headers ??= headersOf(message)
      return headers
    },
    body,
    text,
    json: async () => JSON.parse(await text()) as unknown,
    toResponse: () => {
      // The body is already decompressed, so its length and coding no longer apply.
      const plain = headersOf(message)
      plain.delete('content-length')
      plain.delete('content-encoding')
      return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, {
        status,
        headers: plain,
      })
    },
  }
}

/**
 * An error reply's text, for the server's words: at most MAX_ERROR_BODY_BYTES, and what came
 * before the connection died if it died while the body was read (the status alone then).
 */
export async function errorBodyText(reply: HttpReply): Promise<string> {
  const read = { text: '' }
  try {
    return await readText(reply.body, MAX_ERROR_BODY_BYTES, read)
  } catch {
    return read.text
  }
}

/**
 * A body as text, up to `maxBytes` (the rest is not read); `read.text` holds what came so far,
 * for a caller that keeps it when the connection dies.
 */
async function readText(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  read = { text: '' },
): Promise<string> {
  const decoder = new TextDecoder()
  let bytes = 0
  for await (const chunk of body) {
    read.text += decoder.decode(chunk, { stream: true })
    bytes += chunk.byteLength
    if (bytes >= maxBytes) break
  }
  read.text += decoder.decode()
  return read.text
}

/** The body, decompressed when the server compressed it (by `content-encoding`). */
function decoded(message: IncomingMessage): Readable {
  const encoding = (message.headers['content-encoding'] ?? '').trim().toLowerCase()
  const decompress =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined
  if (decompress === undefined) return message
  message.once('error', (error) => decompress.destroy(error))
  message.once('aborted', () => decompress.destroy(abortedReply()))
  return message.pipe(decompress)
}

function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = message.rawHeaders
  for (let at = 0; at + 1 < raw.length; at += 2) {
    const name = raw[at]
    const value = raw[at + 1]
    if (name !== undefined && value !== undefined) headers.append(name, value)
  }
  return headers
}

const isRedirect = (status: number | undefined): boolean =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'authorization') kept[name] = value
  }
  return kept
}

/** The error a compressed reply cut short gives (as Node gives one for a plain reply). */
function abortedReply(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {
  // A reply without a body (a 204): nothing to read.
}
