import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import type { ResultOf } from '../../../preload/contract.js'
import { resolveInsideProject } from '../workspace/paths.js'

/**
 * `project/files-exist`: whether each path is a file or folder inside `projectDir` now (what
 * `present` accepts), for the chat to hide what the agent delivered once it is gone. A path outside
 * the folder (absolute, with `..`, or through a symlink) reads as not there; one that is outside
 * by its spelling alone is not even resolved on disk.
 */
export function filesExist(
  projectDir: string,
  paths: readonly string[],
): ResultOf<'project/files-exist'> {
  let root: string
  try {
    root = realpathSync(projectDir)
  } catch {
    // The project folder itself is gone (or unreadable): nothing in it exists.
    return { exists: paths.map(() => false) }
  }
  return { exists: paths.map((path) => existsInside(projectDir, root, path)) }
}

function existsInside(projectDir: string, root: string, path: string): boolean {
  const spelled = isAbsolute(path) ? resolve(path) : resolve(root, path)
  if (!isWithin(root, spelled) && !isWithin(resolve(projectDir), spelled)) return false
  let resolved: string
  try {
    // The workspace tools' guard: follows symlinks and refuses what lands outside the project.
    resolved = resolveInsideProject(projectDir, path)
  } catch {
    return false
  }
  try {
    statSync(resolved)
    return true
  } catch {
    // ENOENT, ENOTDIR, EACCES: not there as far as the chat is concerned.
    return false
  }
}

function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}
