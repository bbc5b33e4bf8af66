import { describe, expect, it } from 'vitest'
import { forkPointOfUser, promptOfAnswer } from '../../renderer/src/features/chat/fork-point'
import { asEvent } from './event-fixture'

type Row = [type: string, turn: number, data?: Record<string, unknown>]

/** A log from rows, seq from 0, step 0, one ms apart. */
const log = (rows: readonly Row[]) =>
  rows.map(([type, turn, data = {}], seq) =>
    asEvent({ v: 1, seq, turn, step: 0, at: seq, type, data }),
  )

const twoTurns = log([
  ['session/created', 0, { projectDir: '/p' }],
  ['inbox/queued', 0, { requestId: 'r1', message: 'first', wake: true }],
  ['turn/start', 1],
  ['user/message', 1, { content: 'date: today', kind: 'context' }],
  ['inbox/claimed', 1, { requestIds: ['r1'] }],
  ['user/message', 1, { content: 'first', kind: 'input' }],
  ['assistant/message', 1, { blocks: [], finish: 'stop' }],
  ['turn/end', 1, { reason: 'completed' }],
  ['inbox/queued', 1, { requestId: 'r2', message: 'second', wake: true }],
  ['turn/start', 2],
  ['inbox/claimed', 2, { requestIds: ['r2'] }],
  ['user/message', 2, { content: 'second', kind: 'input' }],
  ['assistant/message', 2, { blocks: [], finish: 'stop' }],
  ['turn/end', 2, { reason: 'completed' }],
])

describe('forkPointOfUser: just before the message entered the log', () => {
  it('forks at the inbox/queued of the message, so neither it nor its answer is kept', () => {
    expect(forkPointOfUser(twoTurns, 5)).toEqual({ atSeq: 1, text: 'first' })
    expect(forkPointOfUser(twoTurns, 11)).toEqual({ atSeq: 8, text: 'second' })
  })

  it('finds the message in a feed with gaps (chunks and bookkeeping are not forwarded)', () => {
    // Turn 1's tail missing, as in a feed after a turn that streamed and called tools.
    const sparse = twoTurns.filter((event) => ![3, 6, 7].includes(event.seq))
    expect(forkPointOfUser(sparse, 11)).toEqual({ atSeq: 8, text: 'second' })
    expect(promptOfAnswer(sparse, 12)).toBe(11)
    expect(forkPointOfUser(sparse, 12)).toBeUndefined()
  })

  it('picks the right request when one claim took several messages', () => {
    const events = log([
      ['session/created', 0],
      ['inbox/queued', 0, { requestId: 'a', message: 'one', wake: true }],
      ['inbox/queued', 0, { requestId: 'b', message: 'two', wake: true }],
      ['turn/start', 1],
      ['inbox/claimed', 1, { requestIds: ['a', 'b'] }],
      ['user/message', 1, { content: 'one' }],
      ['user/message', 1, { content: 'two' }],
    ])
    expect(forkPointOfUser(events, 6)).toEqual({ atSeq: 2, text: 'two' })
  })

  it('falls back to the turn start when the log has no inbox events', () => {
    const events = log([
      ['session/created', 0],
      ['turn/start', 1],
      ['user/message', 1, { content: 'hi' }],
    ])
    expect(forkPointOfUser(events, 2)).toEqual({ atSeq: 1, text: 'hi' })
  })

  it('is undefined for anything but a user input', () => {
    expect(forkPointOfUser(twoTurns, 3)).toBeUndefined()
    expect(forkPointOfUser(twoTurns, 6)).toBeUndefined()
    expect(forkPointOfUser(twoTurns, 99)).toBeUndefined()
  })
})

describe('promptOfAnswer: the message an answer replies to', () => {
  it('is the last input before the answer, never the context', () => {
    expect(promptOfAnswer(twoTurns, 6)).toBe(5)
    expect(promptOfAnswer(twoTurns, 12)).toBe(11)
    expect(promptOfAnswer(twoTurns, 2)).toBeUndefined()
  })
})
