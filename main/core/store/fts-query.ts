/**
 * Turns what a user typed into a safe FTS5 query. Users type words, not FTS5 syntax: a stray
 * quote, `NEAR(`, `OR`, `*` or `col:` must neither throw nor change the meaning. Every word
 * becomes a quoted phrase (quotes doubled, which is FTS5's only escape inside a string) and the
 * phrases are AND-ed, so a hit contains every word.
 */

/**
 * A word is kept only if the unicode61 tokenizer would find a token in it (a letter or digit):
 * FTS5 treats an empty phrase in an AND as matching nothing, so `hello (` would find nothing.
 */
const HAS_TOKEN = /[\p{L}\p{N}]/u

/** Returns the MATCH expression, or undefined when the text has no searchable word. */
export function toFtsQuery(text: string): string | undefined {
  const phrases = text
    .split(/\s+/u)
    // NUL ends a C string inside SQLite; other control characters are never tokens.
    .map((word) => word.replace(/\p{Cc}/gu, ''))
    .filter((word) => HAS_TOKEN.test(word))
    .map((word) => `"${word.replaceAll('"', '""')}"`)
  return phrases.length === 0 ? undefined : phrases.join(' AND ')
}
