/**
 * Opening the project's files so that the check and the use are one step.
 *
 * A path checked by name and then opened by name can be raced: between the two, a folder on the
 * way can be swapped for a symbolic link to `~/.ssh`, and the open lands there. Bridle's file
 * tools and restore run in the harness, outside the sandbox, so that race would read and write
 * the user's files with the user's rights. Here every file and folder is opened first and the
 * opened descriptor is checked after: on Linux, `/proc/self/fd/N` names the real path of what
 * was opened, whatever happened to the names since, and a descriptor outside the project is
 * closed unused. Folders are then used through that descriptor (`/proc/self/fd/N/name` resolves
 * `name` in the folder that was checked, as `openat` would), so a temp file is created and
 * renamed within the very folder that was verified, and missing folders are created one at a
 * time, each in a verified parent.
 *
 * Links inside the project that lead elsewhere inside it are followed (`lib -> src/lib`), since
 * only the opened result is judged; `links: 'refuse'` (restore) refuses any link on the way.
 *
 * Known limits: without `/proc` (macOS, Windows) the descriptor is checked by comparing its
 * device and inode with what the real path inside the project names, which a swap timed between
 * the two steps can still pass, and folders are used by their real path. A hard link inside the
 * project to a file outside it is read like any other file (it is that file's name in the
 * project); writes replace such a name by rename, so the outside file is never written.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs'
import type { Stats } from 'node:fs'
import { open, rename, unlink } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { isWithin, PathError } from './paths.js'

const FD_DIR = '/proc/self/fd'

/** Whether an open descriptor's real path can be read here (Linux `/proc`). */
const canNameDescriptors = process.platform === 'linux' && existsSync(FD_DIR)

/** Read flags that cannot hang or take a terminal: a FIFO opens at once (and is then refused). */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY
const NO_FOLLOW = constants.O_NOFOLLOW

/** What to do with a symbolic link on the way: follow it while it stays inside, or refuse it. */
export type LinkRule = 'inside' | 'refuse'

/**
 * The real path of what descriptor `fd` opened, checked against `root` (real). Throws PathError
 * when it lies outside; `shown` names the path in the message.
 */
function verifyDescriptor(fd: number, root: string, given: string, shown: string): string {
  let real: string
  if (canNameDescriptors) {
    real = readlinkSync(`${FD_DIR}/${fd}`)
  } else {
    // No /proc: the descriptor must be the very file its path's real spelling names.
    real = realpathSync(given)
    const opened = fstatSync(fd)
    const named = statSync(real)
    if (opened.dev !== named.dev || opened.ino !== named.ino) throw changedOnTheWay(shown)
  }
  if (!isWithin(root, real)) throw changedOnTheWay(shown)
  return real
}

const changedOnTheWay = (shown: string): PathError =>
  new PathError(
    `${shown} led outside the project folder when it was opened (a symbolic link on the way points out of it, or was put there meanwhile); nothing was read or written there`,
  )

/** The path that names `name` inside an open folder, resolved through its descriptor. */
const entryOf = (fd: number, real: string, name: string): string =>
  canNameDescriptors ? `${FD_DIR}/${fd}/${name}` : join(real, name)

/**
 * Opens `path` (absolute) for reading and returns the handle with the real path it opened, or
 * throws PathError (closing it) when that lies outside `root`. Errors of the open itself
 * (ENOENT, EACCES, ELOOP) are thrown as they are, for the caller to put in words.
 */
export async function openFileInside(
  root: string,
  path: string,
  shown: string,
): Promise<{ handle: FileHandle; real: string }> {
  const handle = await open(path, READ_FLAGS)
  try {
    return { handle, real: verifyDescriptor(handle.fd, root, path, shown) }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * The content of the regular file at `path` if it lies inside `root` when opened; undefined when
 * there is no regular file there, or it leads outside (its bytes are never read then).
 */
export function readFileInsideSync(root: string, path: string): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, READ_FLAGS)
  } catch (error) {
    if (isMissingOrLoop(error)) return undefined
    throw error
  }
  try {
    verifyDescriptor(fd, root, path, path)
    const info = fstatSync(fd)
    if (!info.isFile()) return undefined
    return readAllSync(fd, info)
  } catch (error) {
    if (error instanceof PathError) return undefined
    throw error
  } finally {
    closeSync(fd)
  }
}

function readAllSync(fd: number, info: Stats): Buffer {
  const parts: Buffer[] = []
  const chunk = Buffer.allocUnsafe(Math.max(64 * 1024, Math.min(info.size + 1, 16 * 1024 * 1024)))
  for (let position = 0; ;) {
    const got = readSync(fd, chunk, 0, chunk.length, position)
    if (got === 0) break
    parts.push(Buffer.from(chunk.subarray(0, got)))
    position += got
  }
  return Buffer.concat(parts)
}

const isMissingOrLoop = (error: unknown): boolean =>
  error instanceof Error &&
  'code' in error &&
  ['ENOENT', 'ENOTDIR', 'ELOOP', 'EISDIR', 'ENXIO'].includes(String(error.code))

/** A folder of the project, open and verified: names inside it resolve through its descriptor. */
export interface Folder {
  /** Its real path, as verified when it was opened. */
  readonly real: string
  /** A path that names `name` inside this very folder, whatever its own name now leads to. */
  entry(name: string): string
  close(): void
}

/** How to open a folder: create what is missing, and what a link on the way may do. */
export interface FolderOptions {
  readonly create?: boolean
  readonly links?: LinkRule
  /** Names the folder in errors; defaults to its path relative to the root. */
  readonly shown?: string
}

/**
 * Opens the folder `dir` (absolute, under `root`) one component at a time from `root`, each
 * resolved inside the verified one before it, creating missing ones when asked (each in its
 * verified parent, so a swap can never make `mkdir` create outside). A component that leads
 * outside, or any link with `links: 'refuse'`, is a PathError naming it.
 */
export function openFolderInsideSync(
  root: string,
  dir: string,
  options: FolderOptions = {},
): Folder {
  const parts = componentsBelow(root, dir, options.shown)
  let fd = openSync(root, FOLDER_FLAGS)
  let real: string
  try {
    real = verifyDescriptor(fd, root, root, '.')
    let walked = ''
    for (const part of parts) {
      walked = walked === '' ? part : `${walked}/${part}`
      const next = entryOf(fd, real, part)
      const nextFd = openComponentSync(next, walked, options)
      closeSync(fd)
      fd = nextFd
      real = verifyDescriptor(fd, root, join(real, part), walked)
    }
  } catch (error) {
    closeSync(fd)
    throw error
  }
  return folderOf(fd, real)
}

function openComponentSync(path: string, walked: string, options: FolderOptions): number {
  const flags = FOLDER_FLAGS | (options.links === 'refuse' ? NO_FOLLOW : 0)
  try {
    return openSync(path, flags)
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT') && options.create === true) {
      try {
        mkdirSync(path)
      } catch (made) {
        if (!isErrnoCode(made, 'EEXIST')) throw made
      }
      return openSync(path, flags)
    }
    throw componentError(error, walked, options)
  }
}

/**
 * Opens the folder `name` inside the verified `parent` without following a link there (a link
 * fails with ELOOP or ENOTDIR), as a walk that never follows links needs; verified like any other.
 */
export function openChildFolderSync(root: string, parent: Folder, name: string): Folder {
  const fd = openSync(parent.entry(name), FOLDER_FLAGS | NO_FOLLOW)
  try {
    return folderOf(fd, verifyDescriptor(fd, root, join(parent.real, name), name))
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/**
 * Opens the file `name` inside the verified `parent` for reading without following a link there:
 * what is opened is that folder's own entry, so it lies inside as its folder does.
 */
export async function openChildFile(parent: Folder, name: string): Promise<FileHandle> {
  return open(parent.entry(name), READ_FLAGS | NO_FOLLOW)
}

function folderOf(fd: number, real: string): Folder {
  return { real, entry: (name) => entryOf(fd, real, name), close: () => closeSync(fd) }
}

/** The names from `root` down to `dir`; a PathError when `dir` is not under `root`. */
function componentsBelow(root: string, dir: string, shown?: string): string[] {
  const rel = relative(root, dir)
  if (rel === '') return []
  if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) {
    throw new PathError(`${shown ?? dir} is outside the project folder ${root}`)
  }
  return rel.split(sep).filter((part) => part !== '' && part !== '.')
}

/** A folder component that could not be opened, in words; other errors pass through. */
function componentError(error: unknown, walked: string, options: FolderOptions): unknown {
  // O_NOFOLLOW|O_DIRECTORY on a link fails with ELOOP or ENOTDIR depending on the kernel.
  if (options.links === 'refuse' && isErrnoCode(error, 'ELOOP', 'ENOTDIR')) {
    return new PathError(
      `${walked} is a symbolic link (or not a folder); Bridle does not write through links here, so nothing under it was touched`,
    )
  }
  return error
}

const isErrnoCode = (error: unknown, ...codes: string[]): boolean =>
  error instanceof Error && 'code' in error && codes.includes(String(error.code))

/** A temp name beside `name`, for writing a file whole and renaming it into place. */
export const tempNameFor = (name: string): string =>
  `.${basename(name)}.${randomBytes(6).toString('hex')}.bridle-tmp`

/** The folder and the final name of an absolute path. */
export const splitPath = (path: string): { dir: string; name: string } => ({
  dir: dirname(path),
  name: basename(path),
})

/**
 * Replaces `name` in the verified `folder` with `data`, so a reader sees the old file or the new
 * one, never half of either: a temp file is created in that folder (never following a link),
 * written, synced, given `mode` when set, then renamed over `name` within the same folder, so a
 * link swapped in at `name` is replaced, never written through. `beforeRename` runs last, right
 * before the rename, and a throw from it cancels the write. The temp file is removed on failure.
 */
export async function replaceFileIn(
  folder: Folder,
  name: string,
  data: string | Uint8Array,
  mode?: number,
  beforeRename?: () => Promise<void>,
): Promise<void> {
  const temp = folder.entry(tempNameFor(name))
  let isWritten = false
  try {
    // O_EXCL never follows a link at the last component, so the temp file is ours.
    const handle = await open(temp, 'wx', mode ?? 0o666)
    try {
      await handle.writeFile(data)
      // `open` applies the umask; an existing file keeps its exact mode.
      if (mode !== undefined) await handle.chmod(mode)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await beforeRename?.()
    await rename(temp, folder.entry(name))
    isWritten = true
  } finally {
    if (!isWritten) {
      await unlink(temp).catch(() => {
        // The temp file was never created, or is already gone: nothing to clean up.
      })
    }
  }
}
