/**
 * Turns the syntax nodes of one shell word into the Words bash would pass to a program: quotes
 * and escapes removed, `~`, `$HOME`, `${HOME}` and `$PWD` resolved, braces expanded. Anything
 * else that expands (`$X`, `$(…)`, `$((…))`) stays as written and makes the word non-literal:
 * the judge must not guess what it becomes.
 */
import type { Node } from 'web-tree-sitter'
import { expandBraces } from './braces.js'
import { LineError } from './syntax.js'
import type { Tok } from './braces.js'
import type { Folder, Word } from './types.js'

export interface WordEnv {
  readonly home: string
  /** `$PWD`: the folder the command runs in, when it is the only one it may run in. */
  readonly pwd: Folder
}

/**
 * The words made by adjacent nodes (bash joins what no blank separates: `"$HOME"/x`). An
 * assignment value (`PATH=~/bin:~/x`) also expands `~` after each `:`, as bash does.
 */
export function wordsOf(
  nodes: readonly Node[],
  env: WordEnv,
  opts: { readonly assignment?: boolean } = {},
): Word[] {
  const toks = expandTilde(
    nodes.flatMap((node) => toksOf(node, env)),
    env,
    opts.assignment === true,
  )
  // Bash expands braces in arguments, never in an assignment's value.
  const expanded = opts.assignment === true ? [toks] : expandBraces(toks)
  if (expanded === undefined) {
    const text = nodes.map((n) => n.text).join('')
    return [{ value: text, literal: false, glob: false, prefix: '' }]
  }
  return expanded.map(wordOfToks)
}

/** One word from the text of a here-document, which bash expands unless its delimiter is quoted. */
export function heredocWord(body: Node | undefined, delimiter: string, env: WordEnv): Word {
  const quoted = /['"\\]/.test(delimiter)
  const stripTabs = (s: string) => s.replace(/^\t+/gm, '')
  if (body === undefined) return { value: '', literal: true, glob: false, prefix: '' }
  if (quoted) {
    const value = stripTabs(body.text)
    return { value, literal: true, glob: false, prefix: value }
  }
  const toks = withGaps(
    body,
    (child) => {
      if (child.type === 'heredoc_content') return heredocToks(child.text)
      return toksOf(child, env).map((t) => ('ch' in t ? { ch: t.ch, quoted: true } : t))
    },
    heredocToks,
  )
  const word = wordOfToks(toks)
  return { ...word, value: stripTabs(word.value), glob: false }
}

export function wordOfToks(toks: readonly Tok[]): Word {
  let value = ''
  let prefix = ''
  let literal = true
  let glob = false
  let closesClass = false
  for (let i = toks.length - 1; i >= 0; i--) {
    const t = toks[i]
    if (t === undefined || !('ch' in t) || t.quoted) continue
    if (t.ch === ']') closesClass = true
    if (t.ch === '*' || t.ch === '?' || (t.ch === '[' && closesClass)) glob = true
  }
  for (const t of toks) {
    if ('ch' in t) {
      value += t.ch
      if (literal) prefix += t.ch
    } else {
      value += t.unknown
      literal = false
    }
  }
  return { value, literal, glob, prefix }
}

const chars = (text: string, quoted: boolean): Tok[] =>
  Array.from(text).map((ch) => ({ ch, quoted }))

/** The characters of one node of a word, tagged with whether quoting protects them. */
function toksOf(node: Node, env: WordEnv): Tok[] {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'brace_expression':
    case 'extglob_pattern':
    case 'variable_name':
    case 'file_descriptor':
    case 'test_operator':
    case 'regex':
      return unquotedToks(node.text)
    case 'raw_string':
      return chars(node.text.slice(1, -1), true)
    case 'ansi_c_string':
      return chars(decodeAnsiC(node.text.slice(2, -1)), true)
    case 'string':
      return withGaps(
        node,
        (child) => {
          if (child.type === '"') return []
          if (child.type === 'string_content') return doubleQuotedToks(child.text)
          return toksOf(child, env).map((t) => ('ch' in t ? { ch: t.ch, quoted: true } : t))
        },
        doubleQuotedToks,
      )
    case 'translated_string':
    case 'concatenation':
      return withGaps(node, (child) => (child.type === '$' ? [] : toksOf(child, env)), unquotedToks)
    case 'simple_expansion':
    case 'expansion': {
      const known = knownVariable(node.text, env)
      // Resolved text is protected from globbing like a quoted string: $HOME has no `*`.
      return known === undefined ? [{ unknown: node.text }] : chars(known, true)
    }
    default:
      return [{ unknown: node.text }]
  }
}

/** Children's characters plus any source text between them that no child covers. */
function withGaps(node: Node, child: (n: Node) => Tok[], gap: (text: string) => Tok[]): Tok[] {
  const source = node.text
  const out: Tok[] = []
  let at = node.startIndex
  for (const c of node.children) {
    if (c === null) continue
    if (c.startIndex > at)
      out.push(...gap(source.slice(at - node.startIndex, c.startIndex - node.startIndex)))
    out.push(...child(c))
    at = c.endIndex
  }
  if (node.endIndex > at) out.push(...gap(source.slice(at - node.startIndex)))
  return out
}

function knownVariable(text: string, env: WordEnv): string | undefined {
  const name = /^\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})$/.exec(text)
  const variable = name?.[1] ?? name?.[2]
  if (variable === 'HOME') return env.home
  if (variable === 'PWD') return env.pwd
  return undefined
}

/** Outside quotes a backslash protects the next character; before a newline it joins lines. */
function unquotedToks(text: string): Tok[] {
  const out: Tok[] = []
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? ''
    if (ch === '\\' && i + 1 < text.length) {
      const next = text[++i] ?? ''
      if (next !== '\n') out.push({ ch: next, quoted: true })
    } else out.push({ ch, quoted: false })
  }
  return out
}

/** Inside double quotes a backslash only escapes `$`, `` ` ``, `"`, `\` and a newline. */
function doubleQuotedToks(text: string): Tok[] {
  return escapedToks(text, '$`"\\\n')
}

/** In an unquoted here-document a backslash escapes `$`, `` ` ``, `\` and a newline. */
function heredocToks(text: string): Tok[] {
  return escapedToks(text, '$`\\\n')
}

/**
 * Characters of quoted text that the grammar found nothing in. tree-sitter-bash does not parse
 * backticks inside a here-document, yet bash runs them: text that still holds an unescaped
 * backtick or `$(` hides a command, so the line cannot be judged.
 */
function escapedToks(text: string, special: string): Tok[] {
  const out: Tok[] = []
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? ''
    const next = text[i + 1]
    if (ch === '`' || (ch === '$' && next === '(')) {
      throw new LineError(
        `it holds a command substitution (${ch}${ch === '$' ? '(' : ''}…) the parser did not read`,
      )
    }
    if (ch === '\\' && next !== undefined && special.includes(next)) {
      i++
      if (next !== '\n') out.push({ ch: next, quoted: true })
    } else out.push({ ch, quoted: true })
  }
  return out
}

/**
 * `~` and `~/x` become the home folder; `~+` the current folder. `~user` and `~-` stay unknown.
 * Only an unquoted `~` at the start expands (and, in assignments, after `=` and `:`).
 */
function expandTilde(toks: Tok[], env: WordEnv, assignment: boolean): Tok[] {
  const starts = [0]
  const firstEq = toks.findIndex((t) => 'ch' in t && !t.quoted && t.ch === '=')
  const looksAssigned =
    firstEq > 0 &&
    /^[A-Za-z_]\w*$/.test(
      toks
        .slice(0, firstEq)
        .map((t) => ('ch' in t ? t.ch : '\0'))
        .join(''),
    )
  // Bash expands `~` after the `=` of any word that looks like an assignment (`of=~/x`).
  if (looksAssigned) starts.push(firstEq + 1)
  if (assignment) {
    toks.forEach((t, i) => {
      if ('ch' in t && !t.quoted && t.ch === ':') starts.push(i + 1)
    })
  }
  let out = toks
  for (const start of starts.reverse()) out = tildeAt(out, start, env)
  return out
}

function tildeAt(toks: Tok[], start: number, env: WordEnv): Tok[] {
  const first = toks[start]
  if (first === undefined || !('ch' in first) || first.quoted || first.ch !== '~') return toks
  let end = start + 1
  let name = ''
  for (; end < toks.length; end++) {
    const t = toks[end]
    if (t === undefined || !('ch' in t) || t.ch === '/' || (t.ch === ':' && !t.quoted)) break
    if (t.quoted) return toks
    name += t.ch
  }
  const known = name === '' ? env.home : name === '+' ? env.pwd : undefined
  const replacement: Tok[] = known === undefined ? [{ unknown: `~${name}` }] : chars(known, true)
  return [...toks.slice(0, start), ...replacement, ...toks.slice(end)]
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
}

/** The text of `$'…'` with its C-style escapes decoded. */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.)|(.))/gs,
    (
      whole,
      oct?: string,
      hex?: string,
      u?: string,
      bigU?: string,
      ctl?: string,
      other?: string,
    ) => {
      if (oct !== undefined) return String.fromCharCode(parseInt(oct, 8) & 0xff)
      if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16))
      const code = u ?? bigU
      if (code !== undefined) {
        const point = parseInt(code, 16)
        return point <= 0x10ffff ? String.fromCodePoint(point) : whole
      }
      if (ctl !== undefined) return String.fromCharCode(ctl.charCodeAt(0) & 0x1f)
      return other === undefined ? whole : (SIMPLE_ESCAPES[other] ?? whole)
    },
  )
}
