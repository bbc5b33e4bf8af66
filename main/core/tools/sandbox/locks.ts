/**
 * What a sandboxed command may not change in its project: every protected path that runs on this
 * machine (`../protected-paths.ts`, plus the user's `protectedPaths`), found where it exists and
 * kept from being created where it does not, and the parts of each git folder that make git run
 * programs (`git-dirs.ts`).
 *
 * Existing paths are found by a bounded walk of the project (breadth first, `.gitignore` plays no
 * part, links are not followed); `.git` folders and files met on the way are git folders to lock.
 * Create-proof: at the project's top level, a missing protected path (or its first missing
 * folder: a missing `.vscode` is kept from being created as a whole) becomes a read-only
 * stand-in for the command's lifetime; inside a git folder, a missing `hooks`, `info` or
 * `config.worktree` does. Deeper down only what exists is locked.
 *
 * In a project that is or holds the home folder, its shell start-up files (`../home-files.ts`) are
 * locked the same way, existing or missing.
 *
 * A project without a `.git` gets no git locks: `git init` must work there. The command that
 * creates the repository can therefore also write its settings (README.md, limits).
 */
import { lstatSync, readdirSync, realpathSync } from 'node:fs'
import type { Dirent } from 'node:fs'
import { join } from 'node:path'
import { PROTECTED_PATTERNS, foldName, lockTarget, protectedPatterns } from '../protected-paths.js'
import type { LockTarget } from '../protected-paths.js'
import { homePathsUnder, SHELL_STARTUP } from '../home-files.js'
import { gitFileTarget, lockGitDir } from './git-dirs.js'
import type { GitLocks } from './git-dirs.js'
import { isWithin } from '../../workspace/paths.js'

/** What `sandboxCommand` mounts to lock a project (absolute paths inside it). */
export interface LockPlan {
  /** Existing paths to bind read-only. */
  readonly readOnly: string[]
  /** Missing paths to keep from being created, and whether each is a folder. */
  readonly absent: { readonly path: string; readonly isFolder: boolean }[]
  /**
   * Missing paths kept from being created by a file Bridle writes first, with `content`, since
   * programs on the host read them while the command runs (`writeStandIns`), then locked.
   */
  readonly written: { readonly path: string; readonly content: string }[]
  /** Folders bound onto themselves: still writable, but they cannot be removed or renamed. */
  readonly pinned: string[]
  /** Git's HEAD files with their content now, put back if the command leaves one broken. */
  readonly heads: ReadonlyMap<string, string>
}

/** The plan of a call the user approved although it touches protected paths: nothing locked. */
export const NO_LOCKS: LockPlan = {
  readOnly: [],
  absent: [],
  written: [],
  pinned: [],
  heads: new Map(),
}

/**
 * How many entries the walk looks at before it stops: 20,000 take 40-90 ms here (a 2-core machine
 * under load), a small project about 1 ms. What lies beyond stays unlocked; the top level and the
 * git folders found are always locked.
 */
export const DEFAULT_SCAN_ENTRIES = 20_000

/**
 * The lock plan of `projectDir` for the protected patterns plus `extra`, as paths under its real
 * path. Reads the file system and changes nothing; never throws (an unreadable folder is skipped).
 */
export function lockPlan(
  projectDir: string,
  extra: readonly string[] = [],
  maxEntries = DEFAULT_SCAN_ENTRIES,
): LockPlan {
  let project: string
  try {
    project = realpathSync(projectDir)
  } catch {
    return NO_LOCKS // No project: `sandboxCommand` refuses it.
  }
  const targets = generalTargets(extra)
  const byName = new Set(targets.map((t) => t.lastName))
  const anyName = targets.filter((t) => t.lastName === undefined)
  const locks: GitLocks = {
    readOnly: new Set(),
    absent: new Map(),
    written: new Map(),
    pinned: new Set(),
    heads: new Map(),
  }
  const gitDirs = new Set<string>()
  walk(project, maxEntries, (path, entry, folded) => {
    if (entry.name === '.git') {
      if (entry.isDirectory()) {
        gitDirs.add(path)
        return
      }
      // A `.git` file (worktree, submodule) names the git folder: rewritten, it could name one
      // the command made. What it points to is locked when it lies in the project.
      locks.readOnly.add(path)
      const target = gitFileTarget(path)
      if (target !== undefined && isWithin(project, target)) gitDirs.add(target)
      return
    }
    const name = folded.slice(folded.lastIndexOf('/') + 1)
    const candidates = byName.has(name) ? targets : anyName
    if (candidates.some((target) => target.matches(folded))) locks.readOnly.add(path)
  })
  for (const gitDir of gitDirs) lockGitDir(gitDir, locks)
  for (const target of targets) lockTopLevel(project, target, locks)
  // A project that is (or holds) the home folder: its shell start-up files run here too.
  for (const path of homePathsUnder(project, SHELL_STARTUP)) {
    lockTopLevel(project, lockTarget(path), locks)
  }
  return settle(locks)
}

/** The lock targets of the patterns that run here, except git's (`git-dirs.ts` has those). */
function generalTargets(extra: readonly string[]): LockTarget[] {
  const builtIn = new Set(PROTECTED_PATTERNS)
  return protectedPatterns(extra)
    .filter((p) => p.runsHere && !(builtIn.has(p) && p.pattern.startsWith('.git/')))
    .map((p) => lockTarget(p.pattern))
}

/**
 * The top-level instance of a target: locked when it exists (the walk may have stopped before
 * it), else its first missing folder (or itself) kept from being created.
 */
function lockTopLevel(projectDir: string, target: LockTarget, locks: GitLocks): void {
  if (target.root === '') return
  const names = target.root.split('/')
  for (let i = 1; i <= names.length; i++) {
    const path = join(projectDir, ...names.slice(0, i))
    const kind = kindOf(path)
    const isLast = i === names.length
    if (kind === undefined) {
      locks.absent.set(path, !isLast || target.isFolder)
      return
    }
    if (isLast) locks.readOnly.add(path)
    else if (kind !== 'folder') return // A file where a folder would be: nothing can go there.
  }
}

/**
 * The plan without what another entry covers: nothing inside a read-only folder (it is locked
 * already, and no stand-in can be created in it), and no pin that is read-only itself.
 */
function settle(locks: GitLocks): LockPlan {
  const folders = [...locks.readOnly].filter((path) => kindOf(path) === 'folder')
  const covered = (path: string) => folders.some((f) => f !== path && isWithin(f, path))
  const readOnly = [...locks.readOnly].filter((path) => !covered(path))
  return {
    readOnly,
    absent: [...locks.absent]
      .filter(([path]) => !covered(path) && !locks.readOnly.has(path))
      .map(([path, isFolder]) => ({ path, isFolder })),
    written: [...locks.written]
      .filter(([path]) => !covered(path) && !locks.readOnly.has(path))
      .map(([path, content]) => ({ path, content })),
    pinned: [...locks.pinned].filter((path) => !covered(path) && !locks.readOnly.has(path)),
    heads: locks.heads,
  }
}

/** Folders walked after all others: they hold thousands of entries and seldom a protected path. */
const WALKED_LAST = new Set(['node_modules'])

/**
 * Breadth first, up to `maxEntries` entries, not following links and not entering `.git`; each
 * entry is given with its project-relative path folded (`foldPath`). Folders named in
 * `WALKED_LAST` wait until the rest is walked, so they cannot use up the budget first.
 */
function walk(
  root: string,
  maxEntries: number,
  visit: (path: string, entry: Dirent, folded: string) => void,
) {
  type Folder = { readonly path: string; readonly folded: string }
  const queue: Folder[] = [{ path: root, folded: '' }]
  const later: Folder[] = []
  let seen = 0
  for (let i = 0; i < queue.length || later.length > 0; i++) {
    if (i === queue.length) queue.push(...later.splice(0))
    const folder = queue[i] as Folder
    let entries: Dirent[]
    try {
      entries = readdirSync(folder.path, { withFileTypes: true })
    } catch {
      continue // Unreadable or gone: nothing in it to lock.
    }
    for (const entry of entries) {
      if (++seen > maxEntries) return
      const path = join(folder.path, entry.name)
      const name = foldName(entry.name)
      const folded = folder.folded === '' ? name : `${folder.folded}/${name}`
      visit(path, entry, folded)
      if (!entry.isDirectory() || entry.name === '.git') continue
      const next = WALKED_LAST.has(entry.name) ? later : queue
      next.push({ path, folded })
    }
  }
}

function kindOf(path: string): 'folder' | 'file' | undefined {
  try {
    return lstatSync(path).isDirectory() ? 'folder' : 'file'
  } catch {
    return undefined // Missing.
  }
}
