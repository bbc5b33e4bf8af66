/**
 * The `@` completion's model, with no React in it: where the `@word` being typed is, which
 * project paths match it and in what order, and what the text becomes when one is picked.
 *
 * Ranking, best first: the file's name starts with the query, the name contains it, the path
 * contains it, the query's characters appear in the path in order (fuzzy). Within a rank,
 * shorter paths first, then by path, so the list is stable while the user types.
 */

/** Matches shown at most: a listbox longer than this is scrolled through, not read. */
export const MAX_MATCHES = 50

/** The `@word` the caret is in or right after: where the `@` is and what follows it. */
export interface MentionQuery {
  /** Index of the `@` in the text. */
  readonly start: number
  /** Index just past the word (the caret). */
  readonly end: number
  readonly query: string
}

/**
 * The mention at `caret`, if the caret ends an `@word` that starts the text or follows
 * whitespace (so an email address does not open the list).
 */
export function mentionAt(text: string, caret: number): MentionQuery | undefined {
  const before = text.slice(0, caret)
  const match = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!match) return undefined
  const query = match[2] ?? ''
  return { start: caret - query.length - 1, end: caret, query }
}

/** The project paths that match `query`, best first, at most `limit`. */
export function matchPaths(
  paths: readonly string[],
  query: string,
  limit: number = MAX_MATCHES,
): string[] {
  const q = query.toLowerCase()
  const ranked: { path: string; rank: number }[] = []
  for (const path of paths) {
    const rank = rankOf(path.toLowerCase(), q)
    if (rank !== undefined) ranked.push({ path, rank })
  }
  ranked.sort(
    (a, b) =>
      a.rank - b.rank ||
      a.path.length - b.path.length ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  )
  return ranked.slice(0, limit).map((r) => r.path)
}

function rankOf(path: string, query: string): number | undefined {
  if (query === '') return 0
  const name = path.slice(path.lastIndexOf('/') + 1)
  if (name.startsWith(query)) return 0
  if (name.includes(query)) return 1
  if (path.includes(query)) return 2
  return isSubsequence(query, path) ? 3 : undefined
}

function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0
  for (const char of needle) {
    at = haystack.indexOf(char, at)
    if (at === -1) return false
    at++
  }
  return true
}

/** The text with the mention replaced by `@path ` and where the caret goes after it. */
export function applyPick(
  text: string,
  mention: MentionQuery,
  path: string,
): { text: string; caret: number } {
  const inserted = `@${path} `
  const after = text.slice(mention.end).replace(/^\s/, '')
  return {
    text: text.slice(0, mention.start) + inserted + after,
    caret: mention.start + inserted.length,
  }
}

/** The last part of a path, for a chip's label. */
export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1)
