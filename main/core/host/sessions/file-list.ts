/**
 * `project/files`: the project's files for the composer's `@` completion. The tools' walker does
 * the walking, so the list honours .gitignore, never enters .git and never follows a symlink:
 * nothing listed lies outside the project folder. node_modules is skipped even where no
 * .gitignore says so. The list is capped in count and in time (a home folder opened as a project
 * must not stall the bridge), and kept briefly, because the composer asks again as the user types.
 */
import { realpathSync } from 'node:fs'
import type { ResultOf } from '../../../../protocol/contract.js'
import { walkProject } from '../../tools/builtin/walk.js'
import { HostError } from '../host.js'

/** Files listed at most; past it the list says it is incomplete. */
export const MAX_LISTED_FILES = 5000
/** The walk stops after this long and returns what it found. */
export const LIST_TIME_LIMIT_MS = 2000
/** How long a listing is reused before the folder is walked again. */
export const LIST_CACHE_MS = 5000

const SKIPPED_FOLDERS = new Set(['node_modules'])

type Listing = ResultOf<'project/files'>

export class ProjectFileLister {
  private readonly cache = new Map<string, { at: number; listing: Promise<Listing> }>()

  constructor(private readonly now: () => number = Date.now) {}

  list(projectDir: string): Promise<Listing> {
    const cached = this.cache.get(projectDir)
    if (cached && this.now() - cached.at < LIST_CACHE_MS) return cached.listing
    const listing = listFiles(projectDir)
    this.cache.set(projectDir, { at: this.now(), listing })
    listing.catch(() => this.cache.delete(projectDir))
    return listing
  }
}

async function listFiles(projectDir: string): Promise<Listing> {
  let root: string
  try {
    root = realpathSync(projectDir)
  } catch {
    throw new HostError('INVALID_PATH', `the project folder ${projectDir} cannot be read`)
  }
  const paths: string[] = []
  const signal = AbortSignal.timeout(LIST_TIME_LIMIT_MS)
  let isComplete: boolean
  try {
    const walk = await walkProject(
      {
        root,
        signal,
        maxFiles: MAX_LISTED_FILES,
        skipFolder: (path) => SKIPPED_FOLDERS.has(path.slice(path.lastIndexOf('/') + 1)),
      },
      (file) => {
        paths.push(file.path)
        return true
      },
    )
    isComplete = !walk.isTruncated
  } catch (error) {
    if (!signal.aborted) throw error
    // Out of time: what was found so far is still a useful list.
    isComplete = false
  }
  return { paths, isComplete }
}
