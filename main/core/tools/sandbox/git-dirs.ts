/**
 * What of a git folder makes git run programs, and so is locked in the sandbox, and what
 * `git add` and `git commit` must still write. A git folder is a project's `.git`, a nested
 * repository's, a submodule's under `.git/modules/`, or the folder a `.git` file points to.
 *
 * Locked (read-only; create-proof where marked: a missing one is kept from being created):
 * - `hooks/` (create-proof): git runs them on commit, checkout, merge and push;
 * - `config`, `config.worktree` (create-proof): `core.hooksPath`, `core.fsmonitor`,
 *   `core.sshCommand`, aliases, filters and diff drivers all run programs;
 * - `info/` (create-proof): `info/attributes` picks the filters and drivers settings define;
 * - `HEAD` is guarded, not locked: a broken HEAD makes git stop taking the folder for a
 *   repository and look for one in the project folder itself (a bare repository whose `config`
 *   the command could write), but `git checkout`, `switch` and `rebase` must write it. Its
 *   content is kept before the command (`GitLocks.heads`), and a HEAD the command left broken
 *   (neither `ref: refs/…` nor an object id) is put back when it ends (`repairHeads`);
 * - `commondir` (create-proof: Bridle writes one reading `.`, the folder itself, for the
 *   command's lifetime): it names the folder git reads `config` and `hooks` from;
 * - `worktrees/` (when present): each linked worktree's `commondir` and `config.worktree`.
 *
 * Pinned (bound onto themselves: writable, but they cannot be removed or renamed, which would
 * also make git stop taking the folder for a repository): `objects/`, `refs/`.
 *
 * Left writable: everything else: objects, refs, `index`, `logs/`, `COMMIT_EDITMSG`,
 * `ORIG_HEAD`, `packed-refs`, the lock files git renames into place.
 */
import {
  lstatSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/**
 * One entry of a git folder that is locked; `createProof`: kept from being created too, by an
 * empty stand-in, or by a file of `content` Bridle writes first when git on the host must be able
 * to read it while the command runs.
 */
interface GitMember {
  readonly name: string
  readonly isFolder: boolean
  readonly createProof: boolean
  readonly content?: string
}

const LOCKED: readonly GitMember[] = [
  { name: 'hooks', isFolder: true, createProof: true },
  { name: 'config', isFolder: false, createProof: true },
  { name: 'config.worktree', isFolder: false, createProof: true },
  { name: 'info', isFolder: true, createProof: true },
  // An empty stand-in would break git on the host ("failed to read commondir"); `.` names the
  // git folder itself, which is what a missing one means.
  { name: 'commondir', isFolder: false, createProof: true, content: '.\n' },
  { name: 'worktrees', isFolder: true, createProof: false },
]

const PINNED = ['objects', 'refs']

/** How deep submodules' git folders are looked for under `modules/` (names may hold `/`). */
const MAX_MODULE_DEPTH = 6

/** What the sandbox does with the paths of git folders, collected by `lockGitDir`. */
export interface GitLocks {
  readonly readOnly: Set<string>
  /** Missing paths for an empty stand-in, and whether each is a folder. */
  readonly absent: Map<string, boolean>
  /** Missing paths Bridle writes with this content before the command, then locks. */
  readonly written: Map<string, string>
  readonly pinned: Set<string>
  /** Each git folder's HEAD with its content before the command, to put back if left broken. */
  readonly heads: Map<string, string>
}

/**
 * Adds the locks of the git folder `gitDir` and of its submodules' (`modules/**`) to `locks`.
 * Reads the file system, changes nothing, never throws (an unreadable folder adds nothing).
 */
export function lockGitDir(gitDir: string, locks: GitLocks, depth = 0): void {
  for (const member of LOCKED) {
    const path = join(gitDir, member.name)
    const kind = kindOf(path)
    if (kind !== undefined) locks.readOnly.add(path)
    else if (member.createProof && member.content !== undefined) {
      locks.written.set(path, member.content)
    } else if (member.createProof) locks.absent.set(path, member.isFolder)
  }
  const head = join(gitDir, 'HEAD')
  const content = readHead(head)
  if (content !== undefined) locks.heads.set(head, content)
  for (const name of PINNED) {
    const path = join(gitDir, name)
    if (kindOf(path) === 'folder') locks.pinned.add(path)
  }
  lockModules(join(gitDir, 'modules'), locks, depth)
}

/** A HEAD git accepts: a symbolic ref under `refs/`, or an object id (SHA-1 or SHA-256). */
const VALID_HEAD = /^(?:ref: refs\/[^\s]+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/

/** The content of a HEAD file git would accept, or undefined (missing, unreadable, broken). */
function readHead(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8').slice(0, 4096)
    return VALID_HEAD.test(text) && !text.includes('..') ? text : undefined
  } catch {
    return undefined
  }
}

/**
 * Puts back each HEAD (`GitLocks.heads`) a command left broken or removed, written whole and
 * renamed into place; returns the project-shown paths it put back. A HEAD git still accepts is
 * left as the command made it (a new branch checked out). Never throws.
 */
export function repairHeads(heads: ReadonlyMap<string, string>): string[] {
  const repaired: string[] = []
  for (const [path, content] of heads) {
    if (readHead(path) !== undefined) continue
    try {
      const temp = `${path}.bridle-${process.pid}`
      writeFileSync(temp, content, { mode: 0o644 })
      renameSync(temp, path)
      repaired.push(path)
    } catch {
      // The git folder is gone or unwritable: nothing to put back into.
    }
  }
  return repaired
}

/** The git folder a `.git` file points to (`gitdir: <path>`), resolved; undefined if none. */
export function gitFileTarget(gitFile: string): string | undefined {
  try {
    const text = readFileSync(gitFile, 'utf8').slice(0, 4096)
    const target = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
    return target === undefined ? undefined : realpathSync(resolve(dirname(gitFile), target))
  } catch {
    return undefined // Unreadable, or pointing nowhere: nothing behind it to lock.
  }
}

function lockModules(folder: string, locks: GitLocks, depth: number): void {
  if (depth >= MAX_MODULE_DEPTH) return
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return // No submodules (or unreadable): nothing to lock.
  }
  for (const name of names) {
    const path = join(folder, name)
    if (kindOf(path) !== 'folder') continue
    // A submodule's git folder holds HEAD; a folder without one is part of a name with `/`.
    if (kindOf(join(path, 'HEAD')) === 'file') lockGitDir(path, locks, depth + 1)
    else lockModules(path, locks, depth + 1)
  }
}

function kindOf(path: string): 'folder' | 'file' | undefined {
  try {
    const info = lstatSync(path)
    return info.isDirectory() ? 'folder' : 'file'
  } catch {
    return undefined // Missing.
  }
}
