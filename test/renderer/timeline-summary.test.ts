import { describe, expect, it } from 'vitest'
import { listCheckpoints, savedPercent } from '../../renderer/src/features/checkpoints/checkpoints'
import { summarizeEvent } from '../../renderer/src/features/timeline/event-summary'

describe('summarizeEvent (renderer)', () => {
  it('says what the common events are about in one line', () => {
    expect(
      summarizeEvent({
        type: 'assistant/message',
        data: {
          blocks: [
            { type: 'text', text: 'Reading\n both.' },
            { type: 'tool-call', callId: 'a', name: 'read', args: '{}' },
          ],
          finish: 'tool-calls',
          usage: { inputTokens: 120, outputTokens: 9 },
        },
      }),
    ).toBe('Reading both. · calls read [tool-calls, 120 in / 9 out]')
    expect(
      summarizeEvent({
        type: 'tool/call',
        data: { callId: 'c1', name: 'read', args: { path: 'a' } },
      }),
    ).toBe('read c1 {"path":"a"}')
    expect(
      summarizeEvent({
        type: 'tool/result',
        data: { callId: 'c1', ok: false, error: { code: 'NOT_FOUND', message: 'no file' } },
      }),
    ).toBe('c1 NOT_FOUND: no file')
    expect(summarizeEvent({ type: 'turn/start', data: {} })).toBe('')
    expect(
      summarizeEvent({
        type: 'notice',
        data: { level: 'warning', code: 'OUTPUT_TRUNCATED', message: 'the answer was cut' },
      }),
    ).toBe('warning OUTPUT_TRUNCATED: the answer was cut')
    expect(
      summarizeEvent({
        type: 'user/message',
        data: { kind: 'notice', content: 'Redo the calls.' },
      }),
    ).toBe('(notice) Redo the calls.')
  })

  it('never throws on a payload of an unexpected shape', () => {
    expect(() => summarizeEvent({ type: 'assistant/message', data: { blocks: 3 } })).not.toThrow()
    expect(summarizeEvent({ type: 'some/future-type', data: {} })).toBe('')
  })
})

describe('listCheckpoints', () => {
  it('lists checkpoints and marks the undone ones', () => {
    const base = { v: 1, turn: 0, step: 0, at: 5 }
    const checkpoint = {
      ...base,
      seq: 20,
      type: 'compaction/checkpoint',
      data: { fromSeq: 1, toSeq: 15, summary: 'S', tokensBefore: 1000, tokensAfter: 250 },
    }
    const undone = { ...base, seq: 30, type: 'compaction/undone', data: { checkpointSeq: 20 } }
    expect(listCheckpoints([checkpoint])[0]).toEqual({
      seq: 20,
      at: 5,
      turn: 0,
      fromSeq: 1,
      toSeq: 15,
      summary: 'S',
      tokensBefore: 1000,
      tokensAfter: 250,
    })
    expect(listCheckpoints([checkpoint, undone])[0]?.undoneSeq).toBe(30)
    expect(savedPercent({ tokensBefore: 1000, tokensAfter: 250 })).toBe(75)
  })
})
