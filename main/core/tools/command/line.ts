/**
 * `parseShellLine`: one command line in, every simple command it would run out (nested ones
 * included), or the reason it cannot be judged. Pure apart from the parser it is given: no file
 * system, no environment, so the same line always gives the same answer.
 */
import type { ShellParser } from './parser.js'
import { LineError, syntaxProblem } from './syntax.js'
import type { ShellLine } from './types.js'
import { Walker } from './walk.js'

/** Longer lines are not judged (tree-sitter is fast, but a megabyte of shell is no command). */
export const MAX_LINE_CHARS = 100_000

export interface LineEnv {
  /** The home folder `~` and `$HOME` stand for. */
  readonly home: string
  /** The folder the line starts in (where the tool runs it). */
  readonly cwd: string
}

/**
 * A line that does not parse, nests too deep or uses a construct the walker does not know is
 * `{ ok: false, reason }`; only a bug in the walker throws.
 */
export function parseShellLine(parser: ShellParser, line: string, env: LineEnv): ShellLine {
  if (line.length > MAX_LINE_CHARS) {
    return { ok: false, reason: `the command is longer than ${MAX_LINE_CHARS} characters` }
  }
  const tree = parser.parseTree(line)
  try {
    const problem = syntaxProblem(tree.rootNode)
    if (problem !== undefined) return { ok: false, reason: `the command ${problem}` }
    const walker = new Walker(parser, env.home, /\b(cd|pushd|popd)\b/.test(line))
    walker.sequence(tree.rootNode.children, {
      place: [env.cwd],
      depth: 0,
      redirects: [],
      concurrent: false,
      pipedFrom: [],
    })
    return { ok: true, commands: walker.commands }
  } catch (error) {
    if (error instanceof LineError) {
      return { ok: false, reason: `the command cannot be checked: ${error.message}` }
    }
    throw error
  } finally {
    tree.delete()
  }
}
