/**
 * Dollar signs that are money, not math. remark-math reads `$…$` as inline math, so "$5 and $10"
 * would become the formula "5 and ". Before parsing, a single `$` that cannot open or close math
 * by Pandoc's rule is escaped (`\$`): an opening `$` has a non-space character right after it; a
 * closing one has a non-space character right before it and no digit right after it. `$$`
 * (display math), escaped dollars and code (fenced blocks, backtick spans) are left as they are.
 * Pure, so unit-tested (test/renderer/markdown-math.test.ts).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** `text` with every `$` that cannot be inline math escaped, so markdown shows it as a dollar. */
export function guardDollars(text: string): string {
  if (!text.includes('$')) return text
  const lines = text.split('\n')
  let fence: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const opener = FENCE.exec(line)?.[1]
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) {
        fence = undefined
      }
      continue
    }
    if (opener !== undefined) {
      fence = opener
      continue
    }
    if (line.includes('$')) lines[i] = guardLine(line)
  }
  return lines.join('\n')
}

/** One line outside fences: code spans kept, the dollars between them checked. */
function guardLine(line: string): string {
  let out = ''
  let at = 0
  while (at < line.length) {
    const tick = line.indexOf('`', at)
    if (tick === -1) break
    let run = tick
    while (line[run] === '`') run++
    const ticks = line.slice(tick, run)
    const close = findClosingTicks(line, run, ticks.length)
    if (close === -1) {
      out += guardProse(line.slice(at, run))
      at = run
      continue
    }
    out += guardProse(line.slice(at, tick)) + line.slice(tick, close + ticks.length)
    at = close + ticks.length
  }
  return out + guardProse(line.slice(at))
}

function findClosingTicks(line: string, from: number, count: number): number {
  for (let at = line.indexOf('`', from); at !== -1; at = line.indexOf('`', at)) {
    let end = at
    while (line[end] === '`') end++
    if (end - at === count) return at
    at = end
  }
  return -1
}

const isSpace = (char: string | undefined): boolean => char === undefined || /\s/.test(char)
const isDigit = (char: string | undefined): boolean => char !== undefined && /\d/.test(char)

/** Prose: pairs single dollars by Pandoc's rule and escapes those left without a partner. */
function guardProse(prose: string): string {
  const singles: number[] = []
  for (let i = 0; i < prose.length; i++) {
    const char = prose[i]
    if (char === '\\') {
      i++
      continue
    }
    if (char !== '$') continue
    if (prose[i + 1] === '$') {
      // Display math (`$$`): remark-math's own business.
      while (prose[i + 1] === '$') i++
      continue
    }
    singles.push(i)
  }
  const escaped = new Set<number>()
  let open: number | undefined
  for (const at of singles) {
    const canClose =
      open !== undefined && !isSpace(prose[at - 1]) && !isDigit(prose[at + 1]) && at > open + 1
    if (canClose) {
      open = undefined
      continue
    }
    if (open !== undefined) escaped.add(open)
    open = isSpace(prose[at + 1]) ? undefined : at
    if (open === undefined) escaped.add(at)
  }
  if (open !== undefined) escaped.add(open)
  if (escaped.size === 0) return prose
  let out = ''
  for (let i = 0; i < prose.length; i++) out += escaped.has(i) ? '\\$' : (prose[i] ?? '')
  return out
}
