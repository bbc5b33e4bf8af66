/**
 * Where a word points, relative to the project: inside it, the project folder itself, everything
 * in it (`*` at its top), outside it, or unknown. Pure: nothing is read from disk, so a symlink
 * inside the project that points out of it is not seen (the sandbox and the file tools' realpath
 * checks are the defence there); the project folder must be given already resolved.
 */
import { posix } from 'node:path'
import { resolveIn } from './folders.js'
import type { Folder, JudgeContext, SimpleCommand, Word } from './types.js'

export type Spot =
  /** A harmless sink: /dev/null, /dev/stdout, /dev/stderr, /dev/fd/N, /dev/tty. */
  | { readonly kind: 'sink'; readonly path: string }
  | { readonly kind: 'inside'; readonly path: string }
  | { readonly kind: 'project'; readonly path: string }
  /** A glob that matches everything at the top of the project (`*`, `./*`, `.*`). */
  | { readonly kind: 'everything'; readonly path: string }
  | { readonly kind: 'outside'; readonly path: string; readonly what: string }
  /**
   * Only known when the line runs. `under` is where its known start already points (`/etc/`
   * of `/etc/$X`), when that is outside the project or a folder holding it.
   */
  | { readonly kind: 'unknown'; readonly under?: Spot & { kind: 'outside' } }

const SINKS = new Set([
  '/dev/null',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/stdin',
  '/dev/tty',
  '/dev/zero',
])
const SYSTEM = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'media',
  'mnt',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'snap',
  'srv',
  'sys',
  'tmp',
  'usr',
  'var',
  'Applications',
  'Library',
  'System',
  'Users',
  'Volumes',
  'private',
  'cores',
])

/** A spot, and whether it is where the command runs only if an earlier `cd` failed. */
export interface Placed {
  readonly spot: Spot
  readonly fallback: boolean
}

/** Where `word` points from each folder the command may run in. */
export function spotsOf(word: Word, cmd: SimpleCommand, ctx: JudgeContext): Placed[] {
  const folders: Folder[] = [cmd.cwd, ...cmd.otherCwds]
  return folders.map((folder, i) => ({ spot: spotOf(word, folder, ctx), fallback: i > 0 }))
}

/** Added to a reason that holds only when an earlier `cd` fails. */
export const IF_CD_FAILS = ' (where it runs if the cd before it fails; use && after cd)'

export function spotOf(word: Word, folder: Folder, ctx: JudgeContext): Spot {
  if (!word.literal) return unknownSpot(word, folder, ctx)
  const path = resolveIn(folder, word.value)
  if (path === undefined) return { kind: 'unknown' }
  if (!word.glob) return classify(path, ctx)
  return globSpot(word.value, folder, ctx) ?? { kind: 'unknown' }
}

/** A non-literal word is outside when its known start already is (`~/$X`, `/etc/$X`). */
function unknownSpot(word: Word, folder: Folder, ctx: JudgeContext): Spot {
  const slash = word.prefix.lastIndexOf('/')
  if (slash < 0) return { kind: 'unknown' }
  const dir = resolveIn(folder, word.prefix.slice(0, slash + 1))
  if (dir === undefined) return { kind: 'unknown' }
  const spot = classify(dir, ctx)
  return spot.kind === 'outside' ? { kind: 'unknown', under: spot } : { kind: 'unknown' }
}

export function classify(path: string, ctx: JudgeContext): Spot {
  const project = ctx.projectDir
  if (SINKS.has(path) || /^\/dev\/fd\/\d+$/.test(path)) return { kind: 'sink', path }
  if (path === project) return { kind: 'project', path }
  if (path.startsWith(`${project}/`)) return { kind: 'inside', path }
  return { kind: 'outside', path, what: describeOutside(path, ctx) }
}

function describeOutside(path: string, ctx: JudgeContext): string {
  if (path === '/') return '/ (everything on the disk)'
  if (path === ctx.home) return `${path} (your home folder)`
  if (ctx.projectDir.startsWith(`${path}/`)) return `${path} (a folder that holds the project)`
  const top = path.split('/')[1] ?? ''
  if (path === `/${top}` && SYSTEM.has(top)) return `${path} (a system folder)`
  if (path.startsWith('/dev/')) return `${path} (a device)`
  return `${path} (outside the project)`
}

/**
 * A glob matches paths under the folder before its first wildcard. At the project's top,
 * `*`-like patterns match everything in it; `*.log` there matches only some files.
 */
function globSpot(pattern: string, folder: Folder, ctx: JudgeContext): Spot | undefined {
  const parts = pattern.split('/')
  const first = parts.findIndex((part) => /[*?[]/.test(part))
  const baseText = parts.slice(0, first).join('/') || (pattern.startsWith('/') ? '/' : '.')
  const base = resolveIn(folder, baseText)
  if (base === undefined) return undefined
  const spot = classify(base, ctx)
  const full = posix.join(base, parts.slice(first).join('/'))
  switch (spot.kind) {
    case 'inside':
      return { kind: 'inside', path: full }
    case 'project': {
      const rest = parts.slice(first).filter((p) => p !== '')
      const all = rest.length === 1 && matchesAll(rest[0] ?? '')
      return all ? { kind: 'everything', path: full } : { kind: 'inside', path: full }
    }
    case 'outside':
      return { kind: 'outside', path: full, what: `${full}, in ${spot.what}` }
    default:
      return spot
  }
}

/** `*`, `.*`, `?*`, `[!.]*`, `.[!.]*`, `..?*`: patterns that leave (almost) nothing out. */
function matchesAll(part: string): boolean {
  const simplified = part.replace(/\[[^\]]*\]/g, '?')
  return /^\.{0,2}[*?]+$/.test(simplified) && simplified.includes('*')
}
