/**
 * Stand-ins for protected paths that do not exist: bwrap binds an empty read-only folder or file
 * at each, so the command cannot create it. To mount there bwrap creates an empty folder or file
 * at that place in the project itself (the project is a bind mount of the real folder), which
 * would stay behind once the command ends: `releaseStandIns` removes it again. A file the host
 * must be able to read meanwhile (git reads `.git/commondir`, and an empty one stops it) is
 * written by Bridle with its content instead (`writeStandIns`), locked, and removed the same way.
 *
 * Several sandboxes of this process may hold the same stand-in at once (subagents share a
 * project): it is removed only when the last one ends, since removing a mount point on the host
 * also detaches it inside a sandbox still running.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** An empty folder and an empty file, readable by all and writable by no one, to bind. */
export interface StandInSources {
  readonly folder: string
  readonly file: string
}

let sources: StandInSources | undefined

/**
 * The empty folder and file stand-ins are bound from: made once per process in a folder of its
 * own under the temporary folder (made again if something removed them).
 */
export function standInSources(): StandInSources {
  if (sources && exists(sources.folder) && exists(sources.file)) return sources
  const dir = mkdtempSync(join(tmpdir(), 'bridle-stand-ins-'))
  const made = { folder: join(dir, 'folder'), file: join(dir, 'file') }
  mkdirSync(made.folder, { mode: 0o555 })
  writeFileSync(made.file, '', { mode: 0o444 })
  if (sources === undefined) process.once('exit', () => removeSources())
  sources = made
  return made
}

/** Removes the sources' folder when the process ends; a sandbox still running has its own mount. */
function removeSources(): void {
  if (sources === undefined) return
  rmSync(dirname(sources.file), { recursive: true, force: true })
}

/** By path: how many running sandboxes hold the stand-in, and the content it was made with. */
const holders = new Map<string, { count: number; content: string }>()

/**
 * Marks `paths`, stand-ins bwrap makes (empty), as held by one more running sandbox; pair with
 * `releaseStandIns`.
 */
export function holdStandIns(paths: readonly string[], content = ''): void {
  for (const path of paths) {
    const held = holders.get(path)
    holders.set(path, { count: (held?.count ?? 0) + 1, content: held?.content ?? content })
  }
}

/**
 * Those of `paths` that are stand-ins another running sandbox of this process holds: a new
 * sandbox locks them as existing paths, and must hold them too, or the first one's release
 * would remove them (and so detach them) while it runs.
 */
export function heldStandIns(paths: readonly string[]): string[] {
  return paths.filter((path) => holders.has(path))
}

/**
 * Writes each missing file with its content (never over an existing one) and holds the written
 * ones and those another sandbox of this process wrote and still holds; returns them, for the
 * sandbox to lock and `releaseStandIns` to remove. Never throws: one it cannot write is left out.
 */
export function writeStandIns(
  files: readonly { readonly path: string; readonly content: string }[],
): string[] {
  const held: string[] = []
  for (const { path, content } of files) {
    try {
      writeFileSync(path, content, { flag: 'wx', mode: 0o644 })
    } catch {
      // It exists (another sandbox's stand-in, or new), or cannot be made: held only if ours.
      if (!holders.has(path)) continue
    }
    holdStandIns([path], content)
    held.push(path)
  }
  return held
}

/**
 * Lets go of `paths` once their sandbox ended, removing each that no other sandbox holds and that
 * is still what bwrap made: an empty folder or an empty file. Deepest first, so a missing
 * `.vscode` made for `.vscode/tasks.json` goes too. Never throws: one that cannot be removed
 * (something was put in it meanwhile) stays.
 */
export function releaseStandIns(paths: readonly string[]): void {
  const free: { path: string; content: string }[] = []
  for (const path of paths) {
    const held = holders.get(path) ?? { count: 1, content: '' }
    if (held.count > 1) holders.set(path, { ...held, count: held.count - 1 })
    else {
      holders.delete(path)
      free.push({ path, content: held.content })
    }
  }
  for (const { path, content } of free.sort((a, b) => b.path.length - a.path.length)) {
    removeIfUnchanged(path, content)
  }
}

/** Removes a stand-in that is still an empty folder, or a file holding just `content`. */
function removeIfUnchanged(path: string, content: string): void {
  try {
    const info = lstatSync(path)
    if (info.isDirectory()) rmdirSync(path)
    else if (info.isFile() && info.size === Buffer.byteLength(content)) {
      if (readFileSync(path, 'utf8') === content) unlinkSync(path)
    }
  } catch {
    // Gone already, not empty, or still a mount point elsewhere: left as it is.
  }
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined
}
