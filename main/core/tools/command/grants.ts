/**
 * Standing grants ("always allow") for shell commands, on the parsed line rather than its text:
 * a grant for `npm test *` covers `npm test -- -u`, never `npm test; rm -rf ~`, because every
 * simple command of the line (nested ones too) must match a pattern on its own, and the judge
 * must have found the whole line normal and grantable.
 */
import { posix } from 'node:path'
import { resolveIn } from './folders.js'
import { classify } from './paths.js'
import type { CommandPattern } from './pattern-text.js'
import { gitCall } from './rules/git.js'
import type { Judgement, Redirect, ShellLine, SimpleCommand } from './types.js'

export interface GrantChoices {
  /** One pattern per simple command: the command exactly as it is. */
  readonly exact: readonly CommandPattern[]
  /** Per command: its program (and subcommand, for tools made of subcommands) with any arguments. */
  readonly general: readonly CommandPattern[]
}

/**
 * What "always allow" could remember for this line; undefined when no grant may cover it: the
 * judge found it not normal or not grantable, or it holds a word only known at run time, an
 * assignment (`PATH=… cmd`), or a redirect to a file other than /dev/null.
 */
export function grantChoices(line: ShellLine, judgement: Judgement): GrantChoices | undefined {
  if (!line.ok || judgement.level !== 'normal' || !judgement.grantable) return undefined
  if (!line.commands.every(isPlain)) return undefined
  return {
    exact: unique(
      line.commands.map((cmd) => ({ argv: cmd.argv.map((w) => w.value), rest: false })),
    ),
    general: unique(line.commands.map(generalPattern)),
  }
}

/**
 * Whether the patterns cover the whole line: it is normal and grantable, and each of its simple
 * commands is plain (as for `grantChoices`) and matches a pattern. With `rest`, the extra words
 * that name paths must stay inside the project: `rm *` granted does not cover `rm ../x`.
 */
export function grantCovers(
  patterns: readonly CommandPattern[],
  line: ShellLine,
  judgement: Judgement,
  ctx: { readonly projectDir: string },
): boolean {
  if (!line.ok || judgement.level !== 'normal' || !judgement.grantable) return false
  return line.commands.every(
    (cmd) => isPlain(cmd) && patterns.some((pattern) => matches(pattern, cmd, ctx.projectDir)),
  )
}

/**
 * Whether any simple command of the line (nested ones too) matches one of the patterns, however
 * it is written: what a "never" rule needs, since `git status && git push` must not slip past a
 * rule against `git push *`. An unparseable line touches nothing (it is asked anyway).
 */
export function grantTouches(
  patterns: readonly CommandPattern[],
  line: ShellLine,
  ctx: { readonly projectDir: string },
): boolean {
  if (!line.ok) return false
  return line.commands.some((cmd) =>
    patterns.some((pattern) => matches({ ...pattern, rest: true }, cmd, ctx.projectDir, false)),
  )
}

function isPlain(cmd: SimpleCommand): boolean {
  return (
    cmd.argv.length > 0 &&
    cmd.argv.every((w) => w.literal) &&
    cmd.assignments.length === 0 &&
    cmd.redirects.every(isHarmlessRedirect)
  )
}

/** fd dups (`2>&1`, `>&-`), /dev/null, and literal here-documents touch no file. */
function isHarmlessRedirect(r: Redirect): boolean {
  if (r.target === undefined) return r.op.endsWith('-')
  if (!r.target.literal) return false
  if (r.op === '>&' || r.op === '<&') return /^(\d+-?|-)$/.test(r.target.value)
  if (r.op.startsWith('<<')) return true
  return r.target.value === '/dev/null'
}

function matches(
  pattern: CommandPattern,
  cmd: SimpleCommand,
  projectDir: string,
  checkPaths = true,
): boolean {
  const values = cmd.argv.map((w) => w.value)
  if (!pattern.rest) {
    return values.length === pattern.argv.length && pattern.argv.every((w, i) => values[i] === w)
  }
  if (values.length < pattern.argv.length || !pattern.argv.every((w, i) => values[i] === w)) {
    return false
  }
  if (!checkPaths) return true
  return values.slice(pattern.argv.length).every((word) => staysInside(word, cmd, projectDir))
}

/** A word that names a path (holds `/`, or is `.`/`..`/`~…`) must resolve inside the project. */
function staysInside(word: string, cmd: SimpleCommand, projectDir: string): boolean {
  const path = word.startsWith('-') && word.includes('=') ? word.slice(word.indexOf('=') + 1) : word
  const isPath = path.includes('/') || path === '.' || path === '..' || path.startsWith('~')
  if (!isPath) return true
  return [cmd.cwd, ...cmd.otherCwds].every((folder) => {
    const resolved = resolveIn(folder, path)
    if (resolved === undefined) return false
    const kind = classify(resolved, { projectDir, home: '' }).kind
    return kind === 'inside' || kind === 'project' || kind === 'sink'
  })
}

/** Tools whose first non-option word picks what they do: a grant is per subcommand. */
const SUBCOMMANDS: Record<string, readonly string[]> = {
  npm: ['-w', '--workspace', '--prefix'],
  npx: ['-p', '--package'],
  pnpm: ['-C', '--dir', '-F', '--filter'],
  yarn: ['--cwd'],
  bun: [],
  deno: [],
  cargo: ['-C', '--config', '-Z'],
  go: [],
  make: ['-C', '--directory', '-f', '--file', '-I', '--include-dir', '-o', '-W'],
  docker: ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level'],
  podman: [],
  kubectl: ['-n', '--namespace', '--context'],
  pip: [],
  pip3: [],
  uv: [],
  poetry: [],
  dotnet: [],
  gradle: ['-p', '--project-dir', '-b'],
  gradlew: ['-p', '--project-dir', '-b'],
  mvn: ['-f', '--file', '-P', '-pl'],
  mvnw: ['-f', '--file', '-P', '-pl'],
  gh: ['-R', '--repo'],
}

function generalPattern(cmd: SimpleCommand): CommandPattern {
  const argv = cmd.argv.map((w) => w.value)
  const name = posix.basename(argv[0] ?? '')
  const upTo = (last: number): CommandPattern => ({ argv: argv.slice(0, last + 1), rest: true })
  if (name === 'git') {
    const { at } = gitCall(cmd.argv.slice(1))
    return at < 0 ? upTo(0) : upTo(at + 1)
  }
  if (/^python(\d+(\.\d+)*)?$/.test(name)) {
    const m = argv.indexOf('-m')
    return m > 0 && m + 1 < argv.length ? upTo(m + 1) : upTo(0)
  }
  const values = SUBCOMMANDS[name]
  if (values === undefined) return upTo(0)
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i] ?? ''
    if (values.includes(word)) i++
    else if (!word.startsWith('-') && !word.startsWith('+')) return upTo(i)
  }
  return upTo(0)
}

function unique(patterns: readonly CommandPattern[]): CommandPattern[] {
  const seen = new Set<string>()
  return patterns.filter((p) => {
    const key = JSON.stringify(p)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
