import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { buildItems } from '../../renderer/src/features/chat/projection'
import type { ChatItem, ToolCallView } from '../../renderer/src/features/chat/items'
import {
  childProgress,
  isSubagentCall,
  subagentView,
} from '../../renderer/src/features/chat/subagent'
import { layoutGantt } from '../../renderer/src/features/timeline/gantt'
import { summarizeEvent } from '../../renderer/src/features/timeline/event-summary'
import { sessionLinkOf } from '../../renderer/src/features/timeline/subagent-link'
import { asEvent } from './event-fixture'

/** A parent's log around one `task` call, event by event (turn 1, step 1; `at` = seq * 100). */
function parentLog() {
  const events: EventDto[] = []
  const add = (type: string, data: Record<string, unknown>, step = 1): EventDto => {
    const seq = events.length
    const event = asEvent({ seq, type, v: 1, turn: 1, step, at: seq * 100, data })
    events.push(event)
    return event
  }
  add('turn/start', {}, 0)
  add('user/message', { content: 'Look around', kind: 'input' }, 0)
  add('step/start', {})
  add('request/start', { provider: 'x', model: 'scripted', params: {}, headerSeq: 0 })
  const args = { description: 'Survey the notes', prompt: 'Read notes.md and\nsum it up' }
  add('assistant/message', {
    blocks: [{ type: 'tool-call', callId: 'c1', name: 'task', args: JSON.stringify(args) }],
    finish: 'tool-calls',
  })
  add('tool/call', { callId: 'c1', name: 'task', args })
  return { events, add }
}

const taskCall = (events: readonly EventDto[]): ToolCallView => {
  const item = buildItems(events).find(
    (candidate): candidate is Extract<ChatItem, { kind: 'tool' }> => candidate.kind === 'tool',
  )
  if (item === undefined) throw new Error('no tool item')
  return item.call
}

describe('the chat card of a task call', () => {
  it('runs: the description, the prompt, and the child once subagent/started names it', () => {
    const { events, add } = parentLog()
    const before = taskCall(events)
    expect(isSubagentCall(before)).toBe(true)
    expect(subagentView(before, before.status)).toEqual({
      description: 'Survey the notes',
      prompt: 'Read notes.md and\nsum it up',
      childId: undefined,
      state: 'running',
    })
    add('subagent/started', { callId: 'c1', sessionId: 'child-1', description: 'Survey the notes' })
    const running = taskCall(events)
    expect(subagentView(running, running.status)).toMatchObject({
      childId: 'child-1',
      state: 'running',
    })
  })

  it('is done with the answer, the child named by the result too', () => {
    const { events, add } = parentLog()
    add('tool/result', {
      callId: 'c1',
      ok: true,
      output: 'The notes say hello.',
      metadata: { subagent: 'child-2' },
    })
    const done = taskCall(events)
    expect(done.output).toBe('The notes say hello.')
    expect(subagentView(done, done.status)).toMatchObject({ childId: 'child-2', state: 'done' })
  })

  it('failed: the reason and the child; stopped when the user stopped it; waiting for approval', () => {
    const failed = parentLog()
    failed.add('subagent/started', { callId: 'c1', sessionId: 'child-3', description: 'x' })
    failed.add('tool/result', {
      callId: 'c1',
      ok: false,
      error: { code: 'SUBAGENT_FAILED', message: 'step limit reached; it had said: half' },
      metadata: { subagent: 'child-3' },
    })
    const call = taskCall(failed.events)
    expect(call.error?.message).toContain('step limit')
    expect(subagentView(call, call.status)).toMatchObject({ childId: 'child-3', state: 'failed' })

    const stopped = parentLog()
    stopped.add('tool/result', {
      callId: 'c1',
      ok: false,
      error: { code: 'CANCELLED', message: 'stopped' },
    })
    const stoppedCall = taskCall(stopped.events)
    expect(subagentView(stoppedCall, stoppedCall.status)).toMatchObject({
      childId: undefined,
      state: 'stopped',
    })
    // The tool's own word for a child the user stopped, with what it wrote: stopped too.
    const toldStopped = parentLog()
    toldStopped.add('tool/result', {
      callId: 'c1',
      ok: false,
      error: { code: 'SUBAGENT_STOPPED', message: 'was stopped before it finished' },
      metadata: { subagent: 'child-4' },
    })
    const toldCall = taskCall(toldStopped.events)
    expect(subagentView(toldCall, toldCall.status)).toMatchObject({
      childId: 'child-4',
      state: 'stopped',
    })
    // A turn that ended with the call open (a crash, a stop before its result) stops it too.
    const cut = parentLog()
    cut.add('turn/end', { reason: 'cancelled' }, 1)
    const cutCall = taskCall(cut.events)
    expect(subagentView(cutCall, cutCall.status).state).toBe('stopped')
    expect(subagentView(cutCall, 'awaiting-approval').state).toBe('waiting')
  })

  it('is not taken for an MCP tool that happens to be called task, and names a nameless one', () => {
    expect(isSubagentCall({ name: 'task', mcp: { server: 's', tool: 'task' } })).toBe(false)
    expect(isSubagentCall({ name: 'bash' })).toBe(false)
    const bare: ToolCallView = {
      key: 'k',
      callId: 'c',
      step: 1,
      name: 'task',
      args: undefined,
      argsText: '{oops',
      status: 'queued',
      metadata: {},
      subagent: { sessionId: 's', description: 'From the log' },
    }
    expect(subagentView(bare, 'queued')).toMatchObject({
      description: 'From the log',
      prompt: '',
      state: 'waiting',
    })
    expect(subagentView({ ...bare, subagent: undefined }, 'queued').description).toBe('Subagent')
  })

  it("says the child's progress from its summary alone", () => {
    expect(childProgress(undefined)).toBeUndefined()
    expect(childProgress({ messageCount: 1, isRunning: true })).toBe('1 message, working')
    expect(childProgress({ messageCount: 4, isRunning: false })).toBe('4 messages')
  })
})

describe('the Gantt and the timeline of a task call', () => {
  it("labels the call's bar with the subagent's description and names the child", () => {
    const { events, add } = parentLog()
    const open = layoutGantt(events).bars.find((bar) => bar.kind === 'tool')
    expect(open).toMatchObject({ label: 'Survey the notes', isOpen: true })
    expect(open?.subagentId).toBeUndefined()
    add('subagent/started', {
      callId: 'c1',
      sessionId: 'child-1',
      description: 'Survey the notes (2)',
    })
    add('tool/result', { callId: 'c1', ok: true, output: 'ok', metadata: { subagent: 'child-1' } })
    const bar = layoutGantt(events).bars.find((candidate) => candidate.kind === 'tool')
    expect(bar).toMatchObject({
      label: 'Survey the notes (2)',
      subagentId: 'child-1',
      isOpen: false,
      ok: true,
      start: 500,
      end: 700,
    })
    // Other tools keep their name.
    const plain = layoutGantt([
      asEvent({
        seq: 0,
        type: 'tool/call',
        v: 1,
        turn: 1,
        step: 1,
        at: 0,
        data: { callId: 'r', name: 'read', args: { description: 'not a task' } },
      }),
    ]).bars[0]
    expect(plain?.label).toBe('read')
    expect(plain?.subagentId).toBeUndefined()
  })

  it('draws two subagents of one reply as two labelled spans side by side', () => {
    const at = (seq: number, type: string, data: Record<string, unknown>) =>
      asEvent({ seq, type, v: 1, turn: 1, step: 1, at: seq * 10, data })
    const task = (callId: string, description: string) => ({
      callId,
      name: 'task',
      args: { description, prompt: 'p' },
    })
    const bars = layoutGantt([
      at(0, 'tool/call', task('a', 'First')),
      at(1, 'tool/call', task('b', 'Second')),
      at(2, 'subagent/started', { callId: 'a', sessionId: 'child-a', description: 'First' }),
      at(3, 'subagent/started', { callId: 'b', sessionId: 'child-b', description: 'Second' }),
      at(4, 'tool/result', {
        callId: 'b',
        ok: true,
        output: 'b',
        metadata: { subagent: 'child-b' },
      }),
      at(5, 'tool/result', {
        callId: 'a',
        ok: false,
        error: { code: 'SUBAGENT_FAILED', message: 'x' },
      }),
    ]).bars
    expect(bars.map((bar) => [bar.label, bar.subagentId, bar.row, bar.ok])).toEqual([
      ['First', 'child-a', 1, false],
      ['Second', 'child-b', 2, true],
    ])
  })

  it('offers the child from the call, its subagent/started and its result; the parent from session/spawned', () => {
    const { events, add } = parentLog()
    const call = events.at(-1)
    const started = add('subagent/started', {
      callId: 'c1',
      sessionId: 'child-1',
      description: 'Survey the notes',
    })
    const result = add('tool/result', { callId: 'c1', ok: true, output: 'ok', metadata: {} })
    const open = { sessionId: 'child-1', label: 'Open subagent' }
    expect(call && sessionLinkOf(call, events)).toEqual(open)
    expect(sessionLinkOf(started, events)).toEqual(open)
    // A result without the metadata names no child itself.
    expect(sessionLinkOf(result, events)).toBeUndefined()
    const spawned = asEvent({
      seq: 0,
      type: 'session/spawned',
      v: 1,
      turn: 0,
      step: 0,
      at: 0,
      data: {
        by: { sessionId: 'parent', callId: 'c1' },
        description: 'd',
        depth: 1,
        mode: 'fresh',
      },
    })
    expect(sessionLinkOf(spawned, [spawned])).toEqual({
      sessionId: 'parent',
      label: 'Open parent session',
    })
    expect(events[0] && sessionLinkOf(events[0], events)).toBeUndefined()
  })

  it('summarises the two events in a line', () => {
    expect(
      summarizeEvent({
        type: 'subagent/started',
        data: { callId: 'c1', sessionId: 'child-1', description: 'Survey the notes' },
      } as never),
    ).toBe('c1 started subagent child-1: Survey the notes')
    expect(
      summarizeEvent({
        type: 'session/spawned',
        data: {
          by: { sessionId: 'p', callId: 'c1' },
          description: 'Survey',
          depth: 1,
          mode: 'fork',
        },
      } as never),
    ).toBe("subagent (depth 1, seeded with the parent's history) of p, call c1: Survey")
  })
})
