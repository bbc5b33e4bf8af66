/**
 * Paths whose content runs later as a program or a setting without anyone reading it first: git
 * hooks and settings, direnv files, CI workflows, editor tasks, Bridle's own settings. A write to
 * one needs the user's approval of that very call (see `CallAssessment`), and a sandbox keeps the
 * main ones read-only.
 *
 * Matching is by name at any depth, since a nested repository (or a subfolder opened as a project
 * of its own) uses its own; case-insensitive, since macOS and Windows file systems are; and on the
 * real path as well as the given one, so a link inside the project cannot lead into `.git`
 * unnoticed. Windows spellings of the same name (`.git.`, `.git::$DATA`, the short name `GIT~1`,
 * invisible characters macOS ignores) are folded too: CVE-2014-9390 used them to write hooks.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

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

/**
 * Every protected pattern with its reason, first match wins. A pattern matches the end of a
 * project-relative path at any depth; `*` is any part of one name, `**` any number of folders,
 * and a trailing `/**` also covers the folder (or file) itself.
 */
export const PROTECTED_PATTERNS: readonly { readonly pattern: string; readonly reason: string }[] =
  [
    { pattern: '.git/**/hooks/**', reason: HOOK },
    { pattern: '.git/**/config', reason: GIT_SETTINGS },
    { pattern: '.git/**/config.worktree', reason: GIT_SETTINGS },
    { pattern: '.git/**', reason: GIT_DATA },
    { pattern: '.husky/**', reason: HOOK },
    { pattern: '.pre-commit-config.yaml', reason: PRE_COMMIT },
    { pattern: '.envrc', reason: DIRENV },
    { pattern: '.env', reason: SECRETS },
    { pattern: '.env.*', reason: SECRETS },
    { pattern: '.github/workflows/**', reason: CI },
    { pattern: '.gitlab-ci.yml', reason: CI },
    { pattern: '.circleci/**', reason: CI },
    { pattern: '.travis.yml', reason: CI },
    { pattern: 'azure-pipelines.yml', reason: CI },
    { pattern: '.buildkite/**', reason: CI },
    { pattern: '.vscode/tasks.json', reason: EDITOR_TASK },
    { pattern: '.vscode/launch.json', reason: EDITOR_TASK },
    { pattern: '.vscode/settings.json', reason: EDITOR_SETTINGS },
    { pattern: '.idea/runConfigurations/**', reason: IDE_RUN },
    { pattern: '.idea/workspace.xml', reason: IDE_RUN },
    { pattern: '.run/*.run.xml', reason: IDE_RUN },
    { pattern: '.devcontainer/**', reason: DEV_CONTAINER },
    { pattern: '.devcontainer.json', reason: DEV_CONTAINER },
    { pattern: '.bridle/**', reason: BRIDLE },
    { pattern: '.mcp.json', reason: BRIDLE },
  ]

/** What a sandbox keeps read-only, relative to the project (only those that exist are mounted). */
const MOUNTED_READ_ONLY = [
  '.git/hooks',
  '.git/config',
  '.git/info',
  '.envrc',
  '.husky',
  '.github/workflows',
  '.vscode',
]

/** A chain of links longer than this is not followed further (a loop, or a malicious chain). */
const MAX_LINK_HOPS = 8

const MATCHERS = PROTECTED_PATTERNS.map(({ pattern, reason }) => ({
  regex: toRegex(pattern.toLowerCase()),
  reason,
}))

/**
 * Why writing `absolutePath` needs care, in plain words, or undefined when it is an ordinary path
 * (or outside the project: containment is checked elsewhere). Accepts a relative path too, with
 * `./`, `..` and trailing slashes. Never throws: a path it cannot inspect is judged by its text.
 */
export function protectedPathReason(projectDir: string, absolutePath: string): string | undefined {
  const given = resolve(projectDir)
  const root = realOrSelf(given)
  const lexical = resolve(given, absolutePath)
  const candidates = [
    relativeInside(given, lexical),
    relativeInside(root, lexical),
    relativeInside(root, realLocation(lexical, MAX_LINK_HOPS)),
  ]
  for (const rel of candidates) {
    if (rel === undefined) continue
    const key = rel
      .split(/[\\/]+/)
      .map(foldName)
      .join('/')
    const match = MATCHERS.find(({ regex }) => regex.test(key))
    if (match) return match.reason
  }
  return undefined
}

/**
 * The existing absolute paths (under the project's real path) a sandbox should mount read-only:
 * git hooks, settings and info, direnv's file, husky hooks, CI workflows and editor settings.
 */
export function protectedPathsToMount(projectDir: string): string[] {
  const root = realOrSelf(resolve(projectDir))
  return MOUNTED_READ_ONLY.map((path) => join(root, path)).filter((path) => existsSync(path))
}

/** One name folded to what macOS and Windows file systems treat as the same name. */
function foldName(name: string): string {
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
