import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Files a tree stat looks at before it stops (and says so with `isTruncated`). */
export const DEFAULT_MAX_TREE_FILES = 20_000
/** Folders never walked, whatever .gitignore says. */
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules'])

export interface FileStat {
  size: number
  mtimeMs: number
  ctimeMs: number
  ino: number
}

export interface TreeStat {
  /** Regular files by path relative to the root, with forward slashes. Symlinks are not followed. */
  files: Map<string, FileStat>
  /** True when the walk stopped at `maxFiles`: files past that point are not in `files`. */
  isTruncated: boolean
}

export type ChangeKind = 'created' | 'deleted' | 'changed'

/** Whether two stats of one path say its content may differ (ctime catches mtime-preserving writers). */
export function statDiffers(a: FileStat, b: FileStat): boolean {
  return a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ctimeMs !== b.ctimeMs || a.ino !== b.ino
}

/**
 * Stats every regular file under `root`, skipping `.git`, `node_modules` and what the root
 * `.gitignore` ignores (nested .gitignore files and `.git/info/exclude` are not read). An ignored
 * folder is not entered, as in git, so a negation cannot re-include a file inside it.
 */
export function statTree(root: string, maxFiles = DEFAULT_MAX_TREE_FILES): TreeStat {
  const isIgnored = readGitignore(root)
  const files = new Map<string, FileStat>()
  const pending: string[] = ['']
  while (pending.length > 0) {
    const folder = pending.pop() ?? ''
    let entries
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true })
    } catch {
      // A folder removed or made unreadable while we walk: its files are simply not seen.
      continue
    }
    // A fixed order (files by name, then subfolders by name) so that two truncated stats of an
    // unchanged tree cover the same files.
    entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
    const subfolders: string[] = []
    for (const entry of entries) {
      const rel = folder === '' ? entry.name : `${folder}/${entry.name}`
      if (entry.isDirectory()) {
        if (!ALWAYS_SKIPPED.has(entry.name) && !isIgnored(rel, true)) subfolders.push(rel)
      } else if (entry.isFile() && !isIgnored(rel, false)) {
        if (files.size >= maxFiles) return { files, isTruncated: true }
        try {
          const s = statSync(join(root, rel))
          files.set(rel, { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino })
        } catch {
          // Deleted between readdir and stat: not there, so not listed.
        }
      }
    }
    pending.push(...subfolders.reverse())
  }
  return { files, isTruncated: false }
}

/** Slack for file times, which the kernel takes from a coarser clock than `Date.now()`. */
const CLOCK_SLACK_MS = 50

/**
 * The paths whose existence or stat differs between two stats of the tree at `root`, the first
 * taken at `startedAtMs`. When a stat is truncated, a path missing from it may only lie past the
 * cap: a path absent from a truncated `after` counts as deleted only if it is really gone, and a
 * path absent from a truncated `before` counts as changed (not created: we cannot know that it
 * was absent) only if its ctime is after `startedAtMs`.
 */
export function compareTrees(
  root: string,
  before: TreeStat,
  after: TreeStat,
  startedAtMs: number,
): Map<string, ChangeKind> {
  const changes = new Map<string, ChangeKind>()
  for (const [path, old] of before.files) {
    const now = after.files.get(path)
    if (now === undefined) {
      if (!after.isTruncated || !existsSync(join(root, path))) changes.set(path, 'deleted')
    } else if (statDiffers(old, now)) {
      changes.set(path, 'changed')
    }
  }
  for (const [path, now] of after.files) {
    if (before.files.has(path)) continue
    if (!before.isTruncated) changes.set(path, 'created')
    else if (now.ctimeMs >= startedAtMs - CLOCK_SLACK_MS) changes.set(path, 'changed')
  }
  return changes
}

type Rule = { regex: RegExp; isNegated: boolean; isDirOnly: boolean }

/** A matcher for the root .gitignore (last matching rule wins); matches nothing without one. */
export function readGitignore(root: string): (path: string, isDir: boolean) => boolean {
  let text: string
  try {
    text = readFileSync(join(root, '.gitignore'), 'utf8')
  } catch {
    return () => false
  }
  const rules = text.split(/\r?\n/).flatMap((line) => {
    const rule = parseRule(line)
    return rule ? [rule] : []
  })
  return (path, isDir) => {
    let ignored = false
    for (const rule of rules) {
      if ((isDir || !rule.isDirOnly) && rule.regex.test(path)) ignored = !rule.isNegated
    }
    return ignored
  }
}

function parseRule(line: string): Rule | undefined {
  let pattern = line.replace(/(?<!\\)\s+$/, '')
  if (pattern === '' || pattern.startsWith('#')) return undefined
  const isNegated = pattern.startsWith('!')
  if (isNegated) pattern = pattern.slice(1)
  if (pattern.startsWith('\\')) pattern = pattern.slice(1)
  const isDirOnly = pattern.endsWith('/')
  if (isDirOnly) pattern = pattern.slice(0, -1)
  // A slash at the start or in the middle anchors the pattern at the root.
  const isAnchored = pattern.includes('/')
  if (pattern.startsWith('/')) pattern = pattern.slice(1)
  if (pattern === '') return undefined
  const body = globToRegex(pattern)
  const regex = new RegExp(isAnchored ? `^${body}$` : `^(?:.*/)?${body}$`)
  return { regex, isNegated, isDirOnly }
}

function globToRegex(glob: string): string {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i)
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?'
      i += 2
    } else if (glob.startsWith('/**', i) && i + 3 === glob.length) {
      out += '/.*'
      i += 2
    } else if (c === '*') {
      out += '[^/]*'
    } else if (c === '?') {
      out += '[^/]'
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2)
      if (end < 0) {
        out += '\\['
      } else {
        const set = glob.slice(i + 1, end).replace(/\\/g, '\\\\')
        out += `[${set.startsWith('!') ? `^${set.slice(1)}` : set}]`
        i = end
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob.charAt(++i))
    } else {
      out += escapeRegex(c)
    }
  }
  return out
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c
}
