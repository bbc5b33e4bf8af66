/**
 * Standing grants as text a person reads and edits: `npm test *` is "npm test with any
 * arguments"; `rm -rf build` is that exact command. A word that needs quoting is single-quoted,
 * so a literal `'*'` argument never reads as "any arguments".
 */

/** A remembered command shape: these exact words, then (with `rest`) any further words. */
export interface CommandPattern {
  readonly argv: readonly string[]
  readonly rest: boolean
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/
const SAFE_CHAR = /^[A-Za-z0-9_@%+=:,./-]$/

/** The word as bash would need it written to mean exactly itself. */
export function shellQuote(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

export function patternText(pattern: CommandPattern): string {
  return [...pattern.argv.map(shellQuote), ...(pattern.rest ? ['*'] : [])].join(' ')
}

/**
 * The pattern a text stands for, or undefined when it is not one: empty, an unclosed quote, or
 * anything a shell would expand (`$`, backticks, globs other than a final lone `*`, `~`, `;`).
 * `parsePattern(patternText(p))` gives `p` back.
 */
export function parsePattern(text: string): CommandPattern | undefined {
  const argv: string[] = []
  let rest = false
  let i = 0
  while (i < text.length) {
    if (/\s/.test(text[i] ?? '')) {
      i++
      continue
    }
    if (rest) return undefined
    let word = ''
    let bare = '' // the word's unquoted characters, to tell `*` from `'*'`
    while (i < text.length && !/\s/.test(text[i] ?? '')) {
      const c = text[i] ?? ''
      if (c === "'") {
        const end = text.indexOf("'", i + 1)
        if (end < 0) return undefined
        word += text.slice(i + 1, end)
        bare += "'"
        i = end + 1
      } else if (c === '"') {
        const read = doubleQuoted(text, i + 1)
        if (read === undefined) return undefined
        word += read.value
        bare += '"'
        i = read.end + 1
      } else if (c === '\\') {
        const next = text[i + 1]
        if (next === undefined) return undefined
        word += next
        bare += '\\'
        i += 2
      } else if (c === '*' || SAFE_CHAR.test(c)) {
        word += c
        bare += c
        i++
      } else return undefined
    }
    if (bare === '*') rest = true
    else if (bare.includes('*')) return undefined
    else argv.push(word)
  }
  return argv.length === 0 ? undefined : { argv, rest }
}

/** Inside double quotes only `\$`, `` \` ``, `\"` and `\\` are escapes; `$` and `` ` `` expand. */
function doubleQuoted(text: string, from: number): { value: string; end: number } | undefined {
  let value = ''
  for (let i = from; i < text.length; i++) {
    const c = text[i] ?? ''
    if (c === '"') return { value, end: i }
    if (c === '$' || c === '`') return undefined
    if (c === '\\' && '$`"\\'.includes(text[i + 1] ?? 'x')) {
      value += text[i + 1] ?? ''
      i++
    } else value += c
  }
  return undefined
}
