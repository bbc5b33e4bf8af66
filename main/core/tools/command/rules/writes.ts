/**
 * Writes: output redirections and the destinations of programs that create, change or remove
 * files. A write outside the project never runs (except to /dev/null and the like); a write to
 * a protected path inside it needs the user's own approval. A destination only known at run time
 * (`> "$OUT"`) runs as the mode says: the line then holds a non-literal word, which already keeps
 * standing grants away.
 */
import { posix } from 'node:path'
import { hasOption, optionValues, parseArgs } from '../args.js'
import { planFind } from '../find.js'
import { IF_CD_FAILS, spotsOf } from '../paths.js'
import { programOf } from '../programs.js'
import type { JudgeContext, SimpleCommand, Word } from '../types.js'
import { quoted, refuse, confirm } from './finding.js'
import type { Finding } from './finding.js'
import { gitWrites } from './git.js'
import { permissionArgs } from './destroy.js'

export interface Write {
  readonly word: Word
  /** "writes to", "moves", …: completes "`cmd` VERB /path". */
  readonly verb: string
}

const WRITE_OPS = new Set(['>', '>>', '&>', '&>>', '>|', '<>'])

export function writeFindings(cmd: SimpleCommand, ctx: JudgeContext): Finding[] {
  const q = quoted(cmd.text)
  const out: Finding[] = []
  for (const { word, verb } of writesOf(cmd)) {
    if (word.found === true) continue
    for (const { spot, fallback } of spotsOf(word, cmd, ctx)) {
      const note = fallback ? IF_CD_FAILS : ''
      if (spot.kind === 'outside') out.push(refuse(`${q} ${verb} ${spot.what}${note}`))
      else if (spot.kind === 'unknown' && spot.under !== undefined) {
        out.push(refuse(`${q} ${verb} a path under ${spot.under.what}${note}`))
      } else if (spot.kind === 'inside' || spot.kind === 'project' || spot.kind === 'everything') {
        const why =
          ctx.protectedReason?.(spot.path) ??
          (word.glob ? ctx.protectedReason?.(posix.dirname(spot.path)) : undefined)
        if (why !== undefined) out.push(confirm(`${q} ${verb} ${spot.path}: ${why}${note}`))
      }
    }
  }
  return out
}

/** Every path the command would create, change or remove. */
export function writesOf(cmd: SimpleCommand): Write[] {
  const writes: Write[] = cmd.redirects.flatMap((r) => {
    if (r.target === undefined) return []
    const dup = r.op === '>&' && /^(\d+-?|-)$/.test(r.target.value)
    const isWrite = WRITE_OPS.has(r.op) || (r.op === '>&' && !dup)
    return isWrite ? [{ word: r.target, verb: 'writes to' }] : []
  })
  return [...writes, ...programWrites(cmd)]
}

const all = (words: readonly Word[], verb: string): Write[] => words.map((word) => ({ word, verb }))
const last = (words: readonly Word[]): Word[] => words.slice(-1)

function programWrites(cmd: SimpleCommand): Write[] {
  const program = programOf(cmd)
  const args = cmd.argv.slice(1)
  switch (program) {
    case 'cp':
    case 'ln':
    case 'install': {
      const parsed = parseArgs(args, {
        values: [
          '-t',
          '--target-directory',
          '-S',
          '--suffix',
          '-m',
          '--mode',
          '-o',
          '--owner',
          '-g',
          '--group',
        ],
      })
      const into = optionValues(parsed, ['-t'], ['--target-directory'])
      if (into.length > 0) return all(into, 'writes into')
      if (program === 'install' && hasOption(parsed, ['-d'], ['--directory'])) {
        return all(parsed.operands, 'creates')
      }
      if (program === 'ln' && parsed.operands.length < 2) return []
      return all(last(parsed.operands), program === 'ln' ? 'creates a link at' : 'writes to')
    }
    case 'mv': {
      const parsed = parseArgs(args, { values: ['-t', '--target-directory', '-S', '--suffix'] })
      // Moving a file away changes its old folder too: every operand counts.
      return all(
        [...parsed.operands, ...optionValues(parsed, ['-t'], ['--target-directory'])],
        'moves',
      )
    }
    case 'tee':
      return all(parseArgs(args).operands, 'writes to')
    case 'touch':
      return all(
        parseArgs(args, { values: ['-r', '--reference', '-d', '--date', '-t'] }).operands,
        'touches',
      )
    case 'mkdir':
      return all(parseArgs(args, { values: ['-m', '--mode', '--context'] }).operands, 'creates')
    case 'rmdir':
    case 'unlink':
      return all(parseArgs(args).operands, 'removes')
    case 'rm': {
      const parsed = parseArgs(args)
      // Recursive deletes are judged (more strictly) with the destructive commands.
      if (hasOption(parsed, ['-r', '-R'], ['--recursive'])) return []
      return all(parsed.operands, 'deletes')
    }
    case 'truncate':
      return all(
        parseArgs(args, { values: ['-s', '--size', '-r', '--reference'] }).operands,
        'truncates',
      )
    case 'chmod':
    case 'chown':
    case 'chgrp': {
      const permissions = permissionArgs(program, args)
      if (permissions === undefined || permissions.recursive) return []
      return all(
        permissions.targets,
        program === 'chmod' ? 'changes the permissions of' : 'changes the owner of',
      )
    }
    case 'rsync':
      return rsyncWrites(args)
    case 'tar':
      return tarWrites(args)
    case 'sed':
      return sedWrites(args)
    case 'perl':
      return perlWrites(args)
    case 'curl':
      return curlWrites(args)
    case 'wget': {
      const parsed = parseArgs(args, {
        values: [
          '-O',
          '--output-document',
          '-P',
          '--directory-prefix',
          '-o',
          '--output-file',
          '-a',
          '--append-output',
        ],
      })
      return all(
        optionValues(
          parsed,
          ['-O', '-P', '-o', '-a'],
          ['--output-document', '--directory-prefix', '--output-file', '--append-output'],
        ).filter((w) => w.value !== '-'),
        'downloads to',
      )
    }
    case 'find':
      return all(planFind(args).writes, 'writes to')
    case 'git':
      return gitWrites(args)
    default:
      return []
  }
}

const RSYNC_VALUES = [
  '-e',
  '--rsh',
  '-f',
  '--filter',
  '-T',
  '--temp-dir',
  '--exclude',
  '--include',
  '--exclude-from',
  '--include-from',
  '--files-from',
  '--log-file',
  '--partial-dir',
  '--backup-dir',
  '--compare-dest',
  '--copy-dest',
  '--link-dest',
  '-B',
  '--block-size',
  '--port',
  '--password-file',
  '--chmod',
  '--chown',
  '-M',
  '--remote-option',
  '--out-format',
  '--bwlimit',
  '--timeout',
  '--max-size',
  '--min-size',
  '--suffix',
]

/** The destination, unless it is on another machine (`host:path`, `rsync://`). */
function rsyncWrites(args: readonly Word[]): Write[] {
  const operands = parseArgs(args, { values: RSYNC_VALUES }).operands
  const dest = operands.length >= 2 ? operands.at(-1) : undefined
  if (dest === undefined || /^[^/]*:/.test(dest.prefix)) return []
  return all([dest], 'syncs into')
}

const TAR_VALUES = [
  '-f',
  '--file',
  '-C',
  '--directory',
  '-T',
  '--files-from',
  '-X',
  '--exclude-from',
  '-b',
  '--blocking-factor',
  '-g',
  '--listed-incremental',
  '-H',
  '--format',
  '-I',
  '--use-compress-program',
  '-K',
  '--starting-file',
  '-L',
  '--tape-length',
  '-N',
  '--newer',
  '-V',
  '--label',
  '--exclude',
  '--transform',
  '--owner',
  '--group',
  '--mode',
  '--mtime',
]

/** Extracting writes into `-C DIR` (or the current folder); creating writes the `-f` archive. */
function tarWrites(args: readonly Word[]): Write[] {
  const [first, ...rest] = args
  // Old style `tar xzf a.tgz`: the first word is a cluster without its dash.
  const normal =
    first?.literal === true && /^[A-Za-z]+$/.test(first.value)
      ? [{ ...first, value: `-${first.value}`, prefix: `-${first.value}` }, ...rest]
      : args
  const parsed = parseArgs(normal, { values: TAR_VALUES })
  if (hasOption(parsed, ['-x'], ['--extract', '--get'])) {
    const dirs = optionValues(parsed, ['-C'], ['--directory'])
    return all(dirs, 'extracts into')
  }
  const creates = hasOption(
    parsed,
    ['-c', '-r', '-u', '-A'],
    ['--create', '--append', '--update', '--catenate', '--delete'],
  )
  if (!creates) return []
  return all(
    optionValues(parsed, ['-f'], ['--file']).filter((w) => w.value !== '-'),
    'writes the archive',
  )
}

/** `sed -i` edits its files in place; `-ie` is `-i` with the suffix `e`, as GNU sed reads it. */
function sedWrites(args: readonly Word[]): Write[] {
  const parsed = parseArgs(args, {
    values: ['-e', '--expression', '-f', '--file', '-l', '--line-length'],
  })
  const inPlace =
    parsed.options.some((o) => o.name === '--in-place' || o.name.startsWith('--in-place')) ||
    args.some((w) => w.literal && /^-[a-zA-Z]*i/.test(w.value) && !w.value.startsWith('--'))
  if (!inPlace) return []
  const scripted = hasOption(parsed, ['-e', '-f'], ['--expression', '--file'])
  return all(scripted ? parsed.operands : parsed.operands.slice(1), 'edits')
}

/** `perl -pi -e CODE files`: the files after the code are edited in place. */
function perlWrites(args: readonly Word[]): Write[] {
  const inPlace = args.some((w) => w.literal && /^-[a-zA-Z]*i/.test(w.value))
  if (!inPlace) return []
  const codeAt = args.findIndex((w) => w.literal && /^-[a-zA-Z]*[eE]$/.test(w.value))
  const files =
    codeAt >= 0 ? args.slice(codeAt + 2) : args.filter((w) => !w.value.startsWith('-')).slice(1)
  return all(files, 'edits')
}

const CURL_VALUES = Array.from('AbcCdDeEFhHKmoPQrTuUwxXyYz').map((c) => `-${c}`)

function curlWrites(args: readonly Word[]): Write[] {
  const parsed = parseArgs(args, {
    values: [
      ...CURL_VALUES,
      '--output',
      '--output-dir',
      '--dump-header',
      '--cookie-jar',
      '--config',
      '--data',
      '--header',
      '--user',
      '--url',
      '--request',
    ],
  })
  return all(
    optionValues(
      parsed,
      ['-o', '-D', '-c'],
      ['--output', '--output-dir', '--dump-header', '--cookie-jar'],
    ).filter((w) => w.value !== '-'),
    'downloads to',
  )
}
