import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, isAbsolute, join } from 'node:path'
import { z } from 'zod'
import type { Project } from '../../../../protocol/contract.js'
import { writeFileAtomic } from '../files.js'
import { HostError } from '../host.js'

/** The recent projects list in the data folder. */
export const PROJECTS_FILE = 'projects.json'
/** Older entries fall off the end of the list. */
export const MAX_RECENT_PROJECTS = 50

const RecentFile = z.object({
  projects: z.array(
    z.object({ path: z.string().min(1), openedAt: z.number().int().nonnegative() }),
  ),
})
type RecentEntry = z.infer<typeof RecentFile>['projects'][number]

/**
 * A project folder given over the bridge, as its real path: absolute (or `~/...`), existing, a
 * folder. Anything else is INVALID_PATH with what to fix; the caller is untrusted, so a relative
 * path is refused rather than resolved against the main process's working folder.
 */
export function resolveProjectDir(path: string): string {
  const expanded = path === '~' || path.startsWith('~/') ? join(homedir(), path.slice(1)) : path
  if (!isAbsolute(expanded)) {
    throw new HostError(
      'INVALID_PATH',
      `${path} is not an absolute path; give the folder's full path`,
    )
  }
  let real: string
  try {
    real = realpathSync(expanded)
  } catch {
    throw new HostError('INVALID_PATH', `${path} does not exist (or cannot be read)`)
  }
  if (!statSync(real).isDirectory()) {
    throw new HostError('INVALID_PATH', `${path} is a file, not a folder; choose a project folder`)
  }
  return real
}

/**
 * The recently opened project folders, kept in `<home>/projects.json`, newest first, at most
 * MAX_RECENT_PROJECTS. Written atomically; an unreadable or foreign file counts as an empty list
 * (it is a convenience, not data worth refusing to open a project over) and is replaced on the
 * next write.
 */
export class RecentProjects {
  private readonly path: string

  constructor(
    home: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.path = join(home, PROJECTS_FILE)
  }

  /** Moves (or adds) `dir` to the front of the list and returns it as a Project. */
  record(dir: string): Project {
    const openedAt = this.clock()
    const rest = this.read().filter((entry) => entry.path !== dir)
    const projects = [{ path: dir, openedAt }, ...rest].slice(0, MAX_RECENT_PROJECTS)
    writeFileAtomic(this.path, [`${JSON.stringify({ projects }, null, 2)}\n`])
    return toProject({ path: dir, openedAt })
  }

  /** Newest first; folders that no longer exist are left out (and kept in the file). */
  list(limit: number): Project[] {
    return this.read()
      .filter((entry) => isFolder(entry.path))
      .slice(0, limit)
      .map(toProject)
  }

  private read(): RecentEntry[] {
    if (!existsSync(this.path)) return []
    try {
      const parsed = RecentFile.safeParse(JSON.parse(readFileSync(this.path, 'utf8')))
      return parsed.success ? parsed.data.projects : []
    } catch {
      // Not JSON (a torn write by another tool, a hand edit): start a fresh list.
      return []
    }
  }
}

function toProject(entry: RecentEntry): Project {
  return { path: entry.path, name: basename(entry.path) || entry.path, openedAt: entry.openedAt }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
