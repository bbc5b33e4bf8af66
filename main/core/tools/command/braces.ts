/**
 * Bash brace expansion (`{a,b}`, `{1..3}`, `{a..e..2}`) over a word's characters, so that
 * `rm -rf {build,/}` is judged as `rm -rf build /`. Quoted and escaped characters never expand,
 * which is why this works on characters tagged with their quoting rather than on text.
 */

/** A character of a word and whether quoting protects it; or an expansion kept as written. */
export type Tok = { readonly ch: string; readonly quoted: boolean } | { readonly unknown: string }

/** Beyond this many words a brace expression is left unexpanded (and counted as unknown). */
export const MAX_BRACE_WORDS = 256

const isOpen = (t: Tok | undefined, c: string) =>
  t !== undefined && 'ch' in t && !t.quoted && t.ch === c

/**
 * The words a brace expression expands to, or `undefined` when it would make more than
 * MAX_BRACE_WORDS (the caller then treats the word as unknown). A word without a valid brace
 * expression comes back as the only element.
 */
export function expandBraces(toks: readonly Tok[]): Tok[][] | undefined {
  const out: Tok[][] = []
  const work: (readonly Tok[])[] = [toks]
  while (work.length > 0) {
    const word = work.pop() ?? []
    const group = findGroup(word)
    if (group === TOO_MANY) return undefined
    if (group === undefined) {
      out.push([...word])
      if (out.length > MAX_BRACE_WORDS) return undefined
      continue
    }
    const head = word.slice(0, group.start)
    const tail = word.slice(group.end + 1)
    // Pushed in reverse, so the words come out in bash's order.
    for (let i = group.items.length - 1; i >= 0; i--) {
      work.push([...head, ...(group.items[i] ?? []), ...tail])
    }
    if (work.length + out.length > MAX_BRACE_WORDS) return undefined
  }
  return out
}

interface Group {
  readonly start: number
  readonly end: number
  readonly items: readonly (readonly Tok[])[]
}

const TOO_MANY = 'too-many'

/** The first `{…}` holding a top-level comma or a valid sequence; bash leaves others alone. */
function findGroup(word: readonly Tok[]): Group | typeof TOO_MANY | undefined {
  for (let start = 0; start < word.length; start++) {
    if (!isOpen(word[start], '{')) continue
    // `${` starts a parameter expansion, never a brace expression.
    if (isOpen(word[start - 1], '$')) continue
    let depth = 0
    const commas: number[] = []
    let end = -1
    for (let i = start + 1; i < word.length; i++) {
      if (isOpen(word[i], '{')) depth++
      else if (isOpen(word[i], '}')) {
        if (depth === 0) {
          end = i
          break
        }
        depth--
      } else if (depth === 0 && isOpen(word[i], ',')) commas.push(i)
    }
    if (end < 0) continue
    if (commas.length > 0) {
      const items: Tok[][] = []
      let from = start + 1
      for (const comma of [...commas, end]) {
        items.push(word.slice(from, comma))
        from = comma + 1
      }
      return { start, end, items }
    }
    const sequence = sequenceItems(word.slice(start + 1, end))
    if (sequence === TOO_MANY) return TOO_MANY
    if (sequence !== undefined) return { start, end, items: sequence }
  }
  return undefined
}

/** `1..5`, `05..10..2`, `a..e`: the items as characters, or undefined when not a sequence. */
function sequenceItems(inner: readonly Tok[]): Tok[][] | typeof TOO_MANY | undefined {
  if (inner.some((t) => !('ch' in t) || t.quoted)) return undefined
  const text = inner.map((t) => ('ch' in t ? t.ch : '')).join('')
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(text)
  const letters = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(text)
  const asToks = (s: string): Tok[] => Array.from(s).map((ch) => ({ ch, quoted: true }))
  if (numeric !== null) {
    const [, a = '0', b = '0', s] = numeric
    const from = Number(a)
    const to = Number(b)
    const step = Math.abs(Number(s ?? '1')) || 1
    const count = Math.floor(Math.abs(to - from) / step) + 1
    if (count > MAX_BRACE_WORDS) return TOO_MANY
    const width = /^-?0\d/.test(a) || /^-?0\d/.test(b) ? Math.max(a.length, b.length) : 0
    const items: Tok[][] = []
    for (let i = 0; i < count; i++) {
      const n = from + (to >= from ? i : -i) * step
      const digits = String(Math.abs(n)).padStart(width - (n < 0 ? 1 : 0), '0')
      items.push(asToks(n < 0 ? `-${digits}` : digits))
    }
    return items
  }
  if (letters !== null) {
    const [, a = 'a', b = 'a', s] = letters
    const from = a.charCodeAt(0)
    const to = b.charCodeAt(0)
    const step = Math.abs(Number(s ?? '1')) || 1
    if (Math.floor(Math.abs(to - from) / step) + 1 > MAX_BRACE_WORDS) return TOO_MANY
    const items: Tok[][] = []
    for (let c = from; to >= from ? c <= to : c >= to; c += to >= from ? step : -step) {
      items.push(asToks(String.fromCharCode(c)))
    }
    return items
  }
  return undefined
}
