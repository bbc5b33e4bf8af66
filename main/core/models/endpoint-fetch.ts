/**
 * The fetch under the `openai` client, adapted to servers that are not OpenAI:
 *
 * - Error bodies come in many dialects (Ollama `{"error": "..."}`, vLLM `{"message": ...}`,
 *   plain text). The client only understands `{"error": {"message"}}` and otherwise reports
 *   "400 status code (no body)", losing the server's words (for example "context length
 *   exceeded"). So an error body is rewritten into that one shape before the client reads it.
 * - The client adds headers from OPENAI_CUSTOM_HEADERS whatever the options say; those were
 *   meant for OpenAI, not for whichever local server this endpoint is, so they are removed.
 * - A 200 to a streaming request that is not a clean event stream (reply-body.ts) is made into
 *   one, or into an error that keeps the server's words.
 */
import { extractServerMessage } from './model-errors.js'
import { shapeStreamReply } from './reply-body.js'

/** An error page longer than this is cut before its message is extracted. */
const MAX_ERROR_BODY_BYTES = 64 * 1024

/**
 * `keepHeaders`: names the endpoint's own configuration sets, which are never removed.
 * `shapeStreams`: make a 200 to a streaming request into a clean event stream (the OpenAI API;
 * not Ollama's NDJSON).
 */
export function createEndpointFetch(
  base: typeof fetch,
  keepHeaders: readonly string[] = [],
  options: { readonly shapeStreams?: boolean } = {},
): typeof fetch {
  const shapeStreams = options.shapeStreams ?? true
  const kept = new Set(keepHeaders.map((name) => name.toLowerCase()))
  const foreignHeaders = customHeaderNamesFromEnvironment().filter(
    (name) => !kept.has(name.toLowerCase()),
  )
  return async (input, init) => {
    let outgoing = init
    if (foreignHeaders.length > 0 && init?.headers !== undefined) {
      const headers = new Headers(init.headers)
      for (const name of foreignHeaders) headers.delete(name)
      outgoing = { ...init, headers }
    }
    const response = await base(input, outgoing)
    if (response.ok) {
      return shapeStreams && isStreamingRequest(init)
        ? shapeStreamReply(response, urlOf(input))
        : response
    }
    const message = extractServerMessage(await readCapped(response))
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    headers.delete('content-encoding')
    headers.set('content-type', 'application/json')
    return new Response(JSON.stringify({ error: { message } }), {
      status: response.status,
      statusText: response.statusText,
      headers,
    })
  }
}

/** The client sends its body as JSON text; a streaming request says `"stream":true` in it. */
function isStreamingRequest(init: RequestInit | undefined): boolean {
  const body = init?.body
  return typeof body === 'string' && /"stream"\s*:\s*true/.test(body)
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input
  return input instanceof URL ? input.href : input.url
}

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.getReader() as ReadableStreamDefaultReader<Uint8Array>
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  try {
    while (bytes < MAX_ERROR_BODY_BYTES) {
      const { value, done } = await reader.read()
      if (done) break
      bytes += value.byteLength
      text += decoder.decode(value, { stream: true })
    }
    return text + decoder.decode()
  } catch {
    // The connection died while reading an error body: the status alone has to do.
    return text
  } finally {
    reader.cancel().catch(() => {
      // Cancelling a finished or failed body can reject; there is nothing left to release.
    })
  }
}

/** Header names the client would copy from OPENAI_CUSTOM_HEADERS ("Name: value" lines). */
function customHeaderNamesFromEnvironment(): string[] {
  const raw = process.env['OPENAI_CUSTOM_HEADERS']
  if (raw === undefined || raw.length === 0) return []
  const names: string[] = []
  for (const line of raw.split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) names.push(line.slice(0, colon).trim())
  }
  return names
}
