import { statSync } from 'node:fs'
import type { ResultOf } from '../../../../protocol/contract.js'
import { resolveInsideProject } from '../../workspace/paths.js'

/**
 * `project/files-exist`: whether each path is a file or folder inside `projectDir` now (what
 * `present` accepts), for the chat to hide what the agent delivered once it is gone. The
 * workspace tools' guard decides what is inside (following symlinks), so a path outside the
 * folder, or a project folder that is gone, reads as not there and nothing outside is opened.
 */
export function filesExist(
  projectDir: string,
  paths: readonly string[],
): ResultOf<'project/files-exist'> {
  return { exists: paths.map((path) => existsInside(projectDir, path)) }
}

function existsInside(projectDir: string, path: string): boolean {
  try {
    statSync(resolveInsideProject(projectDir, path))
    return true
  } catch {
    // Outside the project (PathError), or ENOENT, ENOTDIR, EACCES: not there for the chat.
    return false
  }
}
