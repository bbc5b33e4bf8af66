import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { barsOverlap, layoutGantt } from '../../renderer/src/features/timeline/gantt'
import { asEvent } from './event-fixture'

let nextSeq = 0
const ev = (
  type: string,
  at: number,
  data: Record<string, unknown> = {},
  turn = 1,
  step = 1,
): EventDto => asEvent({ seq: nextSeq++, type, v: 1, turn, step, at, data })

describe('layoutGantt', () => {
  it('puts a request and two parallel reads of one step on one lane, the reads on two rows', () => {
    nextSeq = 0
    const events = [
      ev('turn/start', 0, {}, 1, 0),
      ev('step/start', 1),
      ev('request/start', 10, { model: 'scripted' }),
      ev('assistant/message', 50),
      ev('tool/call', 51, { callId: 'a', name: 'read' }),
      ev('tool/call', 51, { callId: 'b', name: 'read' }),
      ev('tool/result', 51, { callId: 'a', ok: true }),
      ev('tool/result', 52, { callId: 'b', ok: false }),
      ev('step/end', 53),
    ]
    const layout = layoutGantt(events)
    expect(layout.lanes).toEqual([{ lane: 0, turn: 1, step: 1, rows: 3 }])
    const [request, a, b] = layout.bars
    expect(request).toMatchObject({
      kind: 'request',
      label: 'scripted',
      row: 0,
      start: 10,
      end: 50,
    })
    expect(a).toMatchObject({ kind: 'tool', label: 'read', row: 1, start: 51, end: 51, ok: true })
    expect(b).toMatchObject({ kind: 'tool', row: 2, start: 51, end: 52, ok: false })
    // Same millisecond, yet concurrent by the log's order: b started before a's result.
    expect(a && b && barsOverlap(a, b)).toBe(true)
    expect(layout.start).toBe(10)
    expect(layout.end).toBe(52)
  })

  it('reuses a row for calls that ran one after another, and gives each step its own lane', () => {
    nextSeq = 0
    const events = [
      ev('request/start', 0, { model: 'scripted' }),
      ev('assistant/message', 5),
      ev('tool/call', 6, { callId: 'x', name: 'bash' }),
      ev('tool/result', 20, { callId: 'x', ok: true }),
      ev('tool/call', 21, { callId: 'y', name: 'edit' }),
      ev('tool/result', 30, { callId: 'y', ok: true }),
      ev('request/start', 31, { model: 'scripted' }, 1, 2),
      ev('assistant/message', 40, {}, 1, 2),
    ]
    const layout = layoutGantt(events)
    expect(layout.lanes.map((l) => [l.step, l.rows])).toEqual([
      [1, 2],
      [2, 1],
    ])
    const x = layout.bars.find((bar) => bar.id === 'tool:1.1.x')
    const y = layout.bars.find((bar) => bar.id === 'tool:1.1.y')
    expect(x?.row).toBe(1)
    expect(y?.row).toBe(1)
    expect(x && y && barsOverlap(x, y)).toBe(false)
    expect(layout.bars.at(-1)).toMatchObject({ lane: 1, row: 0, label: 'scripted' })
  })

  it('ends open bars at `now`, and a retried request at the retry', () => {
    nextSeq = 0
    const events = [
      ev('request/start', 0),
      ev('error', 3),
      ev('request/start', 4),
      ev('assistant/message', 9),
      ev('tool/call', 10, { callId: 'slow', name: 'bash' }),
    ]
    const layout = layoutGantt(events, 100)
    expect(layout.bars.map((bar) => [bar.start, bar.end, bar.isOpen])).toEqual([
      [0, 4, false],
      [4, 9, false],
      [10, 100, true],
    ])
    expect(layout.end).toBe(100)
  })

  it('is empty without requests or calls', () => {
    nextSeq = 0
    expect(layoutGantt([ev('turn/start', 0)])).toEqual({ bars: [], lanes: [], start: 0, end: 0 })
  })

  it('gives a reused call id a bar per step, each closed by its own result', () => {
    nextSeq = 0
    const events = [
      ev('tool/call', 1, { callId: 'call_0', name: 'read' }),
      ev('tool/result', 2, { callId: 'call_0', ok: true }),
      ev('tool/call', 10, { callId: 'call_0', name: 'bash' }, 1, 2),
      ev('tool/result', 30, { callId: 'call_0', ok: false }, 1, 2),
    ]
    const tools = layoutGantt(events).bars.filter((bar) => bar.kind === 'tool')
    expect(tools.map((bar) => [bar.id, bar.start, bar.end, bar.ok])).toEqual([
      ['tool:1.1.call_0', 1, 2, true],
      ['tool:1.2.call_0', 10, 30, false],
    ])
  })
})
