/**
 * Every read, write and removal a restore does in the project, confined (docs/ARCHITECTURE.md
 * 3.11). Restore runs in the harness, outside the sandbox, with the user's rights: a write that
 * followed `x -> .git` would put a `core.fsmonitor` command into `.git/config` that git then runs,
 * and one that followed `x -> ~` would write the user's files. So nothing here follows a link:
 *
 * - The folder of each file is opened from the project's root one component at a time, each
 *   without following a link (`openFolderInsideSync` with `links: 'refuse'`), and used through
 *   its descriptor afterwards: a folder swapped for a link once it was opened changes nothing,
 *   and one swapped before is refused. Missing folders are created the same way, each in its
 *   verified parent.
 * - The final name is looked at with `lstat` inside that folder: a link there is refused, never
 *   followed or replaced. A file is read through a descriptor opened with `O_NOFOLLOW`, written to
 *   a new temp file (`O_EXCL`) in the same folder and renamed over the name (a rename replaces a
 *   name, never writes through it), and removed with `unlink` only when `lstat` shows a regular
 *   file.
 * - A protected path (`.git`, hooks, CI workflows, ...: the caller's `ProtectedReason`, which is
 *   the tools' one list) is refused: by the plan where the opened folder really is (or as named,
 *   when its folder is missing), and again by each write and removal where its opened folder
 *   really is. With no link on the way, that is the path as named.
 *
 * A refusal is a `RefusedPath` naming the path and why; the plan (`readCurrent`) turns it into a
 * skip, a write turns it into a failed restore. Known limits: those of `confined.ts` (without
 * `/proc`, as on macOS, a folder is checked and then used by its real path); a name swapped for
 * a link between the `lstat` and the rename is replaced by the file, its target untouched.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import type { Stats } from 'node:fs'
import { join, posix, relative, resolve, sep } from 'node:path'
import { openFolderInsideSync, tempNameFor } from './confined.js'
import type { Folder } from './confined.js'
import { isWithin, PathError } from './paths.js'
import { hashContent } from './snapshot.js'
import { DEFAULT_AFTER_SNAPSHOT_MAX_BYTES } from './turn-changes.js'

/**
 * The largest file a restore overwrites or removes (it keeps a copy first): the size up to which
 * a turn's end keeps copies. A larger file is skipped, with its reason.
 */
export const MAX_RESTORE_FILE_BYTES = DEFAULT_AFTER_SNAPSHOT_MAX_BYTES

/**
 * Why a write to `absolutePath` inside `projectDir` is refused (a path whose content runs later as
 * a program or a setting), or undefined. The host and the CLI pass the tools' `protectedPathReason`:
 * the one list, which this layer cannot import. Must not throw.
 */
export type ProtectedReason = (projectDir: string, absolutePath: string) => string | undefined

/** Where a restore may write: the project's real root and what in it is protected. */
export interface RestoreFence {
  readonly root: string
  readonly protectedReason: ProtectedReason
}

/** What a file of the project holds now: its content (guarded by hash), or no file. */
export type Current =
  | {
      readonly kind: 'file'
      readonly hash: string
      readonly content: Buffer
      readonly mode: number
    }
  | { readonly kind: 'absent' }

export const ABSENT = { kind: 'absent' } as const

/** A path the restore does not touch, and why in words. */
export class RefusedPath extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`)
    this.name = 'RefusedPath'
  }
}

/** A file path inside the project: absolute, and its folder and name relative to the root. */
interface Located {
  readonly abs: string
  readonly dir: string
  readonly name: string
}

/**
 * Where `path` (project-relative) is, or a RefusedPath when it is not a file path inside the
 * project (`../x`, absolute elsewhere, the root itself). Judged by its text: links are met later.
 */
export function locate(fence: RestoreFence, path: string): Located {
  const abs = resolve(fence.root, path)
  if (!isWithin(fence.root, abs)) throw new RefusedPath(path, 'it is outside the project folder')
  if (abs === fence.root) throw new RefusedPath(path, 'it names the project folder itself')
  const rel = relative(fence.root, abs).split(sep).join('/')
  return { abs, dir: posix.dirname(rel), name: posix.basename(rel) }
}

function refuseProtected(fence: RestoreFence, path: string, abs: string): void {
  const reason = fence.protectedReason(fence.root, abs)
  if (reason !== undefined) {
    throw new RefusedPath(path, `it is a protected path (${reason}); restore never writes there`)
  }
}

/**
 * What `path` holds now, read without following any link. A missing file, a missing folder on
 * the way or a file where a folder would be is `absent`; a link on the way or at the name, a
 * folder or other non-file at the name, a protected real path or a file over
 * MAX_RESTORE_FILE_BYTES is a RefusedPath.
 */
export function readCurrent(fence: RestoreFence, path: string): Current {
  const { abs, dir, name } = locate(fence, path)
  let folder: Folder | undefined
  try {
    folder = openFolder(fence, dir, false)
  } catch (error) {
    if (error instanceof PathError) wayRefused(fence, path, dir, error)
    else if (!isErrno(error, 'ENOENT')) throw error
  }
  // Links first (their words say what was done to the project), then what the path names, then
  // where it really is.
  if (folder === undefined) {
    refuseProtected(fence, path, abs)
    return ABSENT
  }
  try {
    const entry = folder.entry(name)
    const info = lstatOrUndefined(entry)
    if (info?.isSymbolicLink() === true) refuseNonFile(path, info, entry)
    // No link on the way: where it really is is what it names (one look, not two).
    refuseProtected(fence, path, join(folder.real, name))
    if (info === undefined) return ABSENT
    refuseNonFile(path, info, entry)
    return readFile(path, entry)
  } finally {
    folder.close()
  }
}

/**
 * Writes `content` to `path` whole (a temp file renamed over the name in the same verified
 * folder), creating missing folders; `mode` is the replaced file's. Throws a RefusedPath (or the
 * file system's error) when it cannot, with nothing written outside the project.
 */
export function writeConfined(
  fence: RestoreFence,
  path: string,
  content: Buffer,
  mode: number | undefined,
): void {
  // The plan judged the path as named (`readCurrent`); here, where the opened folder really is.
  const { dir, name } = locate(fence, path)
  const folder = openFolder(fence, dir, true)
  try {
    refuseProtected(fence, path, join(folder.real, name))
    const info = lstatOrUndefined(folder.entry(name))
    if (info !== undefined) refuseNonFile(path, info, folder.entry(name))
    const temp = folder.entry(tempNameFor(name))
    try {
      writeFileSync(temp, content, { flag: 'wx', ...(mode === undefined ? {} : { mode }) })
      renameSync(temp, folder.entry(name))
    } catch (error) {
      unlinkQuietly(temp)
      throw error
    }
  } finally {
    folder.close()
  }
}

/**
 * Removes the regular file at `path`; nothing to do when it (or its folder) is missing. Throws a
 * RefusedPath when a link or a non-file is on the way or at the name. Folders stay.
 */
export function removeConfined(fence: RestoreFence, path: string): void {
  const { dir, name } = locate(fence, path)
  let folder: Folder
  try {
    folder = openFolder(fence, dir, false)
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return
    throw error
  }
  try {
    refuseProtected(fence, path, join(folder.real, name))
    const info = lstatOrUndefined(folder.entry(name))
    if (info === undefined) return
    refuseNonFile(path, info, folder.entry(name))
    // unlink removes the name itself: a link put there since the lstat would go, not its target.
    unlinkSync(folder.entry(name))
  } finally {
    folder.close()
  }
}

function openFolder(fence: RestoreFence, dir: string, create: boolean): Folder {
  return openFolderInsideSync(fence.root, join(fence.root, dir), {
    create,
    links: 'refuse',
    shown: dir,
  })
}

/**
 * The folder `dir` could not be opened without following a link: throws a RefusedPath naming the
 * first link on the way (a plan's words only; the write refuses on its own). Returns when a plain
 * file or nothing is in the way instead: then there is no file at `path`.
 */
function wayRefused(fence: RestoreFence, path: string, dir: string, error: PathError): void {
  let walked = ''
  for (const part of dir.split('/')) {
    walked = walked === '' ? part : `${walked}/${part}`
    const info = lstatOrUndefined(join(fence.root, walked))
    if (info === undefined) return
    if (info.isSymbolicLink()) {
      throw new RefusedPath(path, `${walked} is ${linkWords(join(fence.root, walked))}`)
    }
    if (!info.isDirectory()) return
  }
  throw new RefusedPath(path, error.message)
}

function refuseNonFile(path: string, info: Stats, entry: string): void {
  if (info.isSymbolicLink()) throw new RefusedPath(path, `it is ${linkWords(entry)}`)
  if (info.isDirectory()) throw new RefusedPath(path, 'a folder is there now')
  if (!info.isFile()) {
    throw new RefusedPath(path, 'it is not a regular file now (a pipe, socket or device)')
  }
}

function linkWords(entry: string): string {
  let target = 'elsewhere'
  try {
    target = readlinkSync(entry)
  } catch {
    // Gone or unreadable meanwhile: the words go without its target.
  }
  return `a symbolic link (to ${target}); restore never writes through a link, so nothing there was touched`
}

/** Opens a file to read: never through a link at the name, never waiting on a pipe or a terminal. */
const READ_NO_FOLLOW =
  constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY

/** The regular file at `entry`, through one descriptor opened without following a link. */
function readFile(path: string, entry: string): Current {
  let fd: number
  try {
    fd = openSync(entry, READ_NO_FOLLOW)
  } catch (error) {
    // Swapped since the lstat: gone, or now a link (ELOOP: O_NOFOLLOW met one at the name).
    if (isErrno(error, 'ENOENT')) return ABSENT
    if (isErrno(error, 'ELOOP')) throw new RefusedPath(path, `it is ${linkWords(entry)}`)
    throw error
  }
  try {
    const info = fstatSync(fd)
    refuseNonFile(path, info, entry)
    if (info.size > MAX_RESTORE_FILE_BYTES) {
      throw new RefusedPath(
        path,
        `it is larger than ${MAX_RESTORE_FILE_BYTES / (1024 * 1024)} MiB now, too large to keep a copy to undo`,
      )
    }
    const content = readFileSync(fd)
    return { kind: 'file', hash: hashContent(content), content, mode: info.mode & 0o7777 }
  } finally {
    closeSync(fd)
  }
}

function lstatOrUndefined(entry: string): Stats | undefined {
  try {
    return lstatSync(entry)
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined
    throw error
  }
}

function unlinkQuietly(entry: string): void {
  try {
    unlinkSync(entry)
  } catch {
    // The temp file was never made (the write failed first) or is gone: nothing to clean.
  }
}

const isErrno = (error: unknown, ...codes: string[]): boolean =>
  error instanceof Error && 'code' in error && codes.includes(String(error.code))
