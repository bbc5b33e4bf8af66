import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
import { repairOptions } from '../../../main/core/host/runtime/subagents.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'

// Crash repair of a parent whose `task` call was running: the child is opened (and repaired)
// first, and the parent's call gets the child's answer when the child committed one.

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

/** A parent left as a crash leaves it inside its `task` call, and the child it started. */
function crashInsideTask(childTurn: (child: Session) => void): { parent: string; child: string } {
  const parent = Session.create(store, { projectDir: '/p' })
  parent.append('turn/start', {})
  parent.append('step/start', {})
  parent.append('user/message', { content: 'delegate' })
  const header = parent.append('request/header', { sections: [], tools: [], reason: 'initial' })
  parent.append('request/start', { provider: 't', model: 'm', params: {}, headerSeq: header.seq })
  parent.append('assistant/message', {
    blocks: [{ type: 'tool-call', callId: 'call_0', name: 'task', args: '{}' }],
    finish: 'tool-calls',
  })
  parent.append('tool/call', { callId: 'call_0', name: 'task', args: {} })
  const child = Session.create(store, {
    projectDir: '/p',
    spawnedBy: { sessionId: parent.id, callId: 'call_0' },
  })
  child.append('session/spawned', {
    by: { sessionId: parent.id, callId: 'call_0' },
    description: 'look',
    depth: 1,
    mode: 'fresh',
  })
  parent.append('subagent/started', { callId: 'call_0', sessionId: child.id, description: 'look' })
  childTurn(child)
  parent.flushSync()
  child.flushSync()
  store.close() // the process dies with both sessions open
  return { parent: parent.id, child: child.id }
}

const resultOf = (events: readonly LogEvent[]) =>
  events.find((event) => event.type === 'tool/result')?.data

describe('repair of a task call', () => {
  it("takes the child's committed answer as the call's result", () => {
    const ids = crashInsideTask((child) => appendTurn(child, 'look', [{ reply: 'It is 42.' }]))
    const reopened = home.open()
    const parent = Session.open(reopened, ids.parent, repairOptions(reopened))
    expect(resultOf(parent.slice())).toEqual({
      callId: 'call_0',
      ok: true,
      output: 'It is 42.',
      metadata: { subagent: ids.child },
    })
    expect(parent.slice().at(-1)?.type).toBe('recovery/repaired')
  })

  it('repairs a child cut mid-turn and names it, with what it wrote, in the unknown outcome', () => {
    const ids = crashInsideTask((child) => {
      child.append('turn/start', {})
      child.append('step/start', {})
      child.append('user/message', { content: 'look' })
      const header = child.append('request/header', { sections: [], tools: [], reason: 'initial' })
      child.append('request/start', {
        provider: 't',
        model: 'm',
        params: {},
        headerSeq: header.seq,
      })
      child.append('assistant/chunk', { deltas: [{ kind: 'text', text: 'So far: three files' }] })
    })
    const reopened = home.open()
    const parent = Session.open(reopened, ids.parent, repairOptions(reopened))
    const result = resultOf(parent.slice())
    expect(result).toMatchObject({ ok: false, error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
    expect(JSON.stringify(result)).toContain(`Its subagent (session ${ids.child}) did not finish`)
    expect(JSON.stringify(result)).toContain('So far: three files')
    parent.close()
    // The child was repaired on the way (and its lock released).
    const child = Session.open(reopened, ids.child, { mode: 'read' })
    expect(
      child
        .slice()
        .filter((e) => e.type === 'turn/end')
        .map((e) => e.data),
    ).toEqual([{ reason: 'interrupted-by-crash' }])
  })
})
