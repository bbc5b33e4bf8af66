import { describe, expect, it } from 'vitest'
import { rowsOfSnippet } from '../../renderer/src/features/chat/diff-lines'

describe('rowsOfSnippet: an edit shown at its real lines', () => {
  it('numbers the snippet from the line it starts at, with no false missing-newline note', () => {
    const diff = rowsOfSnippet('a\nb\nc', 'a\nB\nc', 5)
    expect(diff.rows[0]).toEqual({ kind: 'hunk', text: '@@ -5,3 +5,3 @@' })
    expect(diff.rows.find((row) => row.kind === 'del')).toMatchObject({ text: 'b', oldLine: 6 })
    expect(diff.rows.find((row) => row.kind === 'add')).toMatchObject({ text: 'B', newLine: 6 })
    expect(diff.rows.some((row) => row.kind === 'note')).toBe(false)
  })
})
