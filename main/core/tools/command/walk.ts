/**
 * Walks bash's syntax tree statement by statement and collects every simple command, with the
 * folders it may run in. Control flow matters only for `cd`: `&&`, `||`, `;`, `if`, loops and
 * functions decide which folders a later command may run in (see folders.ts). Any statement
 * type this walker does not know makes the line unjudgeable (LineError) rather than skipped:
 * a command it failed to see would be a command nobody judged.
 */
import type { Node } from 'web-tree-sitter'
import { buildCommand, pseudoCommand, redirectsOf } from './commands.js'
import type { Scope, WalkerPort } from './commands.js'
import { anyOf, both, union } from './folders.js'
import type { Outcome, Place } from './folders.js'
import type { ShellParser } from './parser.js'
import { programOf } from './programs.js'
import { LineError, loneDashBefore, syntaxProblem } from './syntax.js'
import type { SimpleCommand, Word } from './types.js'

/** How deep shell code may nest (`$(…)`, `bash -c`, `eval`) before the line counts as unparseable. */
export const MAX_DEPTH = 4

const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution'])
/** Word-like and test-like nodes: they run nothing except the substitutions inside them. */
const EXPRESSIONS = new Set(['test_command', 'word', 'string', 'concatenation', 'number'])

const named = (nodes: readonly (Node | null)[]): Node[] =>
  nodes.filter((n): n is Node => n !== null && n.isNamed && n.type !== 'comment')

export class Walker implements WalkerPort {
  readonly commands: SimpleCommand[] = []

  constructor(
    private readonly parser: ShellParser,
    readonly home: string,
    /** Whether the line holds a `cd` anywhere (functions and loops then blur the folder). */
    private readonly changesFolder: boolean,
  ) {}

  push(command: SimpleCommand): void {
    this.commands.push(command)
  }

  /** Statements in order; one followed by `&` runs in the background and moves no folder. */
  sequence(children: readonly (Node | null)[], scope: Scope): Outcome {
    let place = scope.place
    let last: Outcome = both(place)
    children.forEach((child, i) => {
      if (child === null || !child.isNamed || child.type === 'comment') return
      if (child.type === 'heredoc_body') return
      const background = children[i + 1]?.type === '&'
      if (background) {
        this.statement(child, { ...scope, place, concurrent: true })
        last = both(place)
        return
      }
      last = this.statement(child, { ...scope, place })
      place = union(last.ok, last.fail)
    })
    return last
  }

  statement(node: Node, scope: Scope): Outcome {
    switch (node.type) {
      case 'program':
      case 'do_group':
        return this.sequence(node.children, scope)
      case 'compound_statement':
        if (node.child(0)?.type === '((') return this.expression(node, scope)
        return this.sequence(node.children, scope)
      case 'subshell':
        this.sequence(node.children, scope)
        return both(scope.place)
      case 'list':
        return this.list(node, scope)
      case 'pipeline':
        return this.pipeline(named(node.children), scope, [], undefined)
      case 'negated_command': {
        const inner = named(node.children)[0]
        const result = inner === undefined ? both(scope.place) : this.statement(inner, scope)
        return { ok: result.fail, fail: result.ok }
      }
      case 'command':
        return buildCommand(node, scope, this, { redirects: [], args: [], text: node.text })
      case 'redirected_statement':
        return this.redirected(node, scope)
      case 'file_redirect':
      case 'herestring_redirect':
        return pseudoCommand(node, scope, this)
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command':
      case 'unset_command':
        return buildCommand(node, scope, this, { redirects: [], args: [], text: node.text })
      case 'if_statement':
        return this.ifStatement(node, scope)
      case 'while_statement':
      case 'for_statement':
      case 'c_style_for_statement':
        return this.loop(node, scope)
      case 'case_statement':
        return this.caseStatement(node, scope)
      case 'function_definition':
        return this.functionDefinition(node, scope)
      default:
        if (EXPRESSIONS.has(node.type)) return this.expression(node, scope)
        throw new LineError(`it uses a shell construct the checker does not know (${node.type})`)
    }
  }

  /** `[[ … ]]`, `(( … ))`: nothing runs but their substitutions; either outcome is possible. */
  private expression(node: Node, scope: Scope): Outcome {
    this.substitutions(node, scope)
    return both(scope.place)
  }

  private list(node: Node, scope: Scope): Outcome {
    const [left, right] = named(node.children)
    const op = node.children.find((c) => c?.type === '&&' || c?.type === '||')?.type
    if (left === undefined || right === undefined || op === undefined) {
      return this.sequence(node.children, scope)
    }
    const first = this.statement(left, scope)
    if (op === '&&') {
      const second = this.statement(right, { ...scope, place: first.ok })
      return { ok: second.ok, fail: union(first.fail, second.fail) }
    }
    const second = this.statement(right, { ...scope, place: first.fail })
    return { ok: union(first.ok, second.ok), fail: second.fail }
  }

  /**
   * Each stage runs in its own subshell, reading what the earlier ones print: it learns their
   * program names, and the text when an earlier stage only echoes literal text.
   */
  pipeline(
    stages: readonly Node[],
    scope: Scope,
    from: readonly string[],
    input: string | undefined,
  ): Outcome {
    let pipedFrom = from
    let text = input
    const concurrent = stages.length + from.length > 1
    for (const stage of stages) {
      const before = this.commands.length
      this.statement(stage, { ...scope, concurrent, pipedFrom, input: text })
      const emitted = this.commands.slice(before).filter((c) => c.depth === scope.depth)
      pipedFrom = [...pipedFrom, ...emitted.flatMap((c) => programOf(c) ?? [])]
      text = emitted.length === 1 && emitted[0] !== undefined ? outputOf(emitted[0]) : undefined
    }
    return both(scope.place)
  }

  private redirected(node: Node, scope: Scope): Outcome {
    const body = node.childForFieldName('body')
    const parts = redirectsOf(node, scope, this)
    let result: Outcome
    if (body === null) {
      result = pseudoCommand(node, scope, this, parts.redirects)
    } else if (body.type === 'command') {
      const heredoc = node.children.find((c) => c?.type === 'heredoc_redirect')
      const dash =
        heredoc !== undefined &&
        heredoc !== null &&
        loneDashBefore(node.tree.rootNode.text, body.endIndex, heredoc.startIndex)
      const trailing: Word[] = dash ? [{ value: '-', literal: true, glob: false, prefix: '-' }] : []
      const text = [body.text, ...(dash ? ['-'] : []), ...parts.texts].join(' ')
      result = buildCommand(body, scope, this, { ...parts, text, trailing })
    } else {
      if (parts.args.length > 0) {
        throw new LineError(`it is unclear which command the words after a redirection belong to`)
      }
      const before = this.commands.length
      result = this.statement(body, {
        ...scope,
        redirects: [...scope.redirects, ...parts.redirects],
        ...(parts.input === undefined ? {} : { input: parts.input }),
      })
      const reached = this.commands.slice(before).some((c) => c.depth === scope.depth)
      if (!reached && parts.redirects.length > 0) {
        pseudoCommand(node, scope, this, parts.redirects)
      }
    }
    return this.heredocContinuation(parts.continuation, result, scope)
  }

  /**
   * tree-sitter-bash puts what follows a here-document's start (`cat <<EOF | sh`, `<<EOF && x`)
   * inside the redirect node; it runs after the command the here-document feeds.
   */
  private heredocContinuation(nodes: readonly Node[], first: Outcome, scope: Scope): Outcome {
    let result = first
    const feeder = this.commands.at(-1)
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]
      if (node === undefined) continue
      if (node.type === 'pipeline') {
        const from = feeder === undefined ? [] : [programOf(feeder) ?? '']
        const input = feeder === undefined ? undefined : outputOf(feeder)
        this.pipeline(named(node.children), scope, from, input)
        result = both(scope.place)
      } else if (node.type === '&&' || node.type === '||') {
        const right = nodes[++i]
        if (right === undefined) continue
        const next = this.statement(right, {
          ...scope,
          place: node.type === '&&' ? result.ok : result.fail,
        })
        result =
          node.type === '&&'
            ? { ok: next.ok, fail: union(result.fail, next.fail) }
            : { ok: union(result.ok, next.ok), fail: next.fail }
      }
    }
    return result
  }

  private ifStatement(node: Node, scope: Scope): Outcome {
    const children = node.children.filter((c): c is Node => c !== null)
    const clauses = children.filter((c) => c.type === 'elif_clause' || c.type === 'else_clause')
    const own = children.filter((c) => !clauses.includes(c))
    const branches: Outcome[] = []
    let failed = this.conditional(own, scope, branches)
    let hasElse = false
    for (const clause of clauses) {
      if (clause.type === 'elif_clause') {
        failed = this.conditional(clause.children, { ...scope, place: failed }, branches)
      } else {
        hasElse = true
        branches.push(this.sequence(clause.children, { ...scope, place: failed }))
      }
    }
    // With no branch taken, `if` succeeds where the last condition failed.
    if (!hasElse) branches.push({ ok: failed, fail: [] })
    return anyOf(...branches)
  }

  /** `COND then BODY` (of `if` or `elif`): walks both and returns where the condition failed. */
  private conditional(
    children: readonly (Node | null)[],
    scope: Scope,
    branches: Outcome[],
  ): Place {
    const then = children.findIndex((c) => c?.type === 'then')
    const condition = this.sequence(children.slice(0, then < 0 ? 0 : then), scope)
    branches.push(this.sequence(children.slice(then + 1), { ...scope, place: condition.ok }))
    return condition.fail
  }

  /** A loop may run its body any number of times: a `cd` inside blurs the folder everywhere. */
  private loop(node: Node, scope: Scope): Outcome {
    const place = this.blurred(node, scope.place)
    const inner = { ...scope, place }
    const body = node.childForFieldName('body')
    const conditions: Node[] = []
    node.children.forEach((child, i) => {
      if (child === null || child === body || !child.isNamed) return
      if (node.type === 'while_statement' && node.fieldNameForChild(i) === 'condition') {
        conditions.push(child)
      } else this.substitutions(child, inner)
    })
    const condition = this.sequence(conditions, inner)
    const ran =
      body === null
        ? both(place)
        : this.statement(body, { ...inner, place: union(condition.ok, condition.fail) })
    return both(union(place, condition.ok, condition.fail, ran.ok, ran.fail))
  }

  private caseStatement(node: Node, scope: Scope): Outcome {
    const branches: Outcome[] = [both(scope.place)]
    node.children.forEach((child, i) => {
      if (child === null || !child.isNamed) return
      if (child.type !== 'case_item') {
        if (node.fieldNameForChild(i) === 'value') this.substitutions(child, scope)
        return
      }
      const statements: Node[] = []
      child.children.forEach((part, j) => {
        if (part === null || !part.isNamed) return
        if (child.fieldNameForChild(j) === 'value') this.substitutions(part, scope)
        else statements.push(part)
      })
      branches.push(this.sequence(statements, scope))
    })
    return anyOf(...branches)
  }

  /**
   * A function body runs when called, in whatever folder the line is in by then: with a `cd`
   * anywhere on the line, that folder is unknown.
   */
  private functionDefinition(node: Node, scope: Scope): Outcome {
    const name = node.childForFieldName('name')?.text
    const body = node.childForFieldName('body')
    const place = this.changesFolder ? union(scope.place, [undefined]) : scope.place
    const redirects = redirectsOf(node, scope, this).redirects
    if (body !== null) {
      this.statement(body, {
        place,
        depth: scope.depth,
        redirects,
        concurrent: false,
        pipedFrom: [],
        ...(name === undefined ? {} : { fn: name }),
      })
    }
    return both(this.blurred(body ?? node, scope.place))
  }

  private blurred(node: Node, place: Place): Place {
    return this.changesFolder && /\b(cd|pushd|popd)\b/.test(node.text)
      ? union(place, [undefined])
      : place
  }

  /** Walks every `$(…)`, backtick and `<(…)` inside `node`, one level deeper. */
  substitutions(node: Node, scope: Scope): void {
    const stack = [node]
    while (stack.length > 0) {
      const current = stack.pop()
      if (current === undefined) break
      if (SUBSTITUTIONS.has(current.type)) {
        this.nested(() => this.sequence(current.children, this.deeper(scope)), scope)
        continue
      }
      for (let i = current.childCount - 1; i >= 0; i--) {
        const child = current.child(i)
        if (child !== null) stack.push(child)
      }
    }
  }

  /** Parses shell code handed to `bash -c`, `eval` and the like, and walks it one level deeper. */
  reparse(code: Word, scope: Scope, what: string): Outcome {
    return this.nested(() => {
      const tree = this.parser.parseTree(code.value)
      try {
        const problem = syntaxProblem(tree.rootNode)
        if (problem !== undefined) throw new LineError(`the code given to ${what} ${problem}`)
        return this.sequence(tree.rootNode.children, this.deeper(scope))
      } finally {
        tree.delete()
      }
    }, scope)
  }

  private nested(walk: () => Outcome, scope: Scope): Outcome {
    if (scope.depth + 1 > MAX_DEPTH) {
      throw new LineError(`it nests shell code more than ${MAX_DEPTH} levels deep`)
    }
    return walk()
  }

  private deeper(scope: Scope): Scope {
    return {
      place: scope.place,
      depth: scope.depth + 1,
      redirects: [],
      concurrent: false,
      pipedFrom: [],
      ...(scope.fn === undefined ? {} : { fn: scope.fn }),
    }
  }
}

/** What a command prints when that is fixed text: `cat` of a here-document, `echo` of words. */
function outputOf(command: SimpleCommand): string | undefined {
  const program = programOf(command)
  const args = command.argv.slice(1)
  if (program === 'cat' && args.length === 0) return command.input
  if (program !== 'echo' || !args.every((w) => w.literal)) return undefined
  const words = args.map((w) => w.value)
  const noNewline = words[0] === '-n'
  if (words[0] === '-e' || words[0] === '-E') return undefined
  return words.slice(noNewline ? 1 : 0).join(' ') + (noNewline ? '' : '\n')
}
