/**
 * A working sandbox remembered between runs, so a start need not spawn a test sandbox (three
 * processes, tens of milliseconds of CPU). Only "works" is kept: a failure is probed again at
 * every start, since a sandbox wrongly believed missing would let commands run unsandboxed.
 *
 * An entry is keyed on everything that can change the answer: the bwrap and setpriv binaries
 * (path, size, inode, mtime), the kernel (release and build), the user, the user namespace and
 * AppArmor label the process runs in, the sysctls that allow or refuse unprivileged user
 * namespaces, and the flags the probe gives bwrap. A changed key is a miss, and a miss probes.
 *
 * The file is trusted only when this user owns it and its folder and nobody else can write
 * either: it decides which binary starts every sandboxed command. Even then it supplies only
 * "this worked" and bwrap's version; the paths come from this start's own lookup.
 */
import { createHash } from 'node:crypto'
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { release, version } from 'node:os'
import { dirname } from 'node:path'

/** What a hit gives back: bwrap's version and whether setpriv worked. */
export interface CachedProbe {
  readonly version: string
  readonly hasSetpriv: boolean
}

interface CacheFile {
  readonly entries: Record<string, CachedProbe & { readonly at: number }>
}

/** Entries kept (one per machine state seen lately; a home folder may be shared). */
const MAX_ENTRIES = 8

/** The kernel settings that allow or refuse what bwrap needs (absent ones read as missing). */
const SYSCTLS = [
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_unconfined',
]

/**
 * The key of this machine's state for `bwrap` and `setpriv` (absolute paths, as located) and
 * the probe's own bwrap arguments (`probeArgs`, so a changed probe misses).
 */
export function probeFingerprint(
  bwrap: string,
  setpriv: string | undefined,
  probeArgs: readonly string[],
): string {
  const parts = {
    bwrap: binaryOf(bwrap),
    setpriv: setpriv === undefined ? null : binaryOf(setpriv),
    kernel: `${release()} ${version()}`,
    uid: process.getuid?.() ?? null,
    userns: linkOf('/proc/self/ns/user'),
    apparmor: textOf('/proc/self/attr/current'),
    sysctls: SYSCTLS.map(textOf),
    probeArgs,
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex')
}

/** The remembered working probe for `fingerprint`, if the file holds one and can be trusted. */
export function readCachedProbe(file: string, fingerprint: string): CachedProbe | undefined {
  const entry = readTrusted(file)?.entries[fingerprint]
  if (typeof entry?.version !== 'string' || typeof entry.hasSetpriv !== 'boolean') return undefined
  return { version: entry.version, hasSetpriv: entry.hasSetpriv }
}

/**
 * Remembers a working probe. Best-effort: a cache that cannot be written only means the next
 * start probes again. The folder is created owner-only, the file replaced atomically.
 */
export function writeCachedProbe(file: string, fingerprint: string, probe: CachedProbe): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
    // A folder others can write to is never read back, so writing there would be wasted.
    if (!isOwnersOnly(dirname(file))) return
    const kept = Object.entries(readTrusted(file)?.entries ?? {})
      .filter(([key]) => key !== fingerprint)
      .sort(([, a], [, b]) => b.at - a.at)
      .slice(0, MAX_ENTRIES - 1)
    const entries = Object.fromEntries([[fingerprint, { ...probe, at: Date.now() }], ...kept])
    writeAtomically(file, JSON.stringify({ entries } satisfies CacheFile))
  } catch {
    // Only a speed-up: the next start probes.
  }
}

/** Forgets the entry for `fingerprint` (a remembered sandbox failed to start). Best-effort. */
export function forgetCachedProbe(file: string, fingerprint: string): void {
  try {
    const cache = readTrusted(file)
    if (cache?.entries[fingerprint] === undefined) return
    const entries = Object.fromEntries(
      Object.entries(cache.entries).filter(([key]) => key !== fingerprint),
    )
    writeAtomically(file, JSON.stringify({ entries } satisfies CacheFile))
  } catch {
    // Unreadable or unwritable: nothing is remembered from it anyway, or the entry's key no
    // longer matches once the probe's outcome differs; the caller probes regardless.
  }
}

/** The file's contents, or undefined when it is missing, malformed or others could write it. */
function readTrusted(file: string): CacheFile | undefined {
  try {
    if (!isOwnersOnly(dirname(file)) || !isOwnersOnly(file)) return undefined
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'))
    const entries = (parsed as { entries?: unknown } | null)?.entries
    return typeof entries === 'object' && entries !== null
      ? { entries: entries as CacheFile['entries'] }
      : undefined
  } catch {
    return undefined
  }
}

/** A path (not a symlink) owned by this user that no one else may write to. */
function isOwnersOnly(path: string): boolean {
  const stat = lstatSync(path)
  if (stat.isSymbolicLink()) return false
  const uid = process.getuid?.()
  return (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0
}

/** Through a temporary file of this process, created exclusively (never through a link). */
function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`
  // Left by a process of the same id that died between writing and renaming.
  rmSync(temporary, { force: true })
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' })
    renameSync(temporary, file)
  } catch (error) {
    try {
      unlinkSync(temporary)
    } catch {
      // Never created, or already renamed.
    }
    throw error
  }
}

/** A binary's identity: path, size, inode and modification time (null when it is missing). */
function binaryOf(path: string): string | null {
  try {
    const stat = statSync(path, { bigint: true })
    return `${path} ${stat.size} ${stat.ino} ${stat.mtimeNs}`
  } catch {
    return null
  }
}

function textOf(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return null
  }
}

function linkOf(path: string): string | null {
  try {
    return readlinkSync(path)
  } catch {
    return null
  }
}
