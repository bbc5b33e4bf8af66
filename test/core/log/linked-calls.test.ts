import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deriveMessagesAt } from '../../../main/core/log/derive.js'
import { Session } from '../../../main/core/log/index.js'
import { summarizeEvent } from '../../../main/core/log/summary.js'
import type { Store } from '../../../main/core/store/index.js'
import { tempHome } from './helpers.js'
import type { TempHome } from './helpers.js'

// Code mode's inner calls: `tool/call` / `tool/result` linked to the run_code call that made them.

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

/** A step whose assistant message proposed one run_code call, `code`, already started. */
function runningProgram(session: Session): void {
  session.append('turn/start', {})
  session.append('step/start', {})
  session.append('user/message', { content: 'combine a and b' })
  const header = session.append('request/header', { sections: [], tools: [], reason: 'initial' })
  session.append('request/start', { provider: 't', model: 'm', params: {}, headerSeq: header.seq })
  session.append('assistant/message', {
    blocks: [{ type: 'tool-call', callId: 'code', name: 'run_code', args: '{"code":"1"}' }],
    finish: 'tool-calls',
  })
  session.append('tool/call', { callId: 'code', name: 'run_code', args: { code: '1' } })
}

const parent = { callId: 'code' }

describe('linked calls', () => {
  it('are valid while their parent runs, and only the parent reaches the model', () => {
    const session = Session.create(store, { projectDir: '/p' })
    runningProgram(session)
    session.append('approval/decided', { callId: 'code.1', decision: 'allow', by: 'mode', parent })
    const inner = session.append('tool/call', {
      callId: 'code.1',
      name: 'read',
      args: { path: 'a' },
      parent,
    })
    expect(summarizeEvent(inner)).toBe('read code.1 {"path":"a"} (in code)')
    session.append('tool/result', { callId: 'code.1', ok: true, output: 'A', parent })
    // Refused before it started: a result with no tool/call.
    session.append('tool/result', {
      callId: 'code.2',
      ok: false,
      error: { code: 'NO_APPROVAL_CHANNEL', message: 'no one to ask' },
      parent,
    })
    session.append('tool/result', { callId: 'code', ok: true, output: 'A and B' })
    session.append('step/end', { reason: 'tool-calls' })
    const tools = session.deriveMessages().filter((m) => m.role === 'tool')
    expect(tools).toEqual([expect.objectContaining({ callId: 'code', content: 'A and B' })])
    // The pure derivation from the log agrees with the live one.
    expect(deriveMessagesAt(session.slice(), session.length)).toEqual(session.deriveMessages())
  })

  it('refuses a linked call whose parent is not running, or that skips its parent', () => {
    const session = Session.create(store, { projectDir: '/p' })
    runningProgram(session)
    expect(() =>
      session.append('tool/call', {
        callId: 'x.1',
        name: 'read',
        args: {},
        parent: { callId: 'x' },
      }),
    ).toThrow(/linked to x, which is not a running call/)
    session.append('tool/call', { callId: 'code.1', name: 'read', args: {}, parent })
    expect(() =>
      session.append('tool/result', { callId: 'code', ok: true, output: 'too early' }),
    ).toThrow(/before the results of its linked calls code\.1/)
    expect(() =>
      session.append('tool/result', { callId: 'code.1', ok: true, output: 'A' }),
    ).toThrow(/names no parent/)
    expect(() =>
      session.append('approval/decided', { callId: 'code.1', decision: 'allow', parent }),
    ).toThrow(/already started/)
    session.append('tool/result', { callId: 'code.1', ok: true, output: 'A', parent })
    session.append('tool/result', { callId: 'code', ok: true, output: 'done' })
    // The parent answered: a late inner call is refused.
    expect(() =>
      session.append('tool/call', { callId: 'code.2', name: 'read', args: {}, parent }),
    ).toThrow(/not a running call/)
    // A call the model proposed cannot pose as a linked one.
    expect(() =>
      session.append('tool/result', { callId: 'code', ok: true, output: 'x', parent }),
    ).toThrow(/proposed it|not a running call/)
  })

  it('crash repair closes an open linked call, then its parent, both outcome unknown', () => {
    const crashed = Session.create(store, { projectDir: '/p' })
    runningProgram(crashed)
    crashed.append('tool/call', { callId: 'code.1', name: 'read', args: { path: 'a' }, parent })
    crashed.append('tool/result', { callId: 'code.1', ok: true, output: 'A', parent })
    crashed.append('tool/call', {
      callId: 'code.2',
      name: 'bash',
      args: { command: 'make' },
      parent,
    })
    crashed.flushSync()
    const length = crashed.length
    store.close()

    const reopened = Session.open(home.open(), crashed.id)
    const added = reopened.slice(length)
    expect(added.map((e) => e.type)).toEqual([
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
      'recovery/repaired',
    ])
    expect(added[0]?.data).toMatchObject({
      callId: 'code.2',
      parent,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    })
    expect(added[1]?.data).toMatchObject({
      callId: 'code',
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    })
    expect(added[1]?.data).not.toHaveProperty('parent')
    const tools = reopened.deriveMessages().filter((m) => m.role === 'tool')
    expect(tools.map((m) => m.callId)).toEqual(['code'])
    reopened.close()
    expect(Session.open(home.open(), crashed.id).length).toBe(reopened.length)
  })
})
