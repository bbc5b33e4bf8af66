import { describe, expect, it } from 'vitest'
import { EventDto } from '../../protocol/contract'
import { listCheckpoints, savedPercent } from '../../renderer/src/features/checkpoints/checkpoints'
import { FILTERABLE_TYPES } from '../../renderer/src/features/timeline/event-filters'
import { summarizeEvent } from '../../renderer/src/features/timeline/event-summary'
import { asEvent } from './event-fixture'

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

  it('names who decided a call, and whether a command ran sandboxed', () => {
    expect(
      summarizeEvent({
        type: 'approval/decided',
        data: { callId: 'c1', decision: 'allow', by: 'mode', detail: 'full-auto' },
      }),
    ).toBe('c1 allowed by full-auto')
    expect(
      summarizeEvent({
        type: 'approval/decided',
        data: { callId: 'c2', decision: 'allow', by: 'rule', detail: 'bash: npm test *' },
      }),
    ).toBe('c2 allowed by rule bash: npm test *')
    expect(
      summarizeEvent({
        type: 'approval/decided',
        data: {
          callId: 'c3',
          decision: 'deny',
          by: 'assessment',
          reason: '`rm -rf ~` deletes your home folder',
        },
      }),
    ).toBe('c3 refused: `rm -rf ~` deletes your home folder')
    expect(
      summarizeEvent({
        type: 'approval/decided',
        data: { callId: 'c4', decision: 'allow', remember: true, grant: 'ls src\nwc -l a' },
      }),
    ).toBe('c4 allowed by you, and remembered: ls src · wc -l a')
    expect(
      summarizeEvent({
        type: 'approval/requested',
        data: {
          callId: 'c5',
          tool: 'bash',
          description: 'git reset --hard',
          warnings: ['it throws away changes'],
        },
      }),
    ).toBe('c5 bash: git reset --hard [1 warning]')
    expect(
      summarizeEvent({
        type: 'process/started',
        data: { callId: 'c6', pid: 4242, pgid: 4242, sandboxed: true },
      }),
    ).toBe('c6 started, pid 4242, sandboxed')
    expect(
      summarizeEvent({
        type: 'process/started',
        data: { callId: 'c7', pid: 7, pgid: 7, sandboxed: false },
      }),
    ).toBe('c7 started, pid 7, not sandboxed')
    expect(summarizeEvent({ type: 'turn/end', data: { reason: 'interrupted' } })).toBe(
      'interrupted',
    )
  })

  it('lists process records among the types the filter offers', () => {
    expect(FILTERABLE_TYPES).toContain('process/started')
    expect(FILTERABLE_TYPES).toContain('assistant/chunk')
    expect(new Set(FILTERABLE_TYPES).size).toBe(FILTERABLE_TYPES.length)
  })

  it('never throws on a payload of an unexpected shape', () => {
    // Such a payload never reaches a summary: the bridge parses every event with its type's
    // schema and refuses it (a notification is dropped, a page fails whole, with its reason).
    const isRefused = (type: string, data: unknown) =>
      !EventDto.safeParse({ seq: 1, type, v: 1, turn: 1, step: 1, at: 1, data }).success
    expect(isRefused('assistant/message', { blocks: 3 })).toBe(true)
    expect(isRefused('some/future-type', {})).toBe(true)
    expect(isRefused('approval/decided', { decision: 5, by: [] })).toBe(true)
    expect(isRefused('process/started', {})).toBe(true)
    // A type the union does not know still reads as nothing, should one get through.
    expect(
      summarizeEvent(
        asEvent({
          ...{ seq: 1, v: 1, turn: 1, step: 1, at: 1 },
          type: 'some/future-type',
          data: {},
        }),
      ),
    ).toBe('')
  })
})

describe('listCheckpoints', () => {
  it('lists checkpoints and marks the undone ones', () => {
    const base = { v: 1, turn: 0, step: 0, at: 5 }
    const checkpoint = asEvent({
      ...base,
      seq: 20,
      type: 'compaction/checkpoint',
      data: { fromSeq: 1, toSeq: 15, summary: 'S', tokensBefore: 1000, tokensAfter: 250 },
    })
    const undone = asEvent({
      ...base,
      seq: 30,
      type: 'compaction/undone',
      data: { checkpointSeq: 20 },
    })
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
