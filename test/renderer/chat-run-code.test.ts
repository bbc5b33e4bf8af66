import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { ChatProjection, buildItems } from '../../renderer/src/features/chat/projection'
import type { ChatItem, ToolCallView } from '../../renderer/src/features/chat/items'
import { asEvent } from './event-fixture'

// Code mode in the chat: a run_code call's inner calls (events with `parent`) are rows of its
// card, never cards of their own.

/** A turn with one run_code call `p1`, written event by event (turn 1, step 1). */
function programLog() {
  const events: EventDto[] = []
  const add = (type: string, data: Record<string, unknown>, turn = 1, step = 1) => {
    events.push(
      asEvent({ seq: events.length, type, v: 1, turn, step, at: events.length * 100, data }),
    )
  }
  add('turn/start', {}, 1, 0)
  add('step/start', {})
  add('assistant/message', {
    blocks: [
      {
        type: 'tool-call',
        callId: 'p1',
        name: 'run_code',
        args: JSON.stringify({ code: "return await tools.read({ path: 'a.txt' })" }),
      },
    ],
    finish: 'tool_calls',
  })
  add('tool/call', { callId: 'p1', name: 'run_code', args: { code: 'return 1' } })
  return { events, add }
}

const parent = { callId: 'p1' }
const tools = (items: readonly ChatItem[]): ToolCallView[] =>
  items.flatMap((item) => (item.kind === 'tool' ? [item.call] : []))

describe('run_code in the chat projection', () => {
  it('lists inner calls in its card, in order, with their outcomes; no card of their own', () => {
    const { events, add } = programLog()
    add('tool/call', { callId: 'p1.1', name: 'read', args: { path: 'a.txt' }, parent })
    add('tool/result', { callId: 'p1.1', ok: true, output: 'alpha', parent })
    add('tool/call', { callId: 'p1.2', name: 'read', args: { path: 'nope.txt' }, parent })
    add('tool/result', {
      callId: 'p1.2',
      ok: false,
      error: { code: 'NOT_FOUND', message: 'no file nope.txt' },
      parent,
    })
    add('tool/result', { callId: 'p1', ok: true, output: 'read both\n\nReturned:\nalpha' })

    const calls = tools(buildItems(events))
    expect(calls.map((c) => c.callId)).toEqual(['p1'])
    const [program] = calls
    expect(program?.status).toBe('done')
    expect(program?.inner?.map((c) => [c.callId, c.name, c.args, c.status])).toEqual([
      ['p1.1', 'read', { path: 'a.txt' }, 'done'],
      ['p1.2', 'read', { path: 'nope.txt' }, 'failed'],
    ])
    expect(program?.inner?.[0]?.output).toBe('alpha')
    expect(program?.inner?.[1]?.error).toEqual({ code: 'NOT_FOUND', message: 'no file nope.txt' })
  })

  it('an inner approval waits in its row; the decision and a refusal show there', () => {
    const { events, add } = programLog()
    add('approval/requested', {
      callId: 'p1.1',
      tool: 'write',
      description: 'Write x.txt',
      parent,
    })
    let program = tools(buildItems(events))[0]
    expect(program?.status).toBe('running')
    expect(program?.inner?.[0]).toMatchObject({
      callId: 'p1.1',
      name: 'write',
      status: 'awaiting-approval',
      approval: { description: 'Write x.txt' },
    })
    add('approval/decided', { callId: 'p1.1', decision: 'deny', by: 'user', parent })
    add('tool/result', {
      callId: 'p1.1',
      ok: false,
      error: { code: 'APPROVAL_DENIED', message: 'refused' },
      parent,
    })
    program = tools(buildItems(events))[0]
    expect(program?.inner?.[0]?.status).toBe('denied')
    expect(program?.inner?.[0]?.approval?.decision).toBe('deny')
  })

  it('an inner call decided automatically before its tool/call still shows its tool', () => {
    const { events, add } = programLog()
    add('approval/decided', { callId: 'p1.1', decision: 'allow', by: 'mode', parent })
    add('tool/call', { callId: 'p1.1', name: 'read', args: { path: 'a.txt' }, parent })
    const program = tools(buildItems(events))[0]
    expect(program?.inner?.map((c) => [c.name, c.status])).toEqual([['read', 'running']])
  })

  it('a turn ending under a running inner call closes it as interrupted', () => {
    const { events, add } = programLog()
    add('tool/call', { callId: 'p1.1', name: 'bash', args: { command: 'sleep 9' }, parent })
    add('process/started', { callId: 'p1.1', pid: 9, pgid: 9, sandboxed: true })
    add('turn/end', { reason: 'cancelled' }, 1, 1)
    const program = tools(buildItems(events))[0]
    expect(program?.status).toBe('interrupted')
    expect(program?.inner?.[0]).toMatchObject({ status: 'interrupted', sandboxed: true })
  })

  it('an inner event changes the parent card (a new item), leaving other items as they were', () => {
    const { events, add } = programLog()
    const projection = new ChatProjection()
    const before = projection.update(events.slice())
    add('tool/call', { callId: 'p1.1', name: 'read', args: { path: 'a.txt' }, parent })
    const after = projection.update(events.slice())
    const card = (items: readonly ChatItem[]) => items.find((item) => item.kind === 'tool')
    expect(card(after)).not.toBe(card(before))
    expect(card(after)?.rev).toBe(events.length - 1)
    expect(tools(after)[0]?.inner?.map((c) => c.status)).toEqual(['running'])
    // The snapshot before is untouched: items are never mutated in place.
    expect(tools(before)[0]?.inner).toBeUndefined()
  })

  it('a linked call whose parent is unknown still gets a card of its own', () => {
    const { events, add } = programLog()
    add('tool/call', { callId: 'x.1', name: 'read', args: { path: 'a' }, parent: { callId: 'x' } })
    expect(tools(buildItems(events)).map((c) => c.callId)).toEqual(['p1', 'x.1'])
  })
})
