/**
 * A line diff (Myers' O((N+M)D) greedy algorithm) for the per-file counts of `workspace/diff` and
 * the unified diff the UI shows. Lines keep their terminator, so `a\nb` and `a\nb\n` differ in their
 * last line, as in git; bytes are compared exactly (decoded as latin1, never lossy).
 */

/** Work (snake steps + diagonals tried) after which the counts fall back to an upper bound. */
export const DEFAULT_MAX_DIFF_WORK = 10_000_000
/** Edit distance above which `diffLines` stops keeping the trace and emits one replacement. */
export const DEFAULT_MAX_TRACE_EDITS = 2_000
/** Bytes looked at to decide whether content is binary (git looks at 8000 too). */
const BINARY_PROBE_BYTES = 8000

export interface LineCounts {
  additions: number
  deletions: number
  /** True when the diff was too costly and the counts are an upper bound, not the minimum. */
  isApproximate: boolean
}

/** Binary means a NUL byte near the start, git's heuristic; binary files count no lines. */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

/** The lines of `content`, each with its `\n` (the last one may lack it); empty content has none. */
export function splitLines(content: Buffer | string): string[] {
  const text = typeof content === 'string' ? content : content.toString('latin1')
  const lines: string[] = []
  let start = 0
  for (;;) {
    const end = text.indexOf('\n', start)
    if (end < 0) break
    lines.push(text.slice(start, end + 1))
    start = end + 1
  }
  if (start < text.length) lines.push(text.slice(start))
  return lines
}

/** Number of lines as `splitLines` counts them, without building them. */
export function countLines(content: Buffer): number {
  let count = 0
  let at = content.indexOf(10)
  while (at >= 0) {
    count++
    at = content.indexOf(10, at + 1)
  }
  return content.length > 0 && content[content.length - 1] !== 10 ? count + 1 : count
}

/** Lines interned as small integers, with the common prefix and suffix cut off. */
interface Prepared {
  a: Int32Array
  b: Int32Array
  prefix: number
  suffix: number
}

function prepare(before: readonly string[], after: readonly string[]): Prepared {
  let prefix = 0
  const limit = Math.min(before.length, after.length)
  while (prefix < limit && before[prefix] === after[prefix]) prefix++
  let suffix = 0
  while (
    suffix < limit - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) {
    suffix++
  }
  const ids = new Map<string, number>()
  const intern = (lines: readonly string[]): Int32Array => {
    const out = new Int32Array(lines.length - prefix - suffix)
    for (let i = 0; i < out.length; i++) {
      const line = lines[prefix + i] ?? ''
      let id = ids.get(line)
      if (id === undefined) ids.set(line, (id = ids.size))
      out[i] = id
    }
    return out
  }
  return { a: intern(before), b: intern(after), prefix, suffix }
}

/**
 * Runs Myers' forward search. Calls `onRound(d, v)` after each edit distance `d` (for the trace).
 * Returns the minimal edit distance, or undefined once `maxWork` or `maxEdits` is exceeded.
 */
function searchEdits(
  a: Int32Array,
  b: Int32Array,
  maxWork: number,
  maxEdits: number,
  onRound?: (d: number, v: Int32Array, offset: number) => void,
): number | undefined {
  const n = a.length
  const m = b.length
  const max = n + m
  const offset = max + 1
  const v = new Int32Array(2 * max + 3)
  let work = 0
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))
      const start = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1
      let x = start
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      work += 1 + x - start
      v[offset + k] = x
      if (x >= n && y >= m) {
        onRound?.(d, v, offset)
        return d
      }
    }
    onRound?.(d, v, offset)
    if (work > maxWork) return undefined
  }
  return undefined
}

/** Added and deleted line counts between two versions (a minimal diff unless too costly). */
export function countLineChanges(
  before: Buffer | string,
  after: Buffer | string,
  maxWork = DEFAULT_MAX_DIFF_WORK,
): LineCounts {
  const prepared = prepare(splitLines(before), splitLines(after))
  // A line that never occurs on the other side is an addition or deletion in every minimal diff,
  // so dropping those first keeps the counts exact and makes a rewritten file cheap to count.
  const a = onlyShared(prepared.a, prepared.b)
  const b = onlyShared(prepared.b, prepared.a)
  const dropped = {
    additions: prepared.b.length - b.length,
    deletions: prepared.a.length - a.length,
  }
  const edits = searchEdits(a, b, maxWork, Number.MAX_SAFE_INTEGER)
  if (edits === undefined) {
    return {
      additions: prepared.b.length,
      deletions: prepared.a.length,
      isApproximate: true,
    }
  }
  // D = (N - L) + (M - L) for the longest common subsequence L.
  const common = (a.length + b.length - edits) / 2
  return {
    additions: dropped.additions + b.length - common,
    deletions: dropped.deletions + a.length - common,
    isApproximate: false,
  }
}

function onlyShared(lines: Int32Array, other: Int32Array): Int32Array {
  const present = new Set(other)
  return lines.filter((id) => present.has(id))
}

export type DiffOp = { kind: 'same' | 'add' | 'delete'; line: string }

/** The edit script from `before` to `after`, line by line, in order. */
export function diffLines(
  before: readonly string[],
  after: readonly string[],
  maxEdits = DEFAULT_MAX_TRACE_EDITS,
): DiffOp[] {
  const { a, b, prefix, suffix } = prepare(before, after)
  const trace: Int32Array[] = []
  const edits = searchEdits(a, b, DEFAULT_MAX_DIFF_WORK, maxEdits, (d, v, offset) => {
    trace.push(v.slice(offset - d, offset + d + 1))
  })
  const middle: DiffOp[] = []
  if (edits === undefined) {
    for (let i = 0; i < a.length; i++)
      middle.push({ kind: 'delete', line: before[prefix + i] ?? '' })
    for (let j = 0; j < b.length; j++) middle.push({ kind: 'add', line: after[prefix + j] ?? '' })
  } else {
    // Walk the trace backwards from (N, M) to (0, 0).
    let x = a.length
    let y = b.length
    for (let d = edits; d > 0; d--) {
      const prev = trace[d - 1] ?? new Int32Array(0)
      const at = (k: number): number => prev[k + d - 1] ?? 0
      const k = x - y
      const down = k === -d || (k !== d && at(k - 1) < at(k + 1))
      const prevK = down ? k + 1 : k - 1
      const prevX = at(prevK)
      const prevY = prevX - prevK
      while (x > (down ? prevX : prevX + 1) && y > (down ? prevY + 1 : prevY)) {
        middle.push({ kind: 'same', line: before[prefix + --x] ?? '' })
        y--
      }
      if (down) middle.push({ kind: 'add', line: after[prefix + --y] ?? '' })
      else middle.push({ kind: 'delete', line: before[prefix + --x] ?? '' })
    }
    while (x > 0) {
      middle.push({ kind: 'same', line: before[prefix + --x] ?? '' })
    }
    middle.reverse()
  }
  const same = (line: string): DiffOp => ({ kind: 'same', line })
  return [
    ...before.slice(0, prefix).map(same),
    ...middle,
    ...before.slice(before.length - suffix).map(same),
  ]
}
