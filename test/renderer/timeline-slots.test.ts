import { describe, expect, it } from 'vitest'
import { rowsBySlot } from '../../renderer/src/features/timeline/event-table'

/** The element (key) each row index is drawn by, for a view of `slots` rows from `first`. */
function keysAt(first: number, count: number, slots: number): Map<number, number> {
  return new Map(rowsBySlot(first, count, slots).map((index) => [index, index % slots]))
}

describe('rowsBySlot', () => {
  it('lists each row from the first in view, one per slot, in the order of the slots', () => {
    const rows = rowsBySlot(12, 1000, 5)
    expect(rows).toEqual([15, 16, 12, 13, 14])
    expect(rows.map((index) => index % 5)).toEqual([0, 1, 2, 3, 4])
  })

  it('keeps the rows that stay in view on their elements, and hands a leaving row its slot', () => {
    const before = keysAt(100, 200_000, 50)
    const after = keysAt(110, 200_000, 50)
    for (let index = 110; index < 150; index++) expect(after.get(index)).toBe(before.get(index))
    // The ten rows scrolled in took the slots of the ten scrolled out.
    const freed = [...before].filter(([index]) => index < 110).map(([, key]) => key)
    const taken = [...after].filter(([index]) => index >= 150).map(([, key]) => key)
    expect(taken.sort()).toEqual(freed.sort())
  })

  it('never lists past the end, and lists every row of a table smaller than the view', () => {
    expect([...rowsBySlot(998, 1000, 5)].sort((a, b) => a - b)).toEqual([995, 996, 997, 998, 999])
    expect(rowsBySlot(0, 3, 50)).toEqual([0, 1, 2])
    expect(rowsBySlot(0, 0, 50)).toEqual([])
  })
})
