/**
 * Server-sent events read from a response body, as the OpenAI streaming API sends them: fields
 * `data` (lines joined with a newline), `event` and llama.cpp's `error`; comments and other fields
 * ignored; an event
 * ends at a blank line, and one the body ends in the middle of is dropped. Lines end in `\n`,
 * `\r\n` or `\r`, which may be split between two reads.
 */

export interface ServerEvent {
  /** The `event` field, when the server named the event. */
  readonly event: string | undefined
  readonly data: string
  /**
   * An `error` field line, which SSE would ignore: llama.cpp before September 2025 reported
   * failures as `error: {...}` and then sent `data: [DONE]`.
   */
  readonly error?: string
}

export async function* serverEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<ServerEvent, void, undefined> {
  const decoder = new TextDecoder()
  const reader = new EventReader()
  for await (const bytes of body) yield* reader.read(decoder.decode(bytes, { stream: true }))
  yield* reader.read(decoder.decode(), true)
}

/** The parser's state between reads: the unfinished line, and the event being built. */
class EventReader {
  private pending = ''
  private event: string | undefined
  private data: string[] = []
  private error: string | undefined

  /** The events `text` completes; `isEnd`: the body ended, so a last `\r` ends its line. */
  read(text: string, isEnd = false): ServerEvent[] {
    const events: ServerEvent[] = []
    const pending = this.pending + text
    let start = 0
    for (;;) {
      const ending = nextLineEnd(pending, start)
      if (ending === undefined) break
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next read.
      const isSplit = pending.charCodeAt(ending.index) === CR && ending.index === pending.length - 1
      if (isSplit && !isEnd) break
      const event = this.line(pending.slice(start, ending.index))
      start = ending.index + ending.length
      if (event !== undefined) events.push(event)
    }
    this.pending = pending.slice(start)
    return events
  }

  /** Takes one line; returns the event a blank line ends. */
  private line(line: string): ServerEvent | undefined {
    if (line === '') {
      const event =
        this.event !== undefined || this.data.length > 0 || this.error !== undefined
          ? {
              event: this.event,
              data: this.data.join('\n'),
              ...(this.error === undefined ? {} : { error: this.error }),
            }
          : undefined
      this.event = undefined
      this.data = []
      this.error = undefined
      return event
    }
    const colon = line.indexOf(':')
    if (colon === 0) return undefined // a comment
    const field = colon < 0 ? line : line.slice(0, colon)
    const value =
      colon < 0 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1)
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'error') this.error = value
    return undefined
  }
}

const CR = 13
const SPACE = 32
const LINE_END = /\r\n|\r|\n/g

/** The end of the line that starts at `from`, or undefined when it has not ended yet. */
function nextLineEnd(text: string, from: number): { index: number; length: number } | undefined {
  LINE_END.lastIndex = from
  const found = LINE_END.exec(text)
  return found === null ? undefined : { index: found.index, length: found[0].length }
}
