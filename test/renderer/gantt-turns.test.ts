import { describe, expect, it } from 'vitest'
import { nearestIndex } from '../../renderer/src/features/timeline/turn-stepper'
import { turnSpans } from '../../renderer/src/features/timeline/use-turn-events'
import { asEvent } from './event-fixture'

const turnStart = (seq: number, turn: number) =>
  asEvent({ seq, type: 'turn/start', v: 1, turn, step: 0, at: seq, data: {} })

describe('turnSpans', () => {
  it("spans each turn from its start to the next turn's, the last one to the end", () => {
    expect(turnSpans([turnStart(3, 1), turnStart(40, 2), turnStart(90, 3)])).toEqual([
      { turn: 1, fromSeq: 3, toSeq: 40 },
      { turn: 2, fromSeq: 40, toSeq: 90 },
      { turn: 3, fromSeq: 90 },
    ])
    expect(turnSpans([])).toEqual([])
  })
})

describe('nearestIndex', () => {
  it('takes the turn typed, or the nearest there is (the earlier on a tie)', () => {
    const turns = [1, 2, 5, 9]
    expect(nearestIndex(turns, 5)).toBe(2)
    expect(nearestIndex(turns, 4)).toBe(2)
    expect(nearestIndex(turns, 7)).toBe(2)
    expect(nearestIndex(turns, 8)).toBe(3)
    expect(nearestIndex(turns, -3)).toBe(0)
    expect(nearestIndex(turns, 1e9)).toBe(3)
    expect(nearestIndex([7], 1)).toBe(0)
  })
})
