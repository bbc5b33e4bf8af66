/**
 * git: the subcommands that throw work away or rewrite what others share (force pushes, remote
 * deletes, `clean -x`, `reset --hard`, discarding checkouts, dropped stashes, forced branch
 * deletes, history filters, config changes) need the user's own approval; repositories outside
 * the project (`-C`, `clone` into, `worktree add`) are writes outside it.
 */
import { hasOption, parseArgs } from '../args.js'
import type { ParsedArgs } from '../args.js'
import { programOf } from '../programs.js'
import type { SimpleCommand, Word } from '../types.js'
import { confirm, quoted } from './finding.js'
import type { Finding } from './finding.js'
import type { Write } from './writes.js'

const GLOBAL_VALUES = [
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
]

export interface GitCall {
  /** Index in the git arguments of the subcommand; -1 when there is none. */
  readonly at: number
  readonly sub: string | undefined
  readonly globals: ParsedArgs
  readonly args: readonly Word[]
}

/** Splits `git [global options] SUBCOMMAND args…`. */
export function gitCall(args: readonly Word[]): GitCall {
  const globals = parseArgs(args, { values: GLOBAL_VALUES, stopAtOperand: true })
  const at = args.length - globals.rest.length
  const sub = globals.rest[0]
  return {
    at: sub === undefined ? -1 : at,
    sub: sub?.literal === true ? sub.value : undefined,
    globals,
    args: globals.rest.slice(1),
  }
}

export function gitFindings(cmd: SimpleCommand): Finding[] {
  if (programOf(cmd) !== 'git') return []
  const { sub, args } = gitCall(cmd.argv.slice(1))
  const why = sub === undefined ? undefined : RULES[sub]?.(args)
  return why === undefined ? [] : [confirm(`${quoted(cmd.text)} ${why}`)]
}

type Rule = (args: readonly Word[]) => string | undefined

const RULES: Record<string, Rule> = {
  push(args) {
    const parsed = parseArgs(args, {
      values: ['--repo', '-o', '--push-option', '--receive-pack', '--exec'],
    })
    const refspecs = parsed.operands.slice(1).map((w) => w.value)
    if (hasOption(parsed, ['-f'], ['--force', '--force-with-lease', '--force-if-includes'])) {
      return 'force-pushes, which can overwrite commits on the remote'
    }
    if (refspecs.some((r) => r.startsWith('+')))
      return 'force-pushes a ref (+), which can overwrite commits on the remote'
    if (hasOption(parsed, ['-d'], ['--delete']) || refspecs.some((r) => r.startsWith(':'))) {
      return 'deletes a branch or tag on the remote'
    }
    if (hasOption(parsed, [], ['--mirror']))
      return 'mirrors the repository, deleting remote refs that do not exist here'
    if (hasOption(parsed, [], ['--prune'])) return 'deletes remote branches that do not exist here'
    return undefined
  },
  clean(args) {
    const parsed = parseArgs(args, { values: ['-e', '--exclude'] })
    if (hasOption(parsed, ['-n'], ['--dry-run'])) return undefined
    if (hasOption(parsed, ['-x', '-X']))
      return 'deletes ignored files (build outputs, local settings, secrets)'
    if (hasOption(parsed, ['-d'])) return 'deletes untracked folders'
    return undefined
  },
  reset(args) {
    const parsed = parseArgs(args)
    return hasOption(parsed, [], ['--hard', '--merge', '--keep'])
      ? 'throws away uncommitted changes'
      : undefined
  },
  checkout(args) {
    const parsed = parseArgs(args, {
      values: ['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file'],
    })
    if (hasOption(parsed, ['-f'], ['--force'])) return 'throws away uncommitted changes'
    const dashes = args.findIndex((w) => w.literal && w.value === '--')
    if (dashes >= 0 && dashes < args.length - 1)
      return 'throws away uncommitted changes to those paths'
    if (parsed.operands.some((w) => w.value === '.' || w.glob))
      return 'throws away uncommitted changes'
    return undefined
  },
  restore(args) {
    const parsed = parseArgs(args, {
      values: ['-s', '--source', '--pathspec-from-file', '--conflict'],
    })
    const staged = hasOption(parsed, ['-S'], ['--staged'])
    const worktree = hasOption(parsed, ['-W'], ['--worktree'])
    return staged && !worktree ? undefined : 'throws away uncommitted changes to those files'
  },
  stash(args) {
    const action = args[0]?.value
    return action === 'drop' || action === 'clear' ? 'deletes stashed changes for good' : undefined
  },
  branch(args) {
    const parsed = parseArgs(args)
    const forced =
      hasOption(parsed, ['-D']) ||
      (hasOption(parsed, ['-d'], ['--delete']) && hasOption(parsed, ['-f'], ['--force']))
    return forced ? 'deletes a branch even if it is not merged' : undefined
  },
  'filter-branch': () => 'rewrites the history of the repository',
  'filter-repo': () => 'rewrites the history of the repository',
  config(args) {
    const parsed = parseArgs(args, {
      values: ['-f', '--file', '--blob', '--type', '--default', '--comment'],
    })
    const action = parsed.operands[0]?.value
    if (action === 'get' || action === 'list') return undefined
    const reads = [
      '--get',
      '--get-all',
      '--get-regexp',
      '--get-urlmatch',
      '--get-color',
      '--get-colorbool',
      '--list',
      '-l',
      '--show-origin',
      '--show-scope',
      '--name-only',
    ]
    const changes = [
      '--unset',
      '--unset-all',
      '--add',
      '--replace-all',
      '--rename-section',
      '--remove-section',
      '--edit',
      '-e',
    ]
    if (parsed.options.some((o) => changes.includes(o.name))) return 'changes git settings'
    if (parsed.options.some((o) => reads.includes(o.name))) return undefined
    if (['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(action ?? '')) {
      return 'changes git settings'
    }
    return parsed.operands.length >= 2 ? 'changes git settings' : undefined
  },
}

/** Folders git would write in: `-C`, `--git-dir`, `--work-tree`, `clone` and `worktree add` targets. */
export function gitWrites(args: readonly Word[]): Write[] {
  const call = gitCall(args)
  const where = call.globals.options.flatMap((o) =>
    ['-C', '--git-dir', '--work-tree'].includes(o.name) && o.value !== undefined ? [o.value] : [],
  )
  const writes: Write[] = where.map((word) => ({ word, verb: 'runs git in' }))
  if (call.sub === 'clone') {
    const values = [
      '-o',
      '--origin',
      '-b',
      '--branch',
      '-u',
      '--upload-pack',
      '--reference',
      '--separate-git-dir',
      '--depth',
      '--shallow-since',
      '--shallow-exclude',
      '-j',
      '--jobs',
      '-c',
      '--config',
      '--filter',
      '--template',
      '--server-option',
      '--bundle-uri',
    ]
    const dir = parseArgs(call.args, { values }).operands[1]
    if (dir !== undefined) writes.push({ word: dir, verb: 'clones into' })
  }
  if (call.sub === 'worktree' && call.args[0]?.value === 'add') {
    const path = parseArgs(call.args.slice(1), { values: ['-b', '-B', '--reason'] }).operands[0]
    if (path !== undefined) writes.push({ word: path, verb: 'adds a worktree at' })
  }
  if (call.sub === 'init') {
    const dir = parseArgs(call.args, {
      values: [
        '--template',
        '--separate-git-dir',
        '-b',
        '--initial-branch',
        '--object-format',
        '--ref-format',
      ],
    }).operands[0]
    if (dir !== undefined) writes.push({ word: dir, verb: 'creates a repository in' })
  }
  return writes
}
