/**
 * Reads a sed script far enough to know whether it only edits text: no `w`/`W` command or `w`
 * flag (which write to any file), no `e` command or flag (which run a shell command). A script
 * this reader does not follow is reported too: containment is proven, never assumed.
 */

/** Commands that take no argument (or an optional number) and touch no file. */
const PLAIN = new Set(Array.from('pPdDnN=hHgGxzlLqQF{}'))
/** Commands whose argument runs to the end of the line: text to add, a file to read, a label. */
const TO_END_OF_LINE = new Set(Array.from('aicrR:'))
/** Branches: a label up to `;` or the end of the line. */
const BRANCHES = new Set(Array.from('btT'))

/** Why `script` may write a file or run a program; undefined when it only edits text. */
export function sedScriptProblem(script: string): string | undefined {
  let i = 0
  const at = () => script[i] ?? ''
  const toEndOfLine = () => {
    while (i < script.length && at() !== '\n') i += at() === '\\' ? 2 : 1
  }
  /** Skips a delimited part (`/re/` or the pattern of `s`); false when it never ends. */
  const delimited = (delim: string): boolean => {
    i++
    while (i < script.length && at() !== delim) i += at() === '\\' ? 2 : 1
    if (i >= script.length) return false
    i++
    return true
  }
  while (i < script.length) {
    const c = at()
    if (/[\s;!,0-9$~+]/.test(c)) {
      i++
      continue
    }
    if (c === '#') {
      toEndOfLine()
      continue
    }
    // Addresses: `/re/`, or `\cREc` with another delimiter.
    if (c === '/') {
      if (!delimited('/')) return 'an address that never ends'
      i += /[IM]/.test(at()) ? 1 : 0
      continue
    }
    if (c === '\\') {
      i++
      if (!delimited(at())) return 'an address that never ends'
      continue
    }
    if (c === 's' || c === 'y') {
      const delim = script[i + 1] ?? ''
      if (delim === '' || delim === '\n' || delim === '\\') return `a \`${c}\` it cannot read`
      i++
      if (!delimited(delim)) return `a \`${c}\` that never ends`
      i--
      if (!delimited(delim)) return `a \`${c}\` that never ends`
      const flags = /^[a-zA-Z0-9]*/.exec(script.slice(i))?.[0] ?? ''
      if (c === 's' && /[we]/.test(flags))
        return flags.includes('w')
          ? 'the `w` flag of `s`, which writes to a file'
          : 'the `e` flag of `s`, which runs its result as a command'
      i += flags.length
      continue
    }
    if (c === 'w' || c === 'W') return `the \`${c}\` command, which writes to a file`
    if (c === 'e') return 'the `e` command, which runs a shell command'
    if (PLAIN.has(c)) i++
    else if (TO_END_OF_LINE.has(c)) toEndOfLine()
    else if (BRANCHES.has(c)) {
      while (i < script.length && at() !== ';' && at() !== '\n') i++
    } else return `the command \`${c}\`, which Bridle does not know`
  }
  return undefined
}
