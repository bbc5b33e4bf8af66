/**
 * The programs whose every write the judge can name from their arguments: what `contained.ts`
 * needs to prove that a command stays inside the project when no sandbox holds it. A program is
 * here only if it writes nothing but the paths its arguments name (or nothing at all) and starts
 * no program chosen by its arguments; any option that breaks that (`sort --compress-program`,
 * `rg --pre`, `git -c`, `sed`'s `w` and `e`) makes the command unproven. Everything absent is
 * unproven: interpreters, shells, awk, build tools and the project's own scripts above all.
 */
import { hasOption, optionValues, parseArgs } from './args.js'
import { planFind } from './find.js'
import { interpreterKind, isShell, shellCode } from './programs.js'
import { permissionArgs } from './rules/destroy.js'
import { gitCall } from './rules/git.js'
import type { Write } from './rules/writes.js'
import { sedScriptProblem } from './sed-script.js'
import type { Word } from './types.js'

/** What a known program may touch beyond `writesOf`, or why its effects cannot be known. */
export type Effect = { readonly touches: readonly Write[] } | { readonly unproven: string }

const NOTHING: Effect = { touches: [] }

/** Programs that write no file and start no program whatever their arguments. */
const READ_ONLY = new Set([
  ...['ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'echo', 'pwd', 'true', 'false'],
  ...['test', '[', ':', 'basename', 'dirname', 'realpath', 'readlink', 'stat', 'diff', 'cmp'],
  ...['comm', 'cut', 'tr', 'nl', 'fold', 'paste', 'column', 'rev', 'tac', 'od', 'hexdump'],
  ...['strings', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum'],
  ...['b2sum', 'cksum', 'base64', 'base32', 'expand', 'unexpand', 'join', 'du', 'df', 'which'],
  ...['type', 'whoami', 'id', 'uname', 'printenv', 'seq', 'sleep', 'jq', 'nproc', 'ps', 'tty'],
  ...['cd', 'pushd', 'popd', 'exit', 'return', 'wait', 'set', 'command', 'locale'],
])

/** Programs whose writes `writesOf` (rules/writes.ts) lists completely. */
const WRITES_LISTED = new Set(['touch', 'mkdir', 'rmdir', 'unlink', 'tee', 'truncate', 'mv'])

/** Builds tools, test runners and package managers: they run the project's own code. */
const PROJECT_CODE = new Set([
  ...['npm', 'npx', 'pnpm', 'yarn', 'make', 'gmake', 'cmake', 'ninja', 'cargo', 'go', 'rustc'],
  ...['gcc', 'cc', 'clang', 'tsc', 'vitest', 'jest', 'mocha', 'pytest', 'tox', 'pip', 'pip3'],
  ...['gradle', 'mvn', 'ant', 'dotnet', 'mix', 'rake', 'bundle', 'gem', 'composer', 'poetry'],
  ...['uv', 'eslint', 'prettier', 'webpack', 'vite', 'just', 'task', 'bazel', 'meson'],
])

/** The effects of `name` run with `args`. */
export function programEffect(name: string, args: readonly Word[]): Effect {
  if (READ_ONLY.has(name) || WRITES_LISTED.has(name)) return NOTHING
  const check = CHECKS[name]
  if (check !== undefined) return check(args)
  if (isShell(name)) return shellEffect(name, args)
  return { unproven: unknownProgram(name) }
}

/**
 * Code the parser reads again and judges command by command: `eval` and `trap` with literal
 * words, `bash -c '…'` with literal code. A shell that reads anything else (a script, its input,
 * startup files with `-i` or `-l`) runs code the line does not show. Commands get no `BASH_ENV`
 * (builtin/env.ts), so a non-interactive shell reads no startup file.
 */
function shellEffect(name: string, args: readonly Word[]): Effect {
  const code = shellCode([literal(name), ...args])
  const startup = args.some(
    (w) =>
      w.literal && (/^-[a-zA-Z]*[il]/.test(w.value) || /^--(login|rcfile|init-file)/.test(w.value)),
  )
  if (code?.kind !== 'inline' || !code.code.literal || startup)
    return { unproven: unknownProgram(name) }
  return NOTHING
}

const literalCode = (what: string) => (args: readonly Word[]) =>
  args.every((w) => w.literal) ? NOTHING : unproven(`${what} runs code only known when it runs`)

function unknownProgram(name: string): string {
  if (/^[gmn]?awk$/.test(name))
    return 'it runs an awk program, which can write to any file (`print > "file"`) and start programs'
  const kind = interpreterKind(name)
  if (kind !== undefined) return `it runs ${kind} code, which can write anywhere`
  if (isShell(name))
    return `it starts another shell (${name}) on code the line does not show (a script, its input, startup files)`
  if (PROJECT_CODE.has(name))
    return `it runs the project's own code or scripts (${name}), which can write anywhere`
  return `\`${name}\` is not among the programs whose every write Bridle can name`
}

const unproven = (why: string): Effect => ({ unproven: why })
const touches = (words: readonly Word[], verb: string): Effect => ({
  touches: words.map((word) => ({ word, verb })),
})
const literal = (value: string): Word => ({ value, literal: true, glob: false, prefix: value })

type Check = (args: readonly Word[]) => Effect

const CHECKS: Record<string, Check> = {
  eval: literalCode('`eval`'),
  trap: literalCode('`trap`'),
  printf: (args) =>
    args[0]?.literal === true && args[0].value.startsWith('-v')
      ? unproven('`printf -v` sets a shell variable, which can change what later commands run')
      : NOTHING,
  date: (args) =>
    hasOption(
      parseArgs(args, { values: ['-d', '--date', '-f', '--file', '-r'] }),
      ['-s'],
      ['--set'],
    )
      ? unproven('it sets the clock')
      : NOTHING,
  file: (args) =>
    hasOption(parseArgs(args, { values: ['-m', '-f', '-F', '-P'] }), ['-C'], ['--compile'])
      ? unproven('`file -C` writes a compiled magic file')
      : NOTHING,
  rg: (args) =>
    args.some((w) => w.literal && /^--(pre|hostname-bin)(=|$)/.test(w.value))
      ? unproven('`rg --pre` runs another program on every file it searches')
      : NOTHING,
  sort(args) {
    const parsed = parseArgs(args, {
      values: ['-k', '--key', '-t', '--field-separator', '-o', '--output', '-T'],
    })
    if (parsed.options.some((o) => o.name.startsWith('--compress')))
      return unproven('`sort --compress-program` runs another program')
    const out = parsed.options.filter((o) => ['-o', '--output', '-T'].includes(o.name))
    const into = parsed.options.filter((o) => o.name.startsWith('--temporary-directory'))
    return touches(
      [...out, ...into].flatMap((o) => (o.value === undefined ? [] : [o.value])),
      'writes to',
    )
  },
  uniq: (args) =>
    touches(
      parseArgs(args, {
        values: ['-f', '--skip-fields', '-s', '--skip-chars', '-w'],
      }).operands.slice(1),
      'writes to',
    ),
  xxd: (args) =>
    touches(
      parseArgs(args, { values: ['-c', '-g', '-l', '-o', '-s', '-n', '-C'] }).operands.slice(1),
      'writes to',
    ),
  tree(args) {
    const parsed = parseArgs(args, { values: ['-L', '-P', '-I', '-o', '-H', '--charset'] })
    return touches(
      parsed.options.flatMap((o) => (o.name === '-o' && o.value ? [o.value] : [])),
      'writes to',
    )
  },
  rm: (args) => touches(parseArgs(args).operands, 'deletes'),
  chmod: (args) => touches(permissionArgs('chmod', args)?.targets ?? [], 'changes'),
  cp: copyEffect,
  ln: linkEffect,
  sed: sedEffect,
  find: findEffect,
  git: gitEffect,
}

/** Options with which `cp` copies what a path holds and nothing else (no links, no trees). */
const PLAIN_COPY =
  /^(-[finvpubLT]+|--(force|interactive|no-clobber|verbose|preserve|update|backup|dereference|no-target-directory)(=.*)?)$/

/**
 * The destination is listed by `writesOf`. A source outside the project is read only when `cp`
 * copies plain content: `-r`, `-a`, `-d`, `-l`, `-s` and the like bring links along, and a later
 * write through a link in the project lands outside it.
 */
function copyEffect(args: readonly Word[]): Effect {
  const parsed = parseArgs(args, { values: ['-t', '--target-directory', '-S', '--suffix'] })
  const plain = args.every(
    (w) => !w.literal || !w.value.startsWith('-') || w.value === '--' || PLAIN_COPY.test(w.value),
  )
  if (plain) return NOTHING
  return touches(parsed.operands, 'copies links or trees from')
}

/** Every path a link names must be inside: a link to a file outside is a way to write to it. */
function linkEffect(args: readonly Word[]): Effect {
  const parsed = parseArgs(args, { values: ['-t', '--target-directory', '-S', '--suffix'] })
  const symbolic = hasOption(parsed, ['-s'], ['--symbolic'])
  const named = [...parsed.operands, ...optionValues(parsed, ['-t'], ['--target-directory'])]
  const climbs = symbolic && parsed.operands.some((w) => w.value.split('/').includes('..'))
  if (climbs) return unproven('a symbolic link with `..` points relative to where the link is')
  // `ln FILE` makes a link named after it in the current folder.
  const here = parsed.operands.length === 1 ? [literal('.')] : []
  return touches([...named, ...here], 'links')
}

function sedEffect(args: readonly Word[]): Effect {
  const parsed = parseArgs(args, {
    values: ['-e', '--expression', '-f', '--file', '-l', '--line-length'],
  })
  if (hasOption(parsed, ['-f'], ['--file'])) return unproven('its sed script is in a file')
  const scripts = parsed.options.flatMap((o) =>
    (o.name === '-e' || o.name.startsWith('--expr')) && o.value ? [o.value] : [],
  )
  if (scripts.length === 0 && parsed.operands[0]) scripts.push(parsed.operands[0])
  for (const script of scripts) {
    if (!script.literal) return unproven('its sed script is only known when it runs')
    const problem = sedScriptProblem(script.value)
    if (problem !== undefined) return unproven(`its sed script uses ${problem}`)
  }
  return NOTHING
}

/** `-exec` commands are judged as commands of their own; `-delete` deletes under its roots. */
function findEffect(args: readonly Word[]): Effect {
  const plan = planFind(args)
  if (!plan.deletes) return NOTHING
  if (args.some((w) => w.literal && ['-L', '-H', '-follow'].includes(w.value)))
    return unproven('it deletes while following symbolic links')
  return touches(plan.roots, 'deletes under')
}

/** git commands that change nothing but the repository and the files of its work tree. */
const GIT_CONTAINED = new Set([
  ...['status', 'diff', 'log', 'show', 'rev-parse', 'ls-files', 'blame', 'grep', 'shortlog'],
  ...['describe', 'show-ref', 'cat-file', 'ls-tree', 'rev-list', 'merge-base', 'diff-files'],
  ...['diff-index', 'diff-tree', 'count-objects', 'version', 'add', 'commit', 'branch', 'tag'],
  ...['stash', 'switch', 'checkout', 'restore', 'reset', 'mv', 'rm', 'init', 'reflog'],
])
/** Global options that change nothing about where git writes or what it runs. */
const GIT_GLOBALS = new Set([
  '-C',
  '--no-pager',
  '-P',
  '--no-optional-locks',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-replace-objects',
])
/** Subcommand options that write elsewhere or start a program the line does not name. */
const GIT_ESCAPES = /^(--(output|ext-diff|open-files-in-pager|exec|upload-pack)|-O)/

/** The `-C` folders are listed by `writesOf`; the rest must be a known, contained subcommand. */
function gitEffect(args: readonly Word[]): Effect {
  const call = gitCall(args)
  const global = call.globals.options.find((o) => !GIT_GLOBALS.has(o.name))
  if (global !== undefined)
    return unproven(`\`git ${global.name}\` changes git's settings or where it works`)
  if (call.sub === undefined) return unproven('its git command is only known when it runs')
  if (!GIT_CONTAINED.has(call.sub))
    return unproven(
      `\`git ${call.sub}\` is not one of the git commands known to stay in the project`,
    )
  const escape = call.args.find((w) => w.literal && GIT_ESCAPES.test(w.value))
  if (escape !== undefined)
    return unproven(`\`${escape.value}\` makes git write elsewhere or start another program`)
  return NOTHING
}
