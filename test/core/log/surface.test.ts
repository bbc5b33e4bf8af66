import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session, SUMMARY_PREFIX } from '../../../main/core/log/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from './helpers.js'
import type { TempHome } from './helpers.js'

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

const seqsOf = (session: Session, type: string) =>
  session
    .slice()
    .filter((e) => e.type === type)
    .map((e) => e.seq)

const checkpoint = (fromSeq: number, toSeq: number) => ({
  fromSeq,
  toSeq,
  summary: 'the user said hello; files read',
  tokensBefore: 1000,
  tokensAfter: 100,
})

describe('deriveMessages', () => {
  it('turns the surface into system, user, assistant and tool messages, paired by callId', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'read a', [{ calls: ['c1'] }, { reply: 'it says hi' }])
    const messages = session.deriveMessages()
    expect(messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ])
    expect(messages[0]).toMatchObject({ role: 'system', content: 'You are Bridle.' })
    expect(messages[2]).toMatchObject({
      role: 'assistant',
      blocks: [{ type: 'text' }, { type: 'tool-call', callId: 'c1', name: 'read' }],
    })
    expect(messages[3]).toMatchObject({
      role: 'tool',
      callId: 'c1',
      isError: false,
      content: 'contents for c1',
    })
  })

  it('is incremental yet always equal to a derivation from scratch, and old arrays never grow', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'one', [{ calls: ['a'] }, {}])
    const first = session.deriveMessages()
    const firstCopy = [...first]
    appendTurn(session, 'two')
    const second = session.deriveMessages()
    expect(first).toEqual(firstCopy)
    expect(Object.isFrozen(first)).toBe(true)
    expect(() => {
      ;(second[1] as { content: string }).content = 'changed'
    }).toThrow(TypeError)
    session.flushSync()
    const fresh = Session.open(home.open(), session.id, { mode: 'read' })
    expect(second).toEqual(fresh.deriveMessages())
  })
})

describe('surface replace (compaction checkpoints)', () => {
  it('replaces a range with the summary, keeps the originals in the log, and undo restores them', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'one', [{ calls: ['a'] }, {}])
    appendTurn(session, 'two')
    const before = session.deriveMessages()
    const users = seqsOf(session, 'user/message')
    const assistants = seqsOf(session, 'assistant/message')
    const lastOfTurn1 = assistants[1] ?? -1
    const cp = session.append('compaction/checkpoint', checkpoint(users[0] ?? -1, lastOfTurn1))
    const after = session.deriveMessages()
    expect(after.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant'])
    expect(after[1]).toMatchObject({ role: 'user', kind: 'summary', seq: cp.seq })
    expect(after[1]?.role === 'user' && after[1].content.startsWith(SUMMARY_PREFIX)).toBe(true)
    expect(session.slice().filter((e) => e.type === 'tool/result')).toHaveLength(1)
    session.append('compaction/undone', { checkpointSeq: cp.seq })
    expect(session.deriveMessages()).toEqual(before)
    expect(() => session.append('compaction/undone', { checkpointSeq: cp.seq })).toThrow(
      expect.objectContaining({ code: 'INVALID_REPLACE' }),
    )
  })

  it('refuses a range that would split a tool call from its result, or is not on the surface', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'one', [{ calls: ['a', 'b'] }, {}])
    const [user] = seqsOf(session, 'user/message')
    const [callMessage] = seqsOf(session, 'assistant/message')
    const [resultA, resultB] = seqsOf(session, 'tool/result')
    const refuse = (from: number, to: number) =>
      expect(() => session.append('compaction/checkpoint', checkpoint(from, to))).toThrow(
        expect.objectContaining({ code: 'INVALID_REPLACE' }),
      )
    refuse(user ?? -1, callMessage ?? -1) // the call without its results
    refuse(user ?? -1, resultA ?? -1) // one result left behind
    refuse(resultA ?? -1, resultB ?? -1) // results without their call
    refuse(resultB ?? -1, user ?? -1) // reversed
    refuse(0, user ?? -1) // seq 0 is not model-visible
    const before = session.length
    expect(session.length).toBe(before)
    session.append('compaction/checkpoint', checkpoint(user ?? -1, resultB ?? -1))
  })

  it('refuses to hide a call whose result is still to come', () => {
    const session = Session.create(store, { projectDir: '/p' })
    session.append('turn/start', {})
    session.append('step/start', {})
    const user = session.append('user/message', { content: 'go' })
    const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
    session.append('request/start', {
      provider: 't',
      model: 'm',
      params: {},
      headerSeq: header.seq,
    })
    const message = session.append('assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'x', name: 'bash', args: '{}' }],
      finish: 'tool-calls',
    })
    expect(() =>
      session.append('compaction/checkpoint', checkpoint(user.seq, message.seq)),
    ).toThrow(expect.objectContaining({ code: 'INVALID_REPLACE' }))
  })
})
