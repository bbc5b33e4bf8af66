import { describe, expect, it } from 'vitest'
import { parentCallOf } from '../../renderer/src/features/timeline/event-table'
import { summarizeEvent } from '../../renderer/src/features/timeline/event-summary'
import { FILTERABLE_TYPES } from '../../renderer/src/features/timeline/event-filters'
import { asEvent } from './event-fixture'

// Code mode in the inspector: linked calls are told apart from the model's own, and the switch
// has a summary like any session event.

const at = (type: string, data: Record<string, unknown>) =>
  asEvent({ seq: 1, type, v: 1, turn: 1, step: 1, at: 0, data })

describe('the event table and code mode', () => {
  it('names the run_code call a linked call, result or approval belongs to', () => {
    const parent = { callId: 'p1' }
    expect(parentCallOf(at('tool/call', { callId: 'p1.1', name: 'read', args: {}, parent }))).toBe(
      'p1',
    )
    expect(parentCallOf(at('tool/result', { callId: 'p1.1', ok: true, output: '', parent }))).toBe(
      'p1',
    )
    expect(parentCallOf(at('approval/requested', { callId: 'p1.1', tool: 'write', parent }))).toBe(
      'p1',
    )
    expect(parentCallOf(at('approval/decided', { callId: 'p1.1', decision: 'deny', parent }))).toBe(
      'p1',
    )
    // The program's own call, and other events, are not nested.
    expect(parentCallOf(at('tool/call', { callId: 'p1', name: 'run_code', args: {} }))).toBe(
      undefined,
    )
    expect(parentCallOf(at('turn/start', {}))).toBe(undefined)
  })

  it('summarises the switch and offers it as a filter', () => {
    expect(summarizeEvent({ type: 'session/code-mode', data: { on: true } })).toBe('code mode on')
    expect(summarizeEvent({ type: 'session/code-mode', data: { on: false } })).toBe('code mode off')
    expect(FILTERABLE_TYPES).toContain('session/code-mode')
  })
})
