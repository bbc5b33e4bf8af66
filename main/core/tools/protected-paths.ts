/**
 * Paths whose content runs later as a program or a setting without anyone reading it first: git
 * hooks and settings, direnv files, editor tasks, dev containers, Bridle's own settings, CI
 * workflows, and `.env` secrets. This is the one list of them; each entry says whether what it
 * names runs on this machine or elsewhere (or is only data):
 *
 * - every entry makes a file tool's write a `confirm`: it needs the user's approval of that very
 *   call, and full-auto refuses it (see `CallAssessment`);
 * - an entry that runs on this machine is also locked for programs: the sandbox mounts it
 *   read-only and keeps it from being created when it is missing (`sandbox/locks.ts`), unless the
 *   user approved that very command. Those that run elsewhere (CI) or hold data (`.env`) stay
 *   writable by programs, which build and test with them.
 *
 * The user adds paths in config.json (`protectedPaths`), in the same syntax; they count as
 * running on this machine.
 *
 * Matching is by name at any depth, since a nested repository (or a subfolder opened as a project
 * of its own) uses its own; case-insensitive, since macOS and Windows file systems are; and on the
 * real path as well as the given one, so a link inside the project cannot lead into `.git`
 * unnoticed. Windows spellings of the same name (`.git.`, `.git::$DATA`, the short name `GIT~1`,
 * invisible characters macOS ignores) are folded too: CVE-2014-9390 used them to write hooks.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { homeFileOf } from './home-files.js'

const HOOK = "a git hook: it runs on the user's next commit"
const GIT_SETTINGS = "git's settings: they can make git run programs"
const GIT_DATA = "git's own data: changing it can break the repository or make git run programs"
const DIRENV = 'an environment file direnv loads and runs'
const SECRETS = 'environment secrets'
const CI = 'a CI workflow that runs on the next push'
const EDITOR_TASK = 'an editor task the editor may run'
const EDITOR_SETTINGS = 'editor settings: they can make the editor run programs'
const IDE_RUN = 'an IDE run configuration the IDE may run'
const DEV_CONTAINER = 'a dev container definition: its commands run when the container starts'
const BRIDLE = "Bridle's own settings"
const PRE_COMMIT = 'a pre-commit hook configuration'
const USER = 'a path you protected in config.json (protectedPaths)'

/** One protected pattern, why it matters, and whether what it names runs on this machine. */
export interface ProtectedPattern {
  readonly pattern: string
  readonly reason: string
  /**
   * True when the file runs on this machine (git, direnv, the editor, Bridle run it): programs
   * in the sandbox cannot change or create it. False when it runs elsewhere (CI) or is data
   * (`.env`, git's objects and refs, which `git commit` writes): programs may change it.
   */
  readonly runsHere: boolean
}

/**
 * Every protected pattern with its reason, first match wins. A pattern matches the end of a
 * project-relative path at any depth; `*` is any part of one name, `**` any number of folders,
 * and a trailing `/**` also covers the folder (or file) itself. Inside `.git` the sandbox locks
 * the parts of each git folder that make git run programs (`sandbox/git-dirs.ts` says which and
 * why) and leaves what `git add` and `git commit` write.
 */
export const PROTECTED_PATTERNS: readonly ProtectedPattern[] = [
  { pattern: '.git/**/hooks/**', reason: HOOK, runsHere: true },
  { pattern: '.git/**/config', reason: GIT_SETTINGS, runsHere: true },
  { pattern: '.git/**/config.worktree', reason: GIT_SETTINGS, runsHere: true },
  { pattern: '.git/**', reason: GIT_DATA, runsHere: false },
  { pattern: '.husky/**', reason: HOOK, runsHere: true },
  { pattern: '.pre-commit-config.yaml', reason: PRE_COMMIT, runsHere: true },
  { pattern: '.envrc', reason: DIRENV, runsHere: true },
  { pattern: '.env', reason: SECRETS, runsHere: false },
  { pattern: '.env.*', reason: SECRETS, runsHere: false },
  { pattern: '.github/workflows/**', reason: CI, runsHere: false },
  { pattern: '.gitlab-ci.yml', reason: CI, runsHere: false },
  { pattern: '.circleci/**', reason: CI, runsHere: false },
  { pattern: '.travis.yml', reason: CI, runsHere: false },
  { pattern: 'azure-pipelines.yml', reason: CI, runsHere: false },
  { pattern: '.buildkite/**', reason: CI, runsHere: false },
  { pattern: '.vscode/tasks.json', reason: EDITOR_TASK, runsHere: true },
  { pattern: '.vscode/launch.json', reason: EDITOR_TASK, runsHere: true },
  { pattern: '.vscode/settings.json', reason: EDITOR_SETTINGS, runsHere: true },
  { pattern: '.idea/runConfigurations/**', reason: IDE_RUN, runsHere: true },
  { pattern: '.idea/workspace.xml', reason: IDE_RUN, runsHere: true },
  { pattern: '.run/*.run.xml', reason: IDE_RUN, runsHere: true },
  { pattern: '.devcontainer/**', reason: DEV_CONTAINER, runsHere: true },
  { pattern: '.devcontainer.json', reason: DEV_CONTAINER, runsHere: true },
  { pattern: '.bridle/**', reason: BRIDLE, runsHere: true },
  { pattern: '.mcp.json', reason: BRIDLE, runsHere: true },
]

/**
 * The built-in list plus the user's own patterns (config.json `protectedPaths`, same syntax),
 * which run on this machine as far as Bridle knows.
 */
export function protectedPatterns(extra: readonly string[] = []): ProtectedPattern[] {
  return [
    ...PROTECTED_PATTERNS,
    ...extra.map((pattern) => ({ pattern, reason: USER, runsHere: true })),
  ]
}

/** A chain of links longer than this is not followed further (a loop, or a malicious chain). */
const MAX_LINK_HOPS = 8

interface Matcher {
  readonly regex: RegExp
  readonly reason: string
}

const BUILT_IN = PROTECTED_PATTERNS.map(toMatcher)

/**
 * Why writing `absolutePath` needs care, in plain words, or undefined when it is an ordinary path
 * (or outside the project: containment is checked elsewhere). Besides the patterns, a path at a
 * credential store or a shell start-up file of the real home folder (`home-files.ts`) is
 * protected, which only a project that is or holds the home folder can reach. Accepts a relative path too, with
 * `./`, `..` and trailing slashes. `extra` are the user's own patterns (config.json
 * `protectedPaths`). Never throws: a path it cannot inspect is judged by its text.
 */
export function protectedPathReason(
  projectDir: string,
  absolutePath: string,
  extra: readonly string[] = [],
): string | undefined {
  const given = resolve(projectDir)
  const root = realOrSelf(given)
  const lexical = resolve(given, absolutePath)
  const matchers = extra.length === 0 ? BUILT_IN : [...BUILT_IN, ...userMatchers(extra)]
  const candidates = [
    relativeInside(given, lexical),
    relativeInside(root, lexical),
    relativeInside(root, realLocation(lexical, MAX_LINK_HOPS)),
  ]
  for (const rel of candidates) {
    if (rel === undefined) continue
    const key = foldPath(rel)
    const match = matchers.find(({ regex }) => regex.test(key))
    if (match) return match.reason
  }
  // A project that is (or holds) the home folder reaches its credentials and start-up files.
  if (candidates.every((rel) => rel === undefined)) return undefined
  return homeFileOf(lexical, realLocation(lexical, MAX_LINK_HOPS))?.reason
}

/**
 * What the sandbox locks for one pattern that runs on this machine: `root`, the pattern up to
 * its first name holding a wildcard (`.run/*.run.xml` locks `.run`, `tools/**` locks `tools`),
 * empty when the first name has one (`*.sh`: only the matches found are locked); `isFolder`
 * when the pattern names what is inside `root` rather than `root` itself. `lastName` is the
 * folded last name of `root` (undefined when `root` is empty), so a walk can skip the test for
 * most entries; `matches` tells whether a project-relative path, folded with `foldPath`, is such
 * a root at any depth.
 */
export interface LockTarget {
  readonly root: string
  readonly isFolder: boolean
  readonly lastName: string | undefined
  readonly matches: (foldedRelativePath: string) => boolean
}

export function lockTarget(pattern: string): LockTarget {
  const names = pattern.split('/')
  const wild = names.findIndex((name) => name.includes('*'))
  const fixed = wild === -1 ? names : names.slice(0, wild)
  const root = fixed.join('/')
  const regex = toRegex((root === '' ? pattern : root).toLowerCase())
  return {
    root,
    isFolder: wild !== -1 && root !== '',
    lastName: root === '' ? undefined : foldName(fixed[fixed.length - 1] ?? ''),
    matches: (folded) => regex.test(folded),
  }
}

/** The user's patterns as matchers, kept for the last few lists seen (config rarely changes). */
const userMatcherCache = new Map<string, Matcher[]>()
function userMatchers(extra: readonly string[]): Matcher[] {
  const key = extra.join('\n')
  let found = userMatcherCache.get(key)
  if (found === undefined) {
    found = protectedPatterns(extra).slice(PROTECTED_PATTERNS.length).map(toMatcher)
    if (userMatcherCache.size >= 8) userMatcherCache.clear()
    userMatcherCache.set(key, found)
  }
  return found
}

function toMatcher({ pattern, reason }: ProtectedPattern): Matcher {
  return { regex: toRegex(pattern.toLowerCase()), reason }
}

/** A relative path with each name folded (`foldName`) and `/` between them. */
export function foldPath(rel: string): string {
  return rel
    .split(/[\\/]+/)
    .map(foldName)
    .join('/')
}

/** One name folded to what macOS and Windows file systems treat as the same name. */
export function foldName(name: string): string {
  let folded = name
    .toLowerCase()
    // Zero-width and direction marks: HFS+ ignores them when comparing names.
    .replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g, '')
    // NTFS alternate data streams: `.git::$INDEX_ALLOCATION` is the `.git` folder.
    .replace(/:.*$/, '')
  // Windows drops trailing dots and spaces (`.git.` is `.git`), but `.` and `..` stay.
  if (!/^\.+$/.test(folded)) folded = folded.replace(/[. ]+$/, '')
  // The 8.3 short name Windows gives `.git`.
  return /^git~\d+$/.test(folded) ? '.git' : folded
}

/** A pattern as a regex over a folded, `/`-separated relative path, matching at any depth. */
function toRegex(pattern: string): RegExp {
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')
  const parts = pattern.split('/')
  let source = ''
  for (const [i, part] of parts.entries()) {
    // `a/**/b` is `a/b` or `a/x/y/b`; a trailing `/**` also matches the folder itself.
    source += part === '**' ? '(/.*)?' : `${i === 0 ? '' : '/'}${escape(part)}`
  }
  return new RegExp(`(^|/)${source}$`)
}

/** `path` relative to `base` when it lies strictly inside it. */
function relativeInside(base: string, path: string): string | undefined {
  const rel = relative(base, path)
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined
  return rel
}

/**
 * Where `path` really is: its real path when it exists, else the real location of its parent
 * with its name; a dangling link is followed to where a write through it would land.
 */
function realLocation(path: string, hops: number): string {
  try {
    return realpathSync(path)
  } catch {
    // Missing, dangling or unreadable: work it out from the parent below.
  }
  try {
    if (hops > 0 && lstatSync(path).isSymbolicLink()) {
      return realLocation(resolve(dirname(path), readlinkSync(path)), hops - 1)
    }
  } catch {
    // Missing or unreadable: judged by its parent and its name.
  }
  const parent = dirname(path)
  return parent === path ? path : join(realLocation(parent, hops), basename(path))
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    // A project folder that does not exist (yet): its paths are judged by their text.
    return path
  }
}
