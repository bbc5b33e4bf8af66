/**
 * Diffs as rows to render: from a unified patch (what `workspace/diff` returns per file) or from a
 * before and after text (an `edit` call's oldText/newText, a new file's content). The `diff`
 * package does the parsing and the diffing; this only numbers lines and caps how many are shown,
 * because a rewritten 20k-line file must not become 20k DOM rows in a chat card.
 */
import { parsePatch, structuredPatch } from 'diff'
import type { StructuredPatchHunk } from 'diff'

export type DiffRowKind = 'hunk' | 'add' | 'del' | 'ctx' | 'note'

export interface DiffRow {
  readonly kind: DiffRowKind
  readonly text: string
  readonly oldLine?: number
  readonly newLine?: number
}

export interface DiffRows {
  readonly rows: readonly DiffRow[]
  readonly additions: number
  readonly deletions: number
  /** Rows left out past the cap. */
  readonly hidden: number
}

export const MAX_DIFF_ROWS = 400

/** Rows of a unified patch; text that is not a patch comes back as one note row. */
export function rowsOfPatch(patch: string, max = MAX_DIFF_ROWS): DiffRows {
  let hunks: StructuredPatchHunk[]
  try {
    hunks = parsePatch(patch).flatMap((file) => file.hunks)
  } catch {
    // A patch the parser refuses is still worth showing as text rather than not at all.
    return { rows: [{ kind: 'note', text: patch }], additions: 0, deletions: 0, hidden: 0 }
  }
  return rowsOfHunks(hunks, max)
}

/** Rows of the change from `before` to `after` (an edit, or a file created: before ''). */
export function rowsOfChange(before: string, after: string, max = MAX_DIFF_ROWS): DiffRows {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 })
  return rowsOfHunks(patch.hunks, max)
}

/**
 * Rows of an edit's snippet (oldText to newText): numbered from `startLine`, the file line the
 * snippet starts at, and without "No newline at end of file", which is about a file's end and
 * means nothing for a snippet cut from the middle of one.
 */
export function rowsOfSnippet(
  before: string,
  after: string,
  startLine = 1,
  max = MAX_DIFF_ROWS,
): DiffRows {
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3 })
  const offset = startLine - 1
  const hunks = patch.hunks.map((hunk) => ({
    ...hunk,
    oldStart: hunk.oldStart + offset,
    newStart: hunk.newStart + offset,
    lines: hunk.lines.filter((line) => !line.startsWith('\\')),
  }))
  return rowsOfHunks(hunks, max)
}

function rowsOfHunks(hunks: readonly StructuredPatchHunk[], max: number): DiffRows {
  const rows: DiffRow[] = []
  let additions = 0
  let deletions = 0
  let hidden = 0
  const push = (row: DiffRow) => {
    if (rows.length < max) rows.push(row)
    else hidden++
  }
  for (const hunk of hunks) {
    push({
      kind: 'hunk',
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    })
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    for (const line of hunk.lines) {
      const mark = line[0]
      const text = line.slice(1)
      if (mark === '+') {
        additions++
        push({ kind: 'add', text, newLine: newLine++ })
      } else if (mark === '-') {
        deletions++
        push({ kind: 'del', text, oldLine: oldLine++ })
      } else if (mark === '\\') {
        push({ kind: 'note', text: line })
      } else {
        push({ kind: 'ctx', text, oldLine: oldLine++, newLine: newLine++ })
      }
    }
  }
  return { rows, additions, deletions, hidden }
}
