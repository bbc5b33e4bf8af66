import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { forkSession, Session } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
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

/** A session left as a crash would leave it: streaming, one call started, one not. */
function crashMidStep(session: Session): void {
  appendTurn(session, 'earlier')
  session.append('turn/start', {})
  session.append('step/start', {})
  session.append('user/message', { content: 'do two things' })
  const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
  session.append('request/start', { provider: 't', model: 'm', params: {}, headerSeq: header.seq })
  session.append('assistant/message', {
    blocks: [
      { type: 'tool-call', callId: 'started', name: 'bash', args: '{"command":"make"}' },
      { type: 'tool-call', callId: 'waiting', name: 'write', args: '{}' },
    ],
    finish: 'tool-calls',
  })
  session.append('tool/call', { callId: 'started', name: 'bash', args: { command: 'make' } })
}

const tail = (session: Session, from: number): LogEvent[] => session.slice(from)

describe('repair on open', () => {
  it('closes a crashed step: outcome unknown, not started, step and turn ended, one recovery record', () => {
    const crashed = Session.create(store, { projectDir: '/p' })
    crashMidStep(crashed)
    crashed.flushSync()
    const length = crashed.length
    store.close() // the process "dies": its lock row stays behind with a live pid, so unlock via close

    const reopened = Session.open(home.open(), crashed.id)
    const added = tail(reopened, length)
    expect(added.map((e) => e.type)).toEqual([
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
      'recovery/repaired',
    ])
    expect(added[0]?.data).toMatchObject({
      callId: 'started',
      ok: false,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    })
    expect(added[1]?.data).toMatchObject({
      callId: 'waiting',
      ok: false,
      error: { code: 'TOOL_NOT_STARTED' },
    })
    expect(added[2]?.data).toEqual({ reason: 'interrupted-by-crash' })
    expect(added[3]?.data).toEqual({ reason: 'interrupted-by-crash' })
    expect(added[4]?.data).toMatchObject({
      cause: 'crash',
      items: [{ seq: length }, {}, {}, { seq: length + 3 }],
    })
    const toolMessages = reopened.deriveMessages().filter((m) => m.role === 'tool')
    expect(toolMessages.at(-2)?.content).toContain('Check the current state')
    reopened.close()
    const again = Session.open(home.open(), crashed.id)
    expect(again.length).toBe(reopened.length)
  })

  it('keeps what streamed before the crash as an interrupted message without tool calls', () => {
    const crashed = Session.create(store, { projectDir: '/p' })
    crashed.append('turn/start', {})
    crashed.append('step/start', {})
    crashed.append('user/message', { content: 'explain' })
    const header = crashed.append('request/header', { sections: [], tools: [], reason: 'initial' })
    crashed.append('request/start', {
      provider: 't',
      model: 'm',
      params: {},
      headerSeq: header.seq,
    })
    crashed.append('assistant/chunk', {
      deltas: [
        { kind: 'reasoning', text: 'think ' },
        { kind: 'reasoning', text: 'hard' },
      ],
    })
    crashed.append('assistant/chunk', {
      deltas: [
        { kind: 'text', text: 'The answer ' },
        { kind: 'tool-call', index: 0, callId: 'c', name: 'read', argsDelta: '{"pa' },
        { kind: 'text', text: 'is 42' },
      ],
    })
    crashed.flushSync()
    const length = crashed.length
    store.close()
    const reopened = Session.open(home.open(), crashed.id)
    const [message] = tail(reopened, length)
    expect(message).toMatchObject({
      type: 'assistant/message',
      data: {
        blocks: [
          { type: 'reasoning', text: 'think hard' },
          { type: 'text', text: 'The answer is 42' },
        ],
        interrupted: true,
      },
    })
    expect(tail(reopened, length).map((e) => e.type)).toEqual([
      'assistant/message',
      'step/end',
      'turn/end',
      'recovery/repaired',
    ])
  })

  it('asks settleLeftoverCall about a started call: a found answer is its result, a note joins the unknown outcome', () => {
    const crashed = Session.create(store, { projectDir: '/p' })
    crashMidStep(crashed)
    crashed.append('tool/call', { callId: 'waiting', name: 'write', args: {} })
    crashed.flushSync()
    const length = crashed.length
    store.close()
    const asked: string[] = []
    const reopened = Session.open(home.open(), crashed.id, {
      settleLeftoverCall: (sessionId, call) => {
        expect(sessionId).toBe(crashed.id)
        asked.push(`${call.callId}:${call.name}`)
        return call.callId === 'started'
          ? { output: 'the child answered', metadata: { subagent: 'child-1' } }
          : { note: 'Its subagent child-2 stopped mid-turn.' }
      },
    })
    expect(asked).toEqual(['started:bash', 'waiting:write'])
    const [first, second] = tail(reopened, length)
    expect(first?.data).toEqual({
      callId: 'started',
      ok: true,
      output: 'the child answered',
      metadata: { subagent: 'child-1' },
    })
    expect(second?.data).toMatchObject({
      callId: 'waiting',
      ok: false,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    })
    expect(JSON.stringify(second?.data)).toContain('Its subagent child-2 stopped mid-turn.')
  })

  it('adds nothing to a session that was closed cleanly', () => {
    const session = Session.create(store, { projectDir: '/p' })
    appendTurn(session, 'x', [{ calls: ['a'] }, {}])
    session.close()
    expect(Session.open(home.open(), session.id).length).toBe(session.length)
  })
})

describe('fork', () => {
  it('shares the parent prefix without copying it and continues with its own seqs', () => {
    const parent = Session.create(store, { projectDir: '/p', title: 'parent' })
    appendTurn(parent, 'one')
    const forkAt = parent.length
    appendTurn(parent, 'two')
    parent.flushSync()
    const childId = forkSession(store, parent.id, forkAt)
    expect(store.readOwnEvents(childId)).toEqual([])
    const child = Session.open(store, childId)
    expect(child.slice()).toEqual(parent.slice(0, forkAt))
    appendTurn(child, 'two, differently')
    expect(child.event(forkAt)?.type).toBe('turn/start')
    expect(child.lastTurn).toBe(2)
    child.flushSync()
    expect(store.getSession(childId)).toMatchObject({
      parentId: parent.id,
      forkSeq: forkAt,
      title: null,
    })
    expect(store.listTree().map((s) => s.id)).toEqual(expect.arrayContaining([parent.id, childId]))
  })

  it('derives the parent prefix plus its own events, through a grandparent too', () => {
    const root = Session.create(store, { projectDir: '/p' })
    appendTurn(root, 'r1', [{ calls: ['a'] }, {}])
    appendTurn(root, 'r2')
    root.flushSync()
    const mid = Session.open(store, forkSession(store, root.id, root.length))
    appendTurn(mid, 'm1')
    mid.flushSync()
    const leaf = Session.open(store, forkSession(store, mid.id, mid.length))
    appendTurn(leaf, 'l1')
    const withoutSystem = (s: Session) => s.deriveMessages().filter((m) => m.role !== 'system')
    const leafMessages = withoutSystem(leaf)
    const rootMessages = withoutSystem(root)
    expect(leafMessages.slice(0, rootMessages.length)).toEqual(rootMessages)
    expect(leafMessages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'r1',
      'r2',
      'm1',
      'l1',
    ])
  })

  it('closes a turn that the fork point cuts, with synthetic events first', () => {
    const parent = Session.create(store, { projectDir: '/p' })
    appendTurn(parent, 'done before')
    crashMidStep(parent)
    const cut = parent.length
    parent.append('tool/result', { callId: 'started', ok: true, output: 'built' })
    parent.flushSync()
    const child = Session.open(store, forkSession(store, parent.id, cut))
    expect(child.slice(cut).map((e) => e.type)).toEqual([
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
      'recovery/repaired',
    ])
    expect(child.event(cut + 2)?.data).toEqual({ reason: 'interrupted-by-fork' })
    expect(child.event(cut + 4)?.data).toMatchObject({ cause: 'fork' })
    expect(child.isTurnOpen).toBe(false)
    appendTurn(child, 'carry on')
  })

  it('refuses a fork point outside the history', () => {
    const parent = Session.create(store, { projectDir: '/p' })
    expect(() => forkSession(store, parent.id, 0)).toThrow(
      expect.objectContaining({ code: 'INVALID_FORK' }),
    )
    expect(() => forkSession(store, parent.id, parent.length + 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_FORK' }),
    )
    expect(() => forkSession(store, 'nope', 1)).toThrow(
      expect.objectContaining({ code: 'NO_SUCH_SESSION' }),
    )
  })
})
