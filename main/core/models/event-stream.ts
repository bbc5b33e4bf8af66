/**
 * Server-sent events read from a response body, as the OpenAI streaming API sends them, parsed
 * by `eventsource-parser` (the WHATWG rules: `data` lines joined with a newline, `event`,
 * comments, CR/LF/CRLF line ends split anywhere between reads). An event the body ends in the
 * middle of is dropped. One addition: llama.cpp's `error:` lines, which SSE would ignore.
 */
import { createParser } from 'eventsource-parser'

export interface ServerEvent {
  /** The `event` field, when the server named the event. */
  readonly event: string | undefined
  readonly data: string
  /**
   * An `error` field line, which SSE would ignore: llama.cpp before September 2025 reported
   * failures as `error: {...}` and then sent `data: [DONE]`. Reported at its line, as an event
   * of its own with no data.
   */
  readonly error?: string
}

export async function* serverEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerEvent, void, undefined> {
  const decoder = new TextDecoder()
  const ready: ServerEvent[] = []
  const parser = createParser({
    onEvent: ({ event, data }) => ready.push({ event, data }),
    onError: (error) => {
      if (error.type === 'unknown-field' && error.field === 'error') {
        ready.push({ event: undefined, data: '', error: error.value ?? '' })
      }
    },
  })
  let last = ''
  for await (const bytes of body) {
    const text = decoder.decode(bytes, { stream: true })
    parser.feed(text)
    if (text !== '') last = text
    yield* ready.splice(0)
  }
  const rest = decoder.decode()
  parser.feed(rest)
  if (rest !== '') last = rest
  // A last `\r` ends its line, but the parser waits for a possible `\n`: give it one.
  if (last.endsWith('\r')) parser.feed('\n')
  yield* ready.splice(0)
}
