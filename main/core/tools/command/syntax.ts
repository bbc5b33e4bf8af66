/**
 * Says where and why bash's grammar rejects a line, in words a person can act on. tree-sitter
 * recovers from errors by inserting ERROR and MISSING nodes; any such node means the tree is a
 * guess, and a guess is not something to judge a command by.
 */
import type { Node } from 'web-tree-sitter'

/** Why a line cannot be judged; becomes `{ ok: false, reason }`. */
export class LineError extends Error {
  override name = 'LineError'
}

/** `undefined` when the tree has no errors; otherwise a phrase like "does not parse: …". */
export function syntaxProblem(root: Node): string | undefined {
  if (!root.hasError) return skippedText(root)
  const bad = firstError(root)
  if (bad === undefined) return 'does not parse as bash'
  const where = `line ${bad.startPosition.row + 1}, column ${bad.startPosition.column + 1}`
  if (bad.isMissing) return `does not parse as bash: "${bad.type}" is missing at ${where}`
  const text = bad.text
  const quote = /^\$?["'`]/.exec(text)?.[0] ?? bad.child(0)?.type
  if (quote !== undefined && /^\$?["'`]$/.test(quote)) {
    return `does not parse as bash: the quote ${quote} at ${where} is never closed`
  }
  const snippet = text.length > 40 ? `${text.slice(0, 40)}…` : text
  return `does not parse as bash near "${snippet.replace(/\s+/g, ' ')}" (${where})`
}

function firstError(node: Node): Node | undefined {
  if (node.isError || node.isMissing) return node
  for (const child of node.children) {
    if (child === null || (!child.hasError && !child.isMissing)) continue
    const found = firstError(child)
    if (found !== undefined) return found
  }
  return undefined
}

/** Nodes whose text is read whole (with the gaps between their children) by the word reader. */
const OPAQUE = new Set(['string', 'translated_string', 'heredoc_body', 'comment', 'raw_string'])

/**
 * tree-sitter-bash can leave source text out of the tree without an ERROR node: in
 * `python3 - <<EOF` the `-` is in no node at all. Text the tree skipped is text nobody judged,
 * so any such gap makes the line unjudgeable, except that known case, which the walker restores
 * (see `loneDashBeforeHeredoc`).
 */
function skippedText(root: Node): string | undefined {
  const source = root.text
  const base = root.startIndex
  let at = base
  const cursor = root.walk()
  try {
    for (;;) {
      const node = cursor.currentNode
      const leaf = node.childCount === 0 || OPAQUE.has(node.type)
      if (leaf) {
        const gap = source.slice(at - base, node.startIndex - base)
        if (isSkipped(gap) && !(gap.trim() === '-' && node.type.startsWith('<<'))) {
          const where = node.startPosition
          return `was not fully understood by the parser (it skipped "${gap.trim()}" before line ${where.row + 1}, column ${where.column + 1})`
        }
        at = Math.max(at, node.endIndex)
      }
      if (!leaf && cursor.gotoFirstChild()) continue
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) {
          const tail = source.slice(at - base)
          return isSkipped(tail)
            ? `was not fully understood by the parser (it skipped "${tail.trim()}")`
            : undefined
        }
      }
    }
  } finally {
    cursor.delete()
  }
}

const isSkipped = (gap: string) => /\S/.test(gap.replace(/\\\n/g, '').replace(/\\$/, ''))

/** Whether `-` stood between a command and its here-document (restored by the walker). */
export function loneDashBefore(source: string, from: number, to: number): boolean {
  return source.slice(from, to).trim() === '-'
}
