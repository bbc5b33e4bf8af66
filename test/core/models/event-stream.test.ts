import { describe, expect, it } from 'vitest'
import { serverEvents } from '../../../main/core/models/event-stream.js'
import type { ServerEvent } from '../../../main/core/models/event-stream.js'

/** The events of a body that arrives in these pieces. */
async function eventsOf(...pieces: string[]): Promise<ServerEvent[]> {
  const encoder = new TextEncoder()
  async function* body() {
    for (const piece of pieces) {
      await Promise.resolve()
      yield encoder.encode(piece)
    }
  }
  const events: ServerEvent[] = []
  for await (const event of serverEvents(body())) events.push(event)
  return events
}

describe('serverEvents', () => {
  it('reads data events, ending each at a blank line', async () => {
    expect(await eventsOf('data: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ])
  })

  it('joins data lines, keeps the event name, and skips comments and unknown fields', async () => {
    const body = ': keep-alive\n\nevent: error\nid: 7\ndata: {"error":\ndata:"x"}\n\n'
    expect(await eventsOf(body)).toEqual([{ event: 'error', data: '{"error":\n"x"}' }])
  })

  it('takes a line, a CRLF or a multi-byte character split between two reads', async () => {
    expect(await eventsOf('da', 'ta: h\u00e9', 'llo\r', '\n\r', '\ndata:x\r\r')).toEqual([
      { event: undefined, data: 'h\u00e9llo' },
      { event: undefined, data: 'x' },
    ])
    const bytes = new TextEncoder().encode('data: \u00e9\n\n')
    const split = [bytes.subarray(0, 7), bytes.subarray(7)]
    const events: ServerEvent[] = []
    for await (const event of serverEvents(split.values() as unknown as AsyncIterable<Uint8Array>))
      events.push(event)
    expect(events).toEqual([{ event: undefined, data: '\u00e9' }])
  })

  it('keeps an `error:` field line, which SSE would ignore', async () => {
    expect(await eventsOf('error: {"message":"x"}\n\ndata: [DONE]\n\n')).toEqual([
      { event: undefined, data: '', error: '{"message":"x"}' },
      { event: undefined, data: '[DONE]' },
    ])
  })

  it('drops an event the body ends in the middle of', async () => {
    expect(await eventsOf('data: 1\n\ndata: 2\n')).toEqual([{ event: undefined, data: '1' }])
  })
})
