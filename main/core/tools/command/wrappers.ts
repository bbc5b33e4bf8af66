/**
 * Programs that run another program (`sudo rm -rf /`, `timeout 5 make`, `xargs rm`): peeled off
 * so the wrapped program is judged as the command it is. Each wrapper is described by the options
 * that take a value, so its own arguments are never mistaken for the wrapped program.
 */
import { parseArgs } from './args.js'
import type { ArgSpec, ParsedArgs } from './args.js'
import { programName } from './programs.js'
import type { Assignment, Word } from './types.js'

export interface Unwrapped {
  readonly argv: readonly Word[]
  readonly assignments: readonly Assignment[]
  /** Outermost first. */
  readonly wrappers: readonly string[]
  /** Folders the wrapped program is started in, in order (`env -C x`, `sudo -D x`). */
  readonly chdirs: readonly Word[]
  /** Shell code a wrapper runs in place of a program (`env -S '…'`, `watch '…'`). */
  readonly code?: Word
}

/** Words `xargs` appends, read from its input: never known in advance. */
export const FROM_INPUT: Word = { value: '…', literal: false, glob: false, prefix: '' }

interface WrapperSpec extends ArgSpec {
  /** Operands the wrapper itself takes before the program (`timeout DURATION`, `chroot DIR`). */
  readonly skip?: number
  /** Options after which no program runs (`sudo -l`, `command -v`). */
  readonly noProgram?: readonly string[]
  readonly chdir?: readonly string[]
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    values: [
      ...['-u', '--user', '-g', '--group', '-p', '--prompt', '-r', '--role', '-t', '--type'],
      ...['-C', '--close-from', '-T', '--command-timeout', '-U', '--other-user', '-R', '--chroot'],
    ],
    noProgram: ['-l', '--list', '-v', '--validate', '-K', '--remove-timestamp', '-e', '--edit'],
    chdir: ['-D', '--chdir'],
  },
  doas: { values: ['-u', '-C'] },
  env: { values: ['-u', '--unset', '-S', '--split-string', '-P'], chdir: ['-C', '--chdir'] },
  nice: { values: ['-n', '--adjustment'], numericOptions: true },
  nohup: {},
  timeout: { values: ['-s', '--signal', '-k', '--kill-after'], skip: 1 },
  time: { values: ['-f', '--format', '-o', '--output'] },
  command: { noProgram: ['-v', '-V'] },
  builtin: {},
  exec: { values: ['-a'] },
  stdbuf: { values: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: {
    values: ['-c', '--class', '-n', '--classdata', '-u', '--uid', '-P', '--pgid'],
    noProgram: ['-p', '--pid'],
  },
  setsid: {},
  coproc: {},
  chroot: { values: ['--userspec', '--groups'], skip: 1 },
  xargs: {
    values: [
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-E',
      '-I',
      '-L',
      '-n',
      '--max-args',
      '-P',
      '--max-procs',
      '-s',
      '--max-chars',
      '--process-slot-var',
    ],
  },
  watch: { values: ['-n', '--interval', '-q', '--equexit'] },
}

export const isWrapper = (name: string | undefined) => name !== undefined && name in WRAPPERS

/** Peels wrappers until the program that really runs (which may be the last wrapper itself). */
export function unwrap(argv: readonly Word[]): Unwrapped {
  let current = argv
  const assignments: Assignment[] = []
  const wrappers: string[] = []
  const chdirs: Word[] = []
  for (;;) {
    const name = programName(current)
    const spec = name === undefined ? undefined : WRAPPERS[name]
    if (name === undefined || spec === undefined) break
    const parsed = parseArgs(current.slice(1), {
      ...spec,
      values: [...(spec.values ?? []), ...(spec.chdir ?? [])],
      stopAtOperand: true,
    })
    if (parsed.options.some((o) => spec.noProgram?.includes(o.name) === true)) break
    let rest = parsed.rest.slice(spec.skip ?? 0)
    if (name === 'env') {
      const split = parsed.options.find((o) => o.name === '-S' || o.name === '--split-string')
      while (rest[0] !== undefined && assignmentOf(rest[0]) !== undefined) {
        const assignment = assignmentOf(rest[0])
        if (assignment !== undefined) assignments.push(assignment)
        rest = rest.slice(1)
      }
      if (split?.value !== undefined) {
        return {
          argv: current,
          assignments,
          wrappers,
          chdirs,
          code: joined([split.value, ...rest]),
        }
      }
    }
    if (name === 'watch' && !parsed.options.some((o) => o.name === '-x' || o.name === '--exec')) {
      if (rest.length === 0) break
      return { argv: current, assignments, wrappers, chdirs, code: joined(rest) }
    }
    if (name === 'xargs') rest = xargsCommand(parsed, rest)
    if (rest.length === 0) break
    chdirs.push(...optionWords(parsed, spec.chdir ?? []))
    wrappers.push(name)
    current = rest
  }
  return { argv: current, assignments, wrappers, chdirs }
}

/** `NAME=value` as an assignment, when the word starts like one. */
export function assignmentOf(word: Word): Assignment | undefined {
  const match = /^([A-Za-z_]\w*)=/.exec(word.prefix)
  if (match?.[1] === undefined) return undefined
  const cut = match[0].length
  return {
    name: match[1],
    value: {
      value: word.value.slice(cut),
      literal: word.literal,
      glob: word.glob,
      prefix: word.prefix.slice(cut),
    },
  }
}

function optionWords(parsed: ParsedArgs, names: readonly string[]): Word[] {
  return parsed.options.flatMap((o) =>
    names.includes(o.name) && o.value !== undefined ? [o.value] : [],
  )
}

/**
 * The command xargs runs (`echo` when none), with the words it reads from input: appended, or
 * put where `-I R` names them.
 */
function xargsCommand(parsed: ParsedArgs, rest: readonly Word[]): Word[] {
  const command = rest.length > 0 ? [...rest] : [literal('echo')]
  const replace = parsed.options.find((o) => o.name === '-I')?.value?.value
  const replaces = replace ?? (parsed.options.some((o) => o.name === '-i') ? '{}' : undefined)
  if (replaces === undefined) return [...command, FROM_INPUT]
  return command.map((word, i) =>
    i > 0 && word.value.includes(replaces)
      ? word.value === replaces
        ? FROM_INPUT
        : { ...word, literal: false, prefix: word.value.slice(0, word.value.indexOf(replaces)) }
      : word,
  )
}

const literal = (value: string): Word => ({ value, literal: true, glob: false, prefix: value })

/** Words joined by spaces, as `watch` and `env -S` hand them to a shell. */
function joined(words: readonly Word[]): Word {
  const value = words.map((w) => w.value).join(' ')
  const isLiteral = words.every((w) => w.literal)
  return { value, literal: isLiteral, glob: false, prefix: isLiteral ? value : '' }
}
