import { describe, expect, it } from 'vitest'
import { rowsBySlot } from '../../renderer/src/features/timeline/event-table'
import { offsetFor, rowsInView } from '../../renderer/src/features/timeline/use-row-window'

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

describe('the row window', () => {
  const view = { top: 240, height: 100 }

  it('takes the rows the view shows, overscan more at each end, within the list', () => {
    // Rows 10 to 14 are in view (240..340 px at 24 px a row).
    expect(rowsInView(view, 1000, 24, 2)).toEqual({ first: 8, last: 16 })
    expect(rowsInView({ top: 0, height: 100 }, 3, 24, 6)).toEqual({ first: 0, last: 2 })
    expect(rowsInView({ top: 0, height: 100 }, 0, 24, 6).last).toBeLessThan(0)
  })

  it('scrolls a row into view only when it is out of view, unless told where to place it', () => {
    expect(offsetFor(12, 'auto', view, 24)).toBeUndefined()
    expect(offsetFor(3, 'auto', view, 24)).toBe(72)
    expect(offsetFor(20, 'auto', view, 24)).toBe(20 * 24 + 24 - 100)
    expect(offsetFor(12, 'start', view, 24)).toBe(288)
    expect(offsetFor(12, 'end', view, 24)).toBe(12 * 24 + 24 - 100)
    expect(offsetFor(12, 'center', view, 24)).toBe(288 - 38)
  })
})
