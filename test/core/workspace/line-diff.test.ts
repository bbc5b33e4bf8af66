import { describe, expect, it } from 'vitest'
import {
  countLineChanges,
  countLines,
  diffLines,
  isBinary,
  splitLines,
} from '../../../main/core/workspace/line-diff.js'

/** The longest common subsequence length by dynamic programming: the reference for the counts. */
function bruteLcs(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0)
  for (const line of a) {
    const row = new Array<number>(b.length + 1).fill(0)
    for (let j = 1; j <= b.length; j++) {
      row[j] = line === b[j - 1] ? (prev[j - 1] ?? 0) + 1 : Math.max(prev[j] ?? 0, row[j - 1] ?? 0)
    }
    prev = row
  }
  return prev[b.length] ?? 0
}

function expectMinimal(before: string, after: string): void {
  const a = splitLines(before)
  const b = splitLines(after)
  const lcs = bruteLcs(a, b)
  expect(countLineChanges(before, after)).toEqual({
    additions: b.length - lcs,
    deletions: a.length - lcs,
    isApproximate: false,
  })
  // The edit script is minimal too, and replays `before` into `after`.
  const ops = diffLines(a, b)
  expect(ops.filter((op) => op.kind !== 'add').map((op) => op.line)).toEqual(a)
  expect(ops.filter((op) => op.kind !== 'delete').map((op) => op.line)).toEqual(b)
  expect(ops.filter((op) => op.kind === 'same')).toHaveLength(lcs)
}

describe('line diff', () => {
  it('splits lines keeping terminators, counting an unterminated last line', () => {
    expect(splitLines('')).toEqual([])
    expect(splitLines('a')).toEqual(['a'])
    expect(splitLines('a\nb\n')).toEqual(['a\n', 'b\n'])
    expect(splitLines('a\n\nb')).toEqual(['a\n', '\n', 'b'])
    for (const text of ['', 'a', '\n', 'a\nb\n', 'a\n\nb', '\n\n\nx']) {
      expect(countLines(Buffer.from(text))).toBe(splitLines(text).length)
    }
  })

  it('counts the spec example: 2 of 5 lines changed and 1 added is +3 -2', () => {
    expect(countLineChanges('1\n2\n3\n4\n5\n', '1\nTWO\n3\nFOUR\n5\n6\n')).toEqual({
      additions: 3,
      deletions: 2,
      isApproximate: false,
    })
  })

  it('handles empty files, missing trailing newlines and moved blocks minimally', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['', 'a\nb\n'],
      ['a\nb\n', ''],
      ['a\nb', 'a\nb\n'],
      ['a\nb\n', 'a\nb'],
      ['a', 'b'],
      ['x\ny\nz\n1\n2\n3\n', '1\n2\n3\nx\ny\nz\n'],
      ['a\nb\nc\nd\ne\nf\n', 'd\ne\na\nb\nc\nf\n'],
      ['a\na\na\nb\n', 'b\na\na\na\n'],
      ['\n\n\n', '\n\n'],
      ['same\n', 'same\n'],
    ]
    for (const [before, after] of cases) expectMinimal(before, after)
  })

  it('matches a brute-force LCS on random small inputs', () => {
    let seed = 42
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const text = (): string => {
      const length = random(12)
      let out = ''
      for (let i = 0; i < length; i++) out += `${'abcd'.charAt(random(4))}\n`
      return random(3) === 0 ? out.slice(0, -1) : out
    }
    for (let i = 0; i < 400; i++) expectMinimal(text(), text())
  })

  it('falls back to an upper bound when the diff is too costly', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i}\n`)
    const reversed = lines.toReversed().join('')
    expect(countLineChanges(lines.join(''), reversed, 1000)).toEqual({
      additions: 300,
      deletions: 300,
      isApproximate: true,
    })
    expect(countLineChanges(lines.join(''), reversed)).toEqual({
      additions: 299,
      deletions: 299,
      isApproximate: false,
    })
  })

  it('counts a complete rewrite of a large file exactly and quickly', () => {
    const before = Array.from({ length: 50_000 }, (_, i) => `old ${i}\n`).join('')
    const after = Array.from({ length: 40_000 }, (_, i) => `new ${i}\n`).join('')
    const startedAt = performance.now()
    expect(countLineChanges(before, after)).toEqual({
      additions: 40_000,
      deletions: 50_000,
      isApproximate: false,
    })
    expect(performance.now() - startedAt).toBeLessThan(2000)
  })

  it('detects binary content by a NUL byte', () => {
    expect(isBinary(Buffer.from([0x89, 0x50, 0x00, 0x01]))).toBe(true)
    expect(isBinary(Buffer.from('plain text\n'))).toBe(false)
  })
})
