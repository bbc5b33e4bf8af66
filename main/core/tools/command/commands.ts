/**
 * Builds one SimpleCommand from a `command` node (or an assignment, `export`, `unset`, or a bare
 * redirection): its words, assignments and redirections; unwraps wrappers; then walks whatever
 * code the command runs in turn (`bash -c`, `eval`, `find -exec`) and works out where a `cd`
 * leaves the shell.
 */
import type { Node } from 'web-tree-sitter'
import { parseArgs } from './args.js'
import { planFind } from './find.js'
import { afterChangeDir, both, NEVER, resolveIn, union } from './folders.js'
import type { Outcome, Place } from './folders.js'
import { programName, shellCode } from './programs.js'
import { LineError } from './syntax.js'
import type { Assignment, Redirect, SimpleCommand, Word } from './types.js'
import { heredocWord, wordsOf } from './words.js'
import type { WordEnv } from './words.js'
import { unwrap } from './wrappers.js'

export interface Scope {
  readonly place: Place
  readonly depth: number
  /** Redirections of an enclosing compound statement (`{ a; b; } > f`), applied to each command. */
  readonly redirects: readonly Redirect[]
  readonly concurrent: boolean
  readonly pipedFrom: readonly string[]
  readonly input?: string
  readonly fn?: string
}

/** What the command builder needs from the walker (kept as an interface to avoid a cycle). */
export interface WalkerPort {
  readonly home: string
  substitutions(node: Node, scope: Scope): void
  statement(node: Node, scope: Scope): Outcome
  reparse(code: Word, scope: Scope, what: string): Outcome
  push(command: SimpleCommand): void
}

export interface RedirectParts {
  readonly redirects: readonly Redirect[]
  /** Words tree-sitter hung on a redirect that are really the command's arguments (`> f x`). */
  readonly args: readonly Node[]
  readonly texts: readonly string[]
  readonly input?: string
  /** Statements tree-sitter nested in a here-document redirect (`cat <<EOF | sh`). */
  readonly continuation: readonly Node[]
}

interface Extra {
  readonly redirects: readonly Redirect[]
  readonly args: readonly Node[]
  readonly text: string
  readonly input?: string
  /** Words the tree lost that belong after the arguments (see `loneDashBefore`). */
  readonly trailing?: readonly Word[]
}

const envOf = (port: WalkerPort, place: Place): WordEnv => ({
  home: port.home,
  pwd: place.length === 1 ? place[0] : undefined,
})

const literal = (value: string): Word => ({ value, literal: true, glob: false, prefix: value })

export function buildCommand(node: Node, scope: Scope, port: WalkerPort, extra: Extra): Outcome {
  port.substitutions(node, scope)
  const env = envOf(port, scope.place)
  const args: Node[] = [...extra.args]
  const argv: Word[] = []
  const assignments: Assignment[] = []
  const redirects: Redirect[] = [...scope.redirects, ...extra.redirects]
  let input = extra.input ?? scope.input
  const named = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment')
  switch (node.type) {
    case 'variable_assignment':
      assignments.push(assignmentOf(node, env))
      break
    case 'variable_assignments':
      assignments.push(...named.map((child) => assignmentOf(child, env)))
      break
    case 'declaration_command':
    case 'unset_command':
      argv.push(literal(node.child(0)?.text ?? node.type))
      for (const child of named) {
        if (child.type === 'variable_assignment') argv.push(assignmentWord(child, env))
        else argv.push(...wordsOf([child], env))
      }
      break
    default:
      node.children.forEach((child, i) => {
        if (child === null || child.type === 'comment') return
        const field = node.fieldNameForChild(i)
        if (child.type === 'variable_assignment') assignments.push(assignmentOf(child, env))
        else if (field === 'name') args.push(child.namedChild(0) ?? child)
        else if (field === 'argument') args.push(child)
        else if (field === 'redirect') {
          const own = redirectOne(child, env)
          redirects.push(...own.redirects)
          args.push(...own.args)
          input = own.input ?? input
        } else if (child.type === 'subshell') {
          // `time ( … )`: tree-sitter-bash hangs the timed subshell on the `time` command.
          port.statement(child, scope)
        } else if (child.isNamed) {
          throw new LineError(`it uses a shell construct the checker does not know (${child.type})`)
        }
      })
  }
  argv.push(...wordGroups(args).flatMap((group) => wordsOf(group, env)), ...(extra.trailing ?? []))
  return emit(
    { argv, assignments, redirects, text: extra.text, ...(input === undefined ? {} : { input }) },
    scope,
    port,
  )
}

/** A statement of redirections only (`> out`): it still creates or truncates the file. */
export function pseudoCommand(
  node: Node,
  scope: Scope,
  port: WalkerPort,
  redirects?: readonly Redirect[],
): Outcome {
  const own = redirects ?? redirectOne(node, envOf(port, scope.place)).redirects
  port.substitutions(node, scope)
  return emit(
    { argv: [], assignments: [], redirects: [...scope.redirects, ...own], text: node.text },
    scope,
    port,
  )
}

/** The redirections of a redirected statement or function definition, and what they carry. */
export function redirectsOf(node: Node, scope: Scope, port: WalkerPort): RedirectParts {
  const env = envOf(port, scope.place)
  const redirects: Redirect[] = []
  const args: Node[] = []
  const texts: string[] = []
  const continuation: Node[] = []
  let input: string | undefined
  node.children.forEach((child, i) => {
    if (child === null) return
    const isRedirect =
      node.fieldNameForChild(i) === 'redirect' || child.type === 'herestring_redirect'
    if (!isRedirect) return
    const one = redirectOne(child, env)
    redirects.push(...one.redirects)
    args.push(...one.args)
    texts.push(...one.texts)
    continuation.push(...one.continuation)
    input = one.input ?? input
    for (const walked of one.walk) port.substitutions(walked, scope)
  })
  return { redirects, args, texts, continuation, ...(input === undefined ? {} : { input }) }
}

interface OneRedirect extends RedirectParts {
  /** The parts whose substitutions run with the redirect (not the continuation). */
  readonly walk: readonly Node[]
}

function redirectOne(node: Node, env: WordEnv): OneRedirect {
  const fdText = node.childForFieldName('descriptor')?.text
  const fd = fdText === undefined ? {} : { fd: Number(fdText) }
  const op = node.children.find((c) => c !== null && !c.isNamed)?.type ?? node.type
  if (node.type === 'heredoc_redirect') return heredocRedirect(node, env, op, fd)
  const targets: Node[] = []
  node.children.forEach((child, i) => {
    if (child === null) return
    const field = node.fieldNameForChild(i)
    if (field === 'destination' || (node.type === 'herestring_redirect' && child.isNamed)) {
      targets.push(child)
    }
  })
  const [first = [], ...more] = wordGroups(targets)
  const words = first.length === 0 ? [] : wordsOf(first, env)
  // `> {a,b}` is an error in bash ("ambiguous redirect"): no single file is known.
  const target =
    words.length === 1 ? words[0] : words.length > 1 ? { ...words[0], literal: false } : undefined
  const redirect = { op, ...fd, ...(target === undefined ? {} : { target: target as Word }) }
  const input =
    node.type === 'herestring_redirect' && target !== undefined ? `${target.value}\n` : undefined
  return {
    redirects: [redirect],
    args: more.flat(),
    texts: [node.text],
    continuation: [],
    walk: [node],
    ...(input === undefined ? {} : { input }),
  }
}

function heredocRedirect(node: Node, env: WordEnv, op: string, fd: { fd?: number }): OneRedirect {
  const delimiter = node.children.find((c) => c?.type === 'heredoc_start')?.text ?? ''
  const body = node.children.find((c) => c?.type === 'heredoc_body') ?? undefined
  const target = heredocWord(body, delimiter, env)
  const redirects: Redirect[] = [{ op, ...fd, target }]
  const args: Node[] = []
  const continuation: Node[] = []
  const walk: Node[] = body === undefined || target.literal ? [] : [body]
  node.children.forEach((child, i) => {
    if (child === null) return
    const field = node.fieldNameForChild(i)
    if (field === 'redirect') {
      const nested = redirectOne(child, env)
      redirects.push(...nested.redirects)
      args.push(...nested.args)
      walk.push(child)
    } else if (field === 'argument') {
      args.push(child)
    } else if (field === 'operator' || field === 'right' || child.type === 'pipeline') {
      continuation.push(child)
    }
  })
  return {
    redirects,
    args,
    texts: [`${op}${delimiter}`],
    continuation,
    walk,
    input: target.value,
  }
}

/**
 * Nodes that touch (no blank between them) form one shell word. tree-sitter-bash leaves some of
 * them apart (`$"…"` comes out as `$` and a string); bash joins them, so do we.
 */
function wordGroups(nodes: readonly Node[]): Node[][] {
  const sorted = [...nodes].sort((a, b) => a.startIndex - b.startIndex)
  const groups: Node[][] = []
  sorted.forEach((node, i) => {
    const next = sorted[i + 1]
    // `$"text"` is a translated string: the `$` adds nothing.
    if (node.type === '$' && next?.type === 'string' && next.startIndex === node.endIndex) return
    const last = groups.at(-1)
    const previous = last?.at(-1) ?? sorted[i - 1]
    if (last !== undefined && previous !== undefined && previous.endIndex === node.startIndex) {
      last.push(node)
    } else groups.push([node])
  })
  return groups
}

function assignmentOf(node: Node, env: WordEnv): Assignment {
  const name = node.childForFieldName('name')?.text ?? ''
  const value = node.childForFieldName('value')
  const word =
    value === null ? literal('') : (wordsOf([value], env, { assignment: true })[0] ?? literal(''))
  return { name, value: word }
}

/** `export A=b` passes `A=b` as one word. */
function assignmentWord(node: Node, env: WordEnv): Word {
  const { name, value } = assignmentOf(node, env)
  return { ...value, value: `${name}=${value.value}`, prefix: `${name}=${value.prefix}` }
}

interface Raw {
  readonly argv: readonly Word[]
  readonly assignments: readonly Assignment[]
  readonly redirects: readonly Redirect[]
  readonly text: string
  readonly input?: string
}

const CHANGES_DIR = new Set(['cd', 'pushd', 'popd'])
const KEEPS_SHELL = new Set(['command', 'builtin'])

function emit(raw: Raw, scope: Scope, port: WalkerPort): Outcome {
  const unwrapped = unwrap(raw.argv)
  let place = scope.place
  for (const dir of unwrapped.chdirs) {
    place = dir.literal ? union(place.map((f) => resolveIn(f, dir.value))) : [undefined]
  }
  const [cwd, ...otherCwds] = place.length > 0 ? place : [undefined]
  const command: SimpleCommand = {
    argv: unwrapped.argv,
    assignments: [...raw.assignments, ...unwrapped.assignments],
    redirects: raw.redirects,
    cwd,
    otherCwds,
    depth: scope.depth,
    text: raw.text,
    wrappers: unwrapped.wrappers,
    pipedFrom: scope.pipedFrom,
    concurrent: scope.concurrent,
    ...(raw.input === undefined ? {} : { input: raw.input }),
    ...(scope.fn === undefined ? {} : { inFunction: scope.fn }),
  }
  port.push(command)
  const here = { ...scope, place }
  const program = programName(command.argv)
  const wrapperName = unwrapped.wrappers.at(-1) ?? program ?? 'a wrapper'
  if (unwrapped.code?.literal === true) port.reparse(unwrapped.code, here, `\`${wrapperName}\``)
  const shell = shellCode(command.argv)
  if (shell?.kind === 'inline' && shell.code.literal) {
    port.reparse(shell.code, here, `\`${program ?? 'a shell'} -c\``)
  } else if (shell?.kind === 'stdin' && command.input !== undefined) {
    port.reparse(literal(command.input), here, `the input of \`${program ?? 'a shell'}\``)
  }
  if (program === 'trap') {
    // `trap 'CODE' EXIT` runs CODE later, in this shell.
    const operands = parseArgs(command.argv.slice(1)).operands
    const code = operands.length >= 2 ? operands[0] : undefined
    if (code?.literal === true && code.value !== '-') port.reparse(code, here, '`trap`')
  }
  if (program === 'find') {
    const plan = planFind(command.argv.slice(1))
    for (const exec of plan.execs) {
      const inner = { ...here, place: exec.inFolder ? [undefined] : place }
      emit({ argv: exec.argv, assignments: [], redirects: [], text: raw.text }, inner, port)
    }
  }
  const inShell = unwrapped.wrappers.every((w) => KEEPS_SHELL.has(w))
  if (!inShell) return both(scope.place)
  if (program === 'eval' && command.argv.length > 1) {
    const words = command.argv.slice(1)
    if (words.every((w) => w.literal)) {
      return port.reparse(literal(words.map((w) => w.value).join(' ')), here, '`eval`')
    }
  }
  if (program !== undefined && CHANGES_DIR.has(program)) {
    const operands = parseArgs(command.argv.slice(1)).operands
    return { ok: afterChangeDir(program, operands, scope.place, port.home), fail: scope.place }
  }
  if (program === 'exit' || program === 'return') return NEVER
  return both(scope.place)
}
