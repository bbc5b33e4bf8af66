import { diffLines, isBinary, splitLines } from './line-diff.js'
import type { DiffOp } from './line-diff.js'

/** Unchanged lines shown around each change, as `git diff` does by default. */
export const DEFAULT_DIFF_CONTEXT = 3

/**
 * A unified diff (`--- a/path`, `+++ b/path`, `@@` hunks) from `before` to `after`; undefined
 * content means the file did not exist. Binary content gives the one line git prints instead.
 * Lines are decoded as UTF-8 for display only; the diff itself compares bytes.
 */
export function formatUnifiedDiff(
  path: string,
  before: Buffer | undefined,
  after: Buffer | undefined,
  context = DEFAULT_DIFF_CONTEXT,
): string {
  const header = `--- ${before ? `a/${path}` : '/dev/null'}\n+++ ${after ? `b/${path}` : '/dev/null'}\n`
  if ((before && isBinary(before)) || (after && isBinary(after))) {
    return `Binary files ${before ? `a/${path}` : '/dev/null'} and ${after ? `b/${path}` : '/dev/null'} differ\n`
  }
  const ops = diffLines(splitLines(before ?? Buffer.alloc(0)), splitLines(after ?? Buffer.alloc(0)))
  const hunks = formatHunks(ops, context)
  return hunks === '' ? '' : header + hunks
}

function formatHunks(ops: readonly DiffOp[], context: number): string {
  let out = ''
  let i = 0
  // Line numbers (1-based) in before/after of ops[i].
  let oldLine = 1
  let newLine = 1
  while (i < ops.length) {
    const firstChange = ops.findIndex((op, at) => at >= i && op.kind !== 'same')
    if (firstChange < 0) break
    const start = Math.max(i, firstChange - context)
    for (let skip = i; skip < start; skip++) {
      oldLine++
      newLine++
    }
    // One hunk while the unchanged gap between changes is at most 2 * context lines, as in git.
    let end = firstChange
    let lastChange = firstChange
    while (end < ops.length && end - lastChange <= 2 * context + 1) {
      if (ops[end]?.kind !== 'same') lastChange = end
      end++
    }
    end = Math.min(ops.length, lastChange + context + 1)
    const lines: string[] = []
    let oldCount = 0
    let newCount = 0
    for (let at = start; at < end; at++) {
      const op = ops[at]
      if (!op) break
      const prefix = op.kind === 'same' ? ' ' : op.kind === 'add' ? '+' : '-'
      if (op.kind !== 'add') oldCount++
      if (op.kind !== 'delete') newCount++
      lines.push(renderLine(prefix, op.line))
    }
    const oldStart = oldCount === 0 ? oldLine - 1 : oldLine
    const newStart = newCount === 0 ? newLine - 1 : newLine
    out += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n${lines.join('')}`
    oldLine += oldCount
    newLine += newCount
    i = end
  }
  return out
}

function renderLine(prefix: string, line: string): string {
  const text = Buffer.from(line, 'latin1').toString('utf8')
  return text.endsWith('\n')
    ? `${prefix}${text}`
    : `${prefix}${text}\n\\ No newline at end of file\n`
}
