import { statSync } from 'node:fs'
import type { ResultOf } from '../../../preload/contract.js'
import { resolveInsideProject } from '../workspace/paths.js'

/**
 * `project/files-exist`: whether each path is a regular file inside `projectDir` now, for the
 * chat to hide what the agent delivered once it is gone. A path outside the folder (directly,
 * with `..`, or through a symlink) is never looked at and reads as not there.
 */
export function filesExist(
  projectDir: string,
  paths: readonly string[],
): ResultOf<'project/files-exist'> {
  return { exists: paths.map((path) => isFileInside(projectDir, path)) }
}

function isFileInside(projectDir: string, path: string): boolean {
  let resolved: string
  try {
    resolved = resolveInsideProject(projectDir, path)
  } catch {
    return false
  }
  try {
    return statSync(resolved).isFile()
  } catch {
    return false
  }
}
