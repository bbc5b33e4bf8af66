/**
 * What the built-in file tools share: how a path is shown to the model, how a file is checked
 * before it is read or changed, how a change to a protected path is assessed, and how a file is
 * replaced atomically.
 */
import { realpathSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { lstat, readlink, stat } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path'
import { openFileInside, openFolderInsideSync, replaceFileIn } from '../../workspace/confined.js'
import { PathError, resolveInsideProject } from '../../workspace/paths.js'
import { stampOf } from '../file-ledger.js'
import { homeFileOf } from '../home-files.js'
import { protectedPathReason } from '../protected-paths.js'
import { ToolError } from '../types.js'
import type { CallAssessment } from '../types.js'

/** How many bytes are searched for a NUL to call a file binary (as git and grep do). */
export const SNIFF_BYTES = 8 * 1024

/** A chain of dangling links longer than this is refused rather than followed. */
const MAX_LINK_HOPS = 8

/** True for a Node file system error with one of these codes. */
export const isErrno = (error: unknown, ...codes: string[]): boolean =>
  error instanceof Error && 'code' in error && codes.includes(String(error.code))

/** A path as the model should see it: relative to the project, with forward slashes. */
export function projectRelative(projectDir: string, absolutePath: string): string {
  const rel = relative(realpathSync(projectDir), absolutePath)
  return rel === '' ? '.' : rel.split(sep).join('/')
}

/**
 * The approval key of a file tool's path: the normalized relative path, so "always allow src/"
 * covers `src/a.ts`. An absolute path or one that climbs out gets no key (asked every time),
 * because a remembered rule must not cover a path it was never shown.
 */
export function pathApprovalKey(path: string): string | undefined {
  if (isAbsolute(path)) return undefined
  const key = normalize(path).split(sep).join('/')
  if (key === '..' || key.startsWith('../')) return undefined
  return key
}

const NORMAL: CallAssessment = { level: 'normal', reasons: [] }

/**
 * `assess` for a tool that changes the file at `path`: a protected target (a git hook, CI, `.env`,
 * see protected-paths.ts) needs this call's own approval, and no standing rule may cover it. The
 * target is resolved as a write would resolve it, so a link leading into `.git` is named as such.
 * Never throws: a path outside the project is `normal` here and refused when the call runs.
 */
export async function assessFileChange(
  projectDir: string,
  path: string,
  protectedPaths: readonly string[] = [],
): Promise<CallAssessment> {
  let target: string
  try {
    target = await resolveWriteTarget(projectDir, path)
  } catch {
    // Outside the project or unresolvable: run refuses it; the text alone is still judged.
    target = resolve(projectDir, path)
  }
  const reason =
    protectedPathReason(projectDir, target, protectedPaths) ??
    protectedPathReason(projectDir, resolve(projectDir, path), protectedPaths)
  if (reason === undefined) return NORMAL
  const lexical = relative(resolve(projectDir), resolve(projectDir, path))
  const given = pathApprovalKey(lexical) ?? path
  let shown = given
  try {
    shown = projectRelative(projectDir, target)
  } catch {
    // The project folder vanished: name the path as given.
  }
  const name = shown === given ? given : `${given} (which leads to ${shown})`
  return { level: 'confirm', reasons: [`${name} is ${reason}`], grantable: false }
}

/**
 * `assess` for a tool that reads what `path` names (read, or the folder list, glob and grep
 * start from): a credential store of the home folder (`home-files.ts`, reachable only when the
 * project is or holds the home folder) needs this call's own approval, since what is read goes
 * to the model; full-auto refuses it. Searches over a folder that holds one leave it out instead
 * (`walk.ts`). Never throws: a path outside the project is `normal` here and refused when run.
 */
export function assessRead(projectDir: string, path: string): CallAssessment {
  let target: string
  try {
    target = resolveInsideProject(projectDir, path)
  } catch {
    return NORMAL
  }
  const lexical = resolve(projectDir, path)
  if (homeFileOf(lexical, target)?.kind !== 'credential') return NORMAL
  const given = pathApprovalKey(relative(resolve(projectDir), lexical)) ?? path
  const why = `${given} is ${CREDENTIAL_READ}`
  return { level: 'confirm', reasons: [why], grantable: false }
}

const CREDENTIAL_READ =
  'in a credential store of your home folder (keys, tokens, sign-ins): reading it sends its content to the model'

/** `stat`, with a missing path (or a file used as a folder on the way) as `undefined`. */
export async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path)
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined
    throw error
  }
}

/** A regular file as one `stat` saw it: its size and mode, and its stamp for `readStable`. */
export interface RegularFile {
  readonly size: number
  readonly mode: number
  readonly stamp: string
}

/** A regular file of the project, open for reading through a descriptor verified to be inside. */
export interface OpenFile extends RegularFile {
  readonly handle: FileHandle
}

/** PATH_CHANGED: what a path named moved while the call was using it; nothing was done there. */
export const pathChanged = (shown: string): ToolError =>
  new ToolError(
    'PATH_CHANGED',
    `${shown} was moved or replaced while it was being used (a folder on its way became a symbolic link, or was renamed); nothing was read or written through the new path. Try again.`,
  )

/**
 * Opens `absolutePath` (as `resolveInsideProject` gave it) for reading, then checks what was
 * opened: it must be that very path (so a link swapped in since the check is caught, whether it
 * leads outside, PATH_OUTSIDE_PROJECT, or elsewhere inside, PATH_CHANGED) and a regular file
 * (NOT_FOUND, NOT_A_FILE in words the model can act on). Reading goes through the handle only;
 * the caller closes it.
 */
export async function openRegularFile(
  projectDir: string,
  absolutePath: string,
  shown: string,
): Promise<OpenFile> {
  let opened: Awaited<ReturnType<typeof openFileInside>>
  try {
    opened = await openFileInside(realpathSync(projectDir), absolutePath, shown)
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) throw notFound(shown)
    if (isErrno(error, 'ENXIO')) throw notRegular(shown)
    throw error
  }
  const { handle, real } = opened
  try {
    if (real !== absolutePath) throw pathChanged(shown)
    const info = await handle.stat({ bigint: true })
    if (info.isDirectory()) {
      throw new ToolError(
        'NOT_A_FILE',
        `${shown} is a folder, not a file; use list to see its entries.`,
      )
    }
    if (!info.isFile()) throw notRegular(shown)
    return { handle, size: Number(info.size), mode: Number(info.mode), stamp: stampOf(info) }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** The stamp of an open file now (see `fileStamp`): what `readStable` compares through a handle. */
export const handleStamp = async (handle: FileHandle): Promise<string> =>
  stampOf(await handle.stat({ bigint: true }))

const notFound = (shown: string): ToolError =>
  new ToolError(
    'NOT_FOUND',
    `${shown} does not exist. Check the spelling, or use list to see what its folder holds.`,
  )

const notRegular = (shown: string): ToolError =>
  new ToolError(
    'NOT_A_FILE',
    `${shown} is not a regular file (a device, socket or pipe); file tools work on regular files only.`,
  )

/** Whether these leading bytes look binary (a NUL byte never occurs in UTF-8 text). */
export const looksBinary = (head: Uint8Array): boolean => head.includes(0)

/** The number of lines of a text: a final newline ends the last line rather than starting one. */
export function countLines(text: string): number {
  if (text === '') return 0
  let lines = 1
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++
  return text.endsWith('\n') ? lines - 1 : lines
}

/**
 * Where a write to `path` really lands. `resolveInsideProject` follows every link that exists; a
 * dangling link it cannot follow, yet writing to it would create its target, so each dangling link
 * on the way is followed by hand and its target checked like any other path.
 */
export async function resolveWriteTarget(projectDir: string, path: string): Promise<string> {
  const root = realpathSync(projectDir)
  let target = resolveInsideProject(projectDir, path)
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const link = await firstDanglingLink(root, target)
    if (link === undefined) return target
    const pointsTo = resolve(dirname(link), await readLinkOrChanged(link, path))
    try {
      target = resolveInsideProject(projectDir, join(pointsTo, relative(link, target)))
    } catch (error) {
      if (!(error instanceof PathError)) throw error
      throw new PathError(
        `${path} goes through the symbolic link ${projectRelative(projectDir, link)}, which points outside the project folder; only paths inside it can be used`,
      )
    }
  }
  throw new ToolError(
    'PATH_UNRESOLVABLE',
    `${path} goes through more than ${MAX_LINK_HOPS} symbolic links that point to nothing; write to a plain path instead.`,
  )
}

/** Where a link points; a link gone or replaced since `lstat` saw it is PATH_CHANGED. */
async function readLinkOrChanged(link: string, shown: string): Promise<string> {
  try {
    return await readlink(link)
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'EINVAL', 'ENOTDIR')) throw pathChanged(shown)
    throw error
  }
}

/** The first component of `target` below `root` that is a symbolic link, if any exists. */
async function firstDanglingLink(root: string, target: string): Promise<string | undefined> {
  let current = root
  for (const part of relative(root, target).split(sep)) {
    if (part === '') continue
    current = join(current, part)
    try {
      if ((await lstat(current)).isSymbolicLink()) return current
    } catch (error) {
      // Nothing exists from here on, so no link can be on the way.
      if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined
      throw error
    }
  }
  return undefined
}

/** What `write` and `edit` are built with: the user's own protected paths (config.json). */
export interface FileToolOptions {
  readonly protectedPaths?: readonly string[] | undefined
}

/** How `writeFileInProject` writes: the mode to give, the last check, and whether to make folders. */
export interface WriteOptions {
  readonly mode?: number | undefined
  /** Runs right before the rename; a throw cancels the write (the stale-file check). */
  readonly beforeRename?: (() => Promise<void>) | undefined
  /** Create missing folders on the way (write), or refuse a path whose folder is gone (edit). */
  readonly create: boolean
}

/**
 * Replaces `absolutePath` (as `resolveWriteTarget` gave it) with `data`, atomically (see
 * `replaceFileIn`), within its folder opened one component at a time from the project root and
 * verified there: missing folders are created each inside a verified parent, and a folder that
 * no longer is the one the path named (a link swapped in on the way) is PATH_CHANGED, with
 * nothing written. A file stands where a folder is needed: NOT_A_FILE.
 * Known limits: a hard link to the old file keeps the old content; owner and group are not kept.
 */
export async function writeFileInProject(
  projectDir: string,
  absolutePath: string,
  shown: string,
  data: string,
  { mode, beforeRename, create }: WriteOptions,
): Promise<void> {
  const root = realpathSync(projectDir)
  const dir = dirname(absolutePath)
  let folder: ReturnType<typeof openFolderInsideSync>
  try {
    folder = openFolderInsideSync(root, dir, { create, shown })
  } catch (error) {
    // A folder on the way vanished meanwhile (or, for edit, since the file in it was read).
    if (isErrno(error, 'ENOENT')) throw pathChanged(shown)
    if (!isErrno(error, 'ENOTDIR', 'EEXIST')) throw error
    throw new ToolError(
      'NOT_A_FILE',
      `Cannot create the folders for ${shown}: a file stands where a folder is needed on that path.`,
    )
  }
  try {
    if (folder.real !== dir) throw pathChanged(shown)
    await replaceFileIn(folder, basename(absolutePath), data, mode, beforeRename)
  } catch (error) {
    // The verified folder was removed while the file was being written into it.
    if (isErrno(error, 'ENOENT')) throw pathChanged(shown)
    throw error
  } finally {
    folder.close()
  }
}
