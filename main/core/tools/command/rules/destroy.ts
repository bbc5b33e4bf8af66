/**
 * Commands that destroy in bulk: recursive deletes (`rm -r`, `find -delete`), recursive
 * permission changes, `shred`, raw disk writes (`dd`, `mkfs`, partitioners) and fork bombs.
 * Aimed at the project's own subfolders they run (never under a standing grant); aimed at the
 * project itself, a folder holding it, or anything outside it they never run; aimed at a path
 * only known at run time they need the user's own approval.
 */
import { hasOption, parseArgs } from '../args.js'
import { planFind } from '../find.js'
import { IF_CD_FAILS, spotsOf } from '../paths.js'
import type { Spot } from '../paths.js'
import { programName, programOf } from '../programs.js'
import type { JudgeContext, SimpleCommand, Word } from '../types.js'
import { FROM_INPUT, unwrap } from '../wrappers.js'
import { confirm, quoted, refuse, ungrantable } from './finding.js'
import type { Finding } from './finding.js'

export function destroyFindings(cmd: SimpleCommand, ctx: JudgeContext): Finding[] {
  const program = programOf(cmd)
  const args = cmd.argv.slice(1)
  if (program === undefined) return []
  if (program === 'rm') {
    const parsed = parseArgs(args, { values: [] })
    if (!hasOption(parsed, ['-r', '-R'], ['--recursive'])) return []
    return targets(cmd, ctx, parsed.operands, 'deletes')
  }
  const permissions = permissionArgs(program, args)
  if (permissions?.recursive === true) {
    const verb = program === 'chmod' ? 'changes the permissions of' : 'changes the owner of'
    return targets(cmd, ctx, permissions.targets, `${verb} everything in`)
  }
  if (program === 'shred') {
    const parsed = parseArgs(args, { values: ['-n', '--iterations', '-s', '--size'] })
    return targets(cmd, ctx, parsed.operands, 'overwrites')
  }
  if (program === 'find') return findFindings(cmd, ctx)
  if (program === 'dd') return ddFindings(cmd, ctx)
  if (isDiskTool(program, args))
    return [refuse(`${quoted(cmd.text)} formats or repartitions a disk`)]
  if (cmd.inFunction === program && cmd.concurrent) {
    return [
      refuse(
        `${quoted(cmd.text)} is a fork bomb: the function ${program} starts copies of itself without end`,
      ),
    ]
  }
  return []
}

/** Operands of chmod/chown/chgrp: whether recursive, and the files (after the mode or owner). */
export function permissionArgs(
  program: string,
  args: readonly Word[],
): { readonly recursive: boolean; readonly targets: readonly Word[] } | undefined {
  if (program !== 'chmod' && program !== 'chown' && program !== 'chgrp') return undefined
  // chmod's `-w` or `-x` is a mode, not an option: only clusters of its option letters are options.
  const letters = program === 'chmod' ? /^-[cfvR]+$/ : /^-[cfvRhHLP]+$/
  let recursive = false
  let reference = false
  const operands: Word[] = []
  let ended = false
  for (const word of args) {
    const text = word.value
    if (ended || !word.literal) operands.push(word)
    else if (text === '--') ended = true
    else if (text.startsWith('--')) {
      if ('--recursive'.startsWith(text.split('=')[0] ?? '') && text.length >= 5) recursive = true
      if (text.startsWith('--reference')) reference = true
    } else if (letters.test(text)) recursive ||= text.includes('R')
    else operands.push(word)
  }
  return { recursive, targets: reference ? operands : operands.slice(1) }
}

/** Each target of a destructive command, from each folder the command may run in. */
export function targets(
  cmd: SimpleCommand,
  ctx: JudgeContext,
  words: readonly Word[],
  verb: string,
): Finding[] {
  return words.flatMap((word) =>
    word.found === true
      ? []
      : spotsOf(word, cmd, ctx).map(({ spot, fallback }) =>
          withFallback(spotFinding(cmd, ctx, verb, word, spot), fallback),
        ),
  )
}

const withFallback = (finding: Finding, fallback: boolean): Finding =>
  fallback ? { ...finding, reason: finding.reason + IF_CD_FAILS } : finding

function spotFinding(
  cmd: SimpleCommand,
  ctx: JudgeContext,
  verb: string,
  word: Word,
  spot: Spot,
): Finding {
  const q = quoted(cmd.text)
  switch (spot.kind) {
    case 'outside':
      return refuse(`${q} ${verb} ${spot.what}`)
    case 'sink':
      return refuse(`${q} ${verb} ${spot.path}`)
    case 'project':
      return refuse(`${q} ${verb} the project folder itself`)
    case 'everything':
      return refuse(`${q} ${verb} everything in the project folder`)
    case 'inside': {
      const why = ctx.protectedReason?.(spot.path)
      return why === undefined
        ? ungrantable(
            `${q} ${verb} ${spot.path}, inside the project; no standing grant covers that`,
          )
        : confirm(`${q} ${verb} ${spot.path}: ${why}`)
    }
    case 'unknown':
      return unknownTarget(q, verb, word, spot.under?.what)
  }
}

function unknownTarget(q: string, verb: string, word: Word, under: string | undefined): Finding {
  if (under !== undefined) {
    const rest = word.value.slice(word.prefix.length)
    return refuse(
      `${q} ${verb} a path under ${under}; if ${rest} is empty, that is the folder itself`,
    )
  }
  if (word.literal) {
    return confirm(`${q} ${verb} ${word.value} in a folder only known when it runs (after a cd)`)
  }
  if (word.value === FROM_INPUT.value)
    return confirm(`${q} ${verb} the paths it reads from its input`)
  return confirm(`${q} ${verb} ${word.value}, a path only known when it runs`)
}

const MODIFIERS = new Set([
  'rm',
  'rmdir',
  'unlink',
  'shred',
  'chmod',
  'chown',
  'chgrp',
  'mv',
  'truncate',
])

/**
 * `find` deleting or changing what it finds: judged by where it starts. Without a test that
 * narrows the matches, `find . -delete` deletes the project, like `rm -r .`.
 */
function findFindings(cmd: SimpleCommand, ctx: JudgeContext): Finding[] {
  const plan = planFind(cmd.argv.slice(1))
  const execs = plan.execs.map((e) => programName(unwrap(e.argv).argv))
  const deletes = plan.deletes || execs.some((p) => p === 'rm' || p === 'shred' || p === 'rmdir')
  const changes = deletes || execs.some((p) => p !== undefined && MODIFIERS.has(p))
  if (!changes) return []
  const verb = deletes ? 'deletes what it finds in' : 'changes what it finds in'
  const out: Finding[] = []
  for (const root of plan.roots) {
    for (const { spot, fallback } of spotsOf(root, cmd, ctx)) {
      const finding =
        spot.kind !== 'project' && spot.kind !== 'everything'
          ? spotFinding(cmd, ctx, verb, root, spot)
          : deletes && !plan.narrowed
            ? refuse(`${quoted(cmd.text)} deletes everything in the project folder`)
            : ungrantable(`${quoted(cmd.text)} ${verb} the project; no standing grant covers that`)
      out.push(withFallback(finding, fallback))
    }
  }
  return out
}

/** `dd of=…`: a device is a disk being overwritten; a file inside the project is fine. */
function ddFindings(cmd: SimpleCommand, ctx: JudgeContext): Finding[] {
  const q = quoted(cmd.text)
  const out: Finding[] = []
  for (const word of cmd.argv.slice(1)) {
    if (!word.prefix.startsWith('of=')) continue
    const target: Word = { ...word, value: word.value.slice(3), prefix: word.prefix.slice(3) }
    for (const { spot, fallback } of spotsOf(target, cmd, ctx)) {
      if (spot.kind === 'sink') continue
      const finding =
        spot.kind === 'inside' || spot.kind === 'project'
          ? ungrantable(`${q} writes raw data to ${target.value}; no standing grant covers dd`)
          : spot.kind === 'outside'
            ? refuse(`${q} overwrites ${spot.what}`)
            : unknownTarget(
                q,
                'overwrites',
                target,
                spot.kind === 'unknown' ? spot.under?.what : undefined,
              )
      out.push(withFallback(finding, fallback))
    }
  }
  return out
}

const DISK_TOOLS =
  /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk|gdisk|sgdisk|parted|blkdiscard)$/

/** Partitioners that only list (`fdisk -l`, `parted -l`) change nothing. */
function isDiskTool(program: string, args: readonly Word[]): boolean {
  if (!DISK_TOOLS.test(program)) return false
  const listing = args.some((w) => ['-l', '--list', '-d', '--dump'].includes(w.value))
  return !(listing && ['fdisk', 'sfdisk', 'parted'].includes(program))
}
