import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { ToolError } from '../kernel/tool-error.js'

/**
 * Whether `path` is `dir` or lies under it. Both absolute and normalized (real paths, or resolved
 * ones); compared as text, so links are the caller's business.
 */
export function isWithin(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** A path that leaves the project folder; tools report it to the model with its code. */
export class PathError extends ToolError {
  constructor(message: string) {
    super('PATH_OUTSIDE_PROJECT', message)
    this.name = 'PathError'
  }
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realpathOfExistingPrefix(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    if (parent === path) return path
    return resolve(realpathOfExistingPrefix(parent), relative(parent, path))
  }
}

/**
 * Resolves a path the model gave (relative to the project, or absolute) and refuses it unless
 * it stays inside the project folder after following symlinks, so a link pointing out of the
 * project cannot be used to read or write elsewhere.
 */
export function resolveInsideProject(projectDir: string, path: string): string {
  const root = realpathSync(projectDir)
  const candidate = realpathOfExistingPrefix(isAbsolute(path) ? path : resolve(root, path))
  if (!isWithin(root, candidate)) {
    throw new PathError(
      `${path} is outside the project folder ${root}; only paths inside it can be used`,
    )
  }
  return candidate
}
