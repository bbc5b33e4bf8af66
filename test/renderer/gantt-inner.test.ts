import { describe, expect, it } from 'vitest'
import type { EventDto } from '../../protocol/contract'
import { layoutGantt } from '../../renderer/src/features/timeline/gantt'
import { asEvent } from './event-fixture'

// Code mode in the Gantt: a run_code program's inner calls are bars inside its bar.

function events(): EventDto[] {
  let seq = 0
  const ev = (type: string, at: number, data: Record<string, unknown> = {}) =>
    asEvent({ seq: seq++, type, v: 1, turn: 1, step: 1, at, data })
  const parent = { callId: 'p1' }
  return [
    ev('request/start', 0, { model: 'scripted' }),
    ev('assistant/message', 10),
    ev('tool/call', 11, { callId: 'p1', name: 'run_code' }),
    ev('tool/call', 11, { callId: 'b1', name: 'bash' }),
    ev('tool/call', 12, { callId: 'p1.1', name: 'read', parent }),
    ev('tool/result', 20, { callId: 'p1.1', ok: true, parent }),
    ev('tool/call', 21, { callId: 'p1.2', name: 'read', parent }),
    ev('tool/result', 30, { callId: 'p1.2', ok: false, parent }),
    ev('tool/result', 31, { callId: 'p1', ok: true }),
    ev('tool/result', 40, { callId: 'b1', ok: true }),
  ]
}

describe('layoutGantt with code mode', () => {
  it('draws inner calls inside the program: a two-row bar, its calls on its second row', () => {
    const layout = layoutGantt(events())
    const byLabel = (id: string) => layout.bars.find((bar) => bar.id === `tool:1.1.${id}`)
    const program = byLabel('p1')
    expect(program).toMatchObject({ row: 1, rowSpan: 2, start: 11, end: 31, ok: true })
    expect(program?.parentId).toBeUndefined()
    const inner = [byLabel('p1.1'), byLabel('p1.2')]
    for (const bar of inner) {
      expect(bar).toMatchObject({ parentId: 'tool:1.1.p1', row: 2, rowSpan: 1, lane: 0 })
      // Inside the program's span.
      expect(bar?.start).toBeGreaterThanOrEqual(program?.start ?? Infinity)
      expect(bar?.end).toBeLessThanOrEqual(program?.end ?? -Infinity)
    }
    expect(inner.map((bar) => bar?.ok)).toEqual([true, false])
    // The bash call ran beside the program: it goes below both of the program's rows.
    expect(byLabel('b1')).toMatchObject({ row: 3, rowSpan: 1 })
    expect(layout.lanes).toEqual([{ lane: 0, turn: 1, step: 1, rows: 4 }])
  })

  it('an inner call whose program is not in the events gets a row of its own', () => {
    const layout = layoutGantt(
      events().filter((e) => !('callId' in e.data && e.data.callId === 'p1')),
    )
    const orphan = layout.bars.find((bar) => bar.label === 'read')
    expect(orphan?.parentId).toBeUndefined()
    expect(orphan?.rowSpan).toBe(1)
    expect(orphan?.row).toBeGreaterThanOrEqual(1)
  })
})
