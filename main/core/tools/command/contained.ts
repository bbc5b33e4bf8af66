/**
 * `uncontainedReasons`: the positive judgement that full-auto needs when commands run without
 * the sandbox. A line is contained only when each of its simple commands (nested ones too) is
 * proven to write nowhere but inside the project:
 * - its program is named plainly (no variable, no glob, no file of the project) and is one whose
 *   every write its arguments name (`contained-programs.ts`);
 * - it runs directly or through a wrapper that changes nothing else (`nice`, `timeout`, …);
 * - it sets no variable that changes what programs do or which ones run (`BASH_ENV`, `PATH`,
 *   any `X=…` the judge would have to follow);
 * - every path it writes (redirections too) is literal and inside the project from every folder
 *   it may run in (a `cd` in a function or a loop leaves that folder unknown);
 * - no argument or input names the user's credentials (`ctx.credentialAt`): a key read without a
 *   sandbox goes to the model, wherever it lies.
 * Whatever is not proven is reported, in words; nothing is assumed. Pure, like the whole judge:
 * paths are compared as text, and a symlink already in the project that points out of it is seen
 * only through `ctx.leadsOutside`, which the caller reads from disk.
 */
import { posix } from 'node:path'
import { programEffect } from './contained-programs.js'
import { spotsOf } from './paths.js'
import { quoted } from './rules/finding.js'
import { writesOf } from './rules/writes.js'
import type { Write } from './rules/writes.js'
import type { JudgeContext, ShellLine, SimpleCommand, Word } from './types.js'

/** Wrappers that start the program they wrap and change nothing else about it. */
const PLAIN_WRAPPERS = new Set(['nice', 'timeout', 'command', 'builtin', 'exec'])
/** Variables that change how programs format their output, and nothing else. */
const HARMLESS_VARIABLE =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|COLUMNS|LINES|TERM)$/
/** Folders of the system's own programs, where a program named with its path may live. */
const SYSTEM_BIN = /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/

/**
 * Why the line cannot be shown to stay inside the project, one reason per command that cannot
 * (empty: every command is proven contained). Each reason names the command and says why.
 */
export function uncontainedReasons(line: ShellLine, ctx: JudgeContext): string[] {
  if (!line.ok)
    return [
      `without a sandbox, Bridle cannot prove the command stays inside the project: ${line.reason}`,
    ]
  const reasons = line.commands.flatMap((cmd) => {
    const why = commandProblem(cmd, ctx)
    return why === undefined
      ? []
      : [
          `without a sandbox, Bridle cannot prove ${quoted(cmd.text)} stays inside the project: ${why}`,
        ]
  })
  return [...new Set(reasons)]
}

function commandProblem(cmd: SimpleCommand, ctx: JudgeContext): string | undefined {
  const set = cmd.assignments.find((a) => !HARMLESS_VARIABLE.test(a.name))
  if (set !== undefined) return variableProblem(set.name)
  const wrapper = cmd.wrappers.find((w) => !PLAIN_WRAPPERS.has(w))
  if (wrapper !== undefined) return wrapperProblem(wrapper)
  const writes: Write[] = writesOf(cmd)
  const first = cmd.argv[0]
  if (first !== undefined) {
    const problem = programProblem(first)
    if (problem !== undefined) return problem
    const effect = programEffect(posix.basename(first.value), cmd.argv.slice(1))
    if ('unproven' in effect) return effect.unproven
    writes.push(...effect.touches)
  }
  for (const { word, verb } of writes) {
    const where = outsideOrUnknown(word, cmd, ctx)
    if (where !== undefined) return `it ${verb} ${where}`
  }
  return credentialRead(cmd, ctx)
}

/** The credentials an argument or an input of `cmd` names, in words; undefined when none. */
function credentialRead(cmd: SimpleCommand, ctx: JudgeContext): string | undefined {
  if (ctx.credentialAt === undefined) return undefined
  const inputs = cmd.redirects.filter((r) => r.op === '<').map((r) => r.target)
  for (const word of [...cmd.argv.slice(1), ...inputs]) {
    if (word === undefined) continue
    for (const { spot } of spotsOf(word, cmd, ctx)) {
      if (spot.kind === 'sink' || spot.kind === 'unknown') continue
      const why = ctx.credentialAt(spot.path)
      if (why !== undefined) return `it may read ${why}`
    }
  }
  return undefined
}

function variableProblem(name: string): string {
  if (/^(BASH_ENV|ENV|PATH|LD_\w+|DYLD_\w+|IFS|SHELLOPTS|BASHOPTS|PROMPT_COMMAND)$/.test(name))
    return `it sets ${name}, which changes which programs run or what they run first`
  return `it sets the variable ${name}, and Bridle does not follow what variables do`
}

function wrapperProblem(wrapper: string): string {
  if (wrapper === 'xargs')
    return '`xargs` runs a program on arguments read from its input, only known when it runs'
  return `it runs through \`${wrapper}\`, whose effects Bridle does not follow`
}

function programProblem(first: Word): string | undefined {
  if (!first.literal || first.glob)
    return `it runs a program only known when it runs (${first.value})`
  if (first.value.includes('/') && !SYSTEM_BIN.test(first.value))
    return `it runs the program file ${first.value}, whose code Bridle cannot read`
  return undefined
}

/** Where a written path may be outside the project or unknown, in words; undefined if inside. */
function outsideOrUnknown(word: Word, cmd: SimpleCommand, ctx: JudgeContext): string | undefined {
  if (word.found === true) return 'the paths `find` finds, only known when it runs'
  for (const { spot } of spotsOf(word, cmd, ctx)) {
    if (spot.kind === 'outside') return spot.what
    if (spot.kind === 'inside' || spot.kind === 'project' || spot.kind === 'everything') {
      const real = ctx.leadsOutside?.(spot.path)
      if (real !== undefined)
        return `${spot.path}, which leads out of the project to ${real} through a link already there`
    }
    if (spot.kind === 'unknown') {
      return word.literal
        ? `${word.value}, in a folder only known when it runs (after a \`cd\` in a function, a loop or to a variable)`
        : `${word.value}, a path only known when it runs`
    }
  }
  return undefined
}
