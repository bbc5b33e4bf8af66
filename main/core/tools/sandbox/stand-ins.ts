/**
 * Stand-ins for protected paths that do not exist: bwrap binds an empty read-only folder or file
 * at each, so the command cannot create it. To mount there bwrap creates an empty folder or file
 * at that place in the project itself (the project is a bind mount of the real folder), which
 * would stay behind once the command ends: `releaseStandIns` removes it again.
 *
 * Several sandboxes of this process may hold the same stand-in at once (subagents share a
 * project): it is removed only when the last one ends, since removing a mount point on the host
 * also detaches it inside a sandbox still running.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

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
  sources = made
  return made
}

const holders = new Map<string, number>()

/** Marks `paths` as held by one more running sandbox; pair with `releaseStandIns`. */
export function holdStandIns(paths: readonly string[]): void {
  for (const path of paths) holders.set(path, (holders.get(path) ?? 0) + 1)
}

/**
 * Lets go of `paths` once their sandbox ended, removing each that no other sandbox holds and that
 * is still what bwrap made: an empty folder or an empty file. Deepest first, so a missing
 * `.vscode` made for `.vscode/tasks.json` goes too. Never throws: one that cannot be removed
 * (something was put in it meanwhile) stays.
 */
export function releaseStandIns(paths: readonly string[]): void {
  const free: string[] = []
  for (const path of paths) {
    const count = (holders.get(path) ?? 1) - 1
    if (count > 0) holders.set(path, count)
    else {
      holders.delete(path)
      free.push(path)
    }
  }
  for (const path of free.sort((a, b) => b.length - a.length)) removeIfEmpty(path)
}

function removeIfEmpty(path: string): void {
  try {
    const info = lstatSync(path)
    if (info.isDirectory()) rmdirSync(path)
    else if (info.isFile() && info.size === 0) unlinkSync(path)
  } catch {
    // Gone already, not empty, or still a mount point elsewhere: left as it is.
  }
}

function exists(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false }) !== undefined
}
