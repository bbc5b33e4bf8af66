/**
 * The project walker behind `glob` and the pure-JS `grep`: a depth-first walk that honours the
 * project's .gitignore files (every level, plus `.git/info/exclude`), never enters `.git` nor,
 * in a project that is or holds the home folder, its credential stores (`home-files.ts`), and
 * never follows a symlink, so nothing it yields can lie outside the project folder. Each folder
 * is opened from its verified parent without following a link (`workspace/confined.ts`) and
 * listed and read through that descriptor, so a folder swapped for a link while the walk runs
 * leads nowhere. It also owns the glob syntax both tools share, so a pattern means the same thing
 * to each of them.
 */
import { lstat, readdir, stat } from 'node:fs/promises'
import type { Dirent, Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'
import {
  openChildFolderSync,
  openFileInside,
  openFolderInsideSync,
} from '../../workspace/confined.js'
import type { Folder } from '../../workspace/confined.js'
import { homePathsUnder } from '../home-files.js'
import { ToolError } from '../types.js'

/** Files a walk yields before it stops and says so with `isTruncated`. */
export const DEFAULT_MAX_WALK_FILES = 100_000

/** One regular file found by a walk. */
export interface WalkFile {
  /** Relative to the project folder, with forward slashes. */
  readonly path: string
  readonly absolutePath: string
  /** Its verified folder and its name there: read it with `openChildFile(folder, name)`. */
  readonly folder: Folder
  readonly name: string
}

export interface WalkOptions {
  /** The project folder, resolved with realpath. */
  readonly root: string
  /**
   * The project-relative folder to walk ('' for the whole project). It is walked even when a
   * .gitignore ignores it (the caller asked for it by name); what lies below follows the rules.
   */
  readonly start?: string
  /** Checked before every folder and file; on abort the walk rejects with the signal's reason. */
  readonly signal: AbortSignal
  readonly maxFiles?: number
  /** Folders (project-relative) not to enter even when no .gitignore ignores them. */
  readonly skipFolder?: (path: string) => boolean
}

/**
 * Receives each file in walk order (siblings by name in byte order, a folder's contents right
 * where its name sorts: the order of `rg --sort path`). Returns false to end the walk early.
 */
export type WalkVisitor = (file: WalkFile) => boolean | Promise<boolean>

export interface WalkResult {
  /** True when the walk stopped at `maxFiles`; files past that point were not visited. */
  readonly isTruncated: boolean
}

/** The project-relative form (forward slashes, '' for the root) of a path inside `root`. */
export function projectPath(root: string, absolutePath: string): string {
  const path = relative(root, absolutePath)
  return sep === '/' ? path : path.split(sep).join('/')
}

/** Stats a resolved target; a missing one is a PATH_NOT_FOUND the model can correct. */
export async function statTarget(absolutePath: string, shownPath: string): Promise<Stats> {
  try {
    return await stat(absolutePath)
  } catch {
    throw new ToolError('PATH_NOT_FOUND', `${shownPath} does not exist in the project folder`)
  }
}

/** Walks the project depth first; see `WalkVisitor` for the order and `WalkOptions` for the rest. */
export async function walkProject(options: WalkOptions, visit: WalkVisitor): Promise<WalkResult> {
  const { root, signal } = options
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_WALK_FILES
  const rules = new IgnoreRules(root)
  let visited = 0
  let isTruncated = false

  // Returns false once the walk must end (visitor said stop, or the cap was reached).
  const walkFolder = async (folder: string, dir: Folder): Promise<boolean> => {
    signal.throwIfAborted()
    const levels = await rules.levelsFor(folder)
    for (const entry of await readSortedEntries(dir)) {
      signal.throwIfAborted()
      if (entry.name === '.git') continue
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`
      if (rules.isCredential(path)) continue
      const kind = await entryKind(entry, dir.entry(entry.name))
      if (kind === 'folder') {
        if (options.skipFolder?.(path) === true || isIgnoredBy(levels, path, true)) continue
        const child = openChildOrSkip(root, dir, entry.name)
        if (child === undefined) continue
        try {
          if (!(await walkFolder(path, child))) return false
        } finally {
          child.close()
        }
      } else if (kind === 'file' && !isIgnoredBy(levels, path, false)) {
        if (visited >= maxFiles) {
          isTruncated = true
          return false
        }
        visited++
        const file = { path, absolutePath: join(root, path), folder: dir, name: entry.name }
        if (!(await visit(file))) return false
      }
    }
    return true
  }

  const start = options.start ?? ''
  const shown = start === '' ? '.' : start
  let top: Folder
  try {
    top = openFolderInsideSync(root, join(root, start), { shown })
  } catch (error) {
    // Gone (or no longer a folder) since the caller looked: as if it had never been there.
    if (error instanceof Error && 'code' in error && /^(ENOENT|ENOTDIR)$/.test(String(error.code)))
      throw new ToolError('PATH_NOT_FOUND', `${shown} does not exist in the project folder`)
    throw error
  }
  try {
    await walkFolder(start, top)
  } finally {
    top.close()
  }
  return { isTruncated }
}

/** A subfolder opened for the walk, or undefined when it vanished, became a link or is unreadable. */
function openChildOrSkip(root: string, dir: Folder, name: string): Folder | undefined {
  try {
    return openChildFolderSync(root, dir, name)
  } catch {
    // Removed, made unreadable or swapped for a link since it was listed: not walked.
    return undefined
  }
}

async function readSortedEntries(folder: Folder): Promise<Dirent[]> {
  let entries: Dirent[]
  try {
    entries = await readdir(folder.entry('.'), { withFileTypes: true })
  } catch {
    // A folder removed or made unreadable while we walk: its files are simply not seen.
    return []
  }
  // Byte order of the UTF-8 names, as ripgrep sorts, so both grep backends list files alike.
  const keyed = entries.map((entry) => ({ entry, key: Buffer.from(entry.name) }))
  keyed.sort((a, b) => Buffer.compare(a.key, b.key))
  return keyed.map(({ entry }) => entry)
}

/** Symlinks are never followed: a link could lead out of the project or into a cycle. */
async function entryKind(
  entry: Dirent,
  absolutePath: string,
): Promise<'file' | 'folder' | 'other'> {
  if (entry.isSymbolicLink()) return 'other'
  if (entry.isDirectory()) return 'folder'
  if (entry.isFile()) return 'file'
  if (
    !entry.isBlockDevice() &&
    !entry.isCharacterDevice() &&
    !entry.isFIFO() &&
    !entry.isSocket()
  ) {
    // Some file systems report no type in readdir; ask lstat (still without following links).
    try {
      const info = await lstat(absolutePath)
      if (info.isDirectory()) return 'folder'
      if (info.isFile()) return 'file'
    } catch {
      // Gone since readdir: skip it.
    }
  }
  return 'other'
}

interface IgnoreRule {
  readonly regex: RegExp
  readonly isDirOnly: boolean
  readonly isNegated: boolean
}

/** The rules of one ignore file, matched against paths relative to `base`. */
interface IgnoreLevel {
  readonly base: string
  readonly rules: readonly IgnoreRule[]
}

/**
 * The ignore rules of a project, loaded lazily and cached per folder. A folder's levels are
 * `.git/info/exclude`, then each .gitignore from the root down to the folder itself; a deeper
 * level overrides a shallower one, and within a file the last matching rule wins (as in git).
 */
export class IgnoreRules {
  private readonly cache = new Map<string, Promise<readonly IgnoreLevel[]>>()
  private readonly credentials: ReadonlySet<string>

  constructor(private readonly root: string) {
    this.credentials = homePathsUnder(root)
  }

  /**
   * Whether the project-relative `path` is a credential store of the home folder (a project that
   * is or holds it): never entered nor searched, unless a call names it (then it is asked).
   */
  isCredential(path: string): boolean {
    return this.credentials.size > 0 && this.credentials.has(path)
  }

  levelsFor(folder: string): Promise<readonly IgnoreLevel[]> {
    let levels = this.cache.get(folder)
    if (levels === undefined) {
      levels = this.load(folder)
      this.cache.set(folder, levels)
    }
    return levels
  }

  /**
   * Whether a walk from the folder `start` would reach the file `path` (both project-relative):
   * no folder between them and not the file itself is ignored, and none is `.git` or a credential
   * store of the home folder.
   */
  async reaches(start: string, path: string): Promise<boolean> {
    const parts = path.split('/')
    const first = start === '' ? 0 : start.split('/').length
    for (let i = first; i < parts.length; i++) {
      if (parts[i] === '.git') return false
      if (this.isCredential(parts.slice(0, i + 1).join('/'))) return false
      const levels = await this.levelsFor(parts.slice(0, i).join('/'))
      if (isIgnoredBy(levels, parts.slice(0, i + 1).join('/'), i < parts.length - 1)) return false
    }
    return true
  }

  private async load(folder: string): Promise<readonly IgnoreLevel[]> {
    if (folder === '') {
      const exclude = await readRules(this.root, join(this.root, '.git', 'info', 'exclude'))
      const gitignore = await readRules(this.root, join(this.root, '.gitignore'))
      return [
        { base: '', rules: exclude },
        { base: '', rules: gitignore },
      ]
    }
    const slash = folder.lastIndexOf('/')
    const parent = await this.levelsFor(slash < 0 ? '' : folder.slice(0, slash))
    const own = await readRules(this.root, join(this.root, folder, '.gitignore'))
    return own.length > 0 ? [...parent, { base: folder, rules: own }] : parent
  }
}

function isIgnoredBy(levels: readonly IgnoreLevel[], path: string, isDir: boolean): boolean {
  for (let l = levels.length - 1; l >= 0; l--) {
    const level = levels[l]
    if (level === undefined) continue
    const relative = level.base === '' ? path : path.slice(level.base.length + 1)
    for (let r = level.rules.length - 1; r >= 0; r--) {
      const rule = level.rules[r]
      if (rule === undefined || (rule.isDirOnly && !isDir)) continue
      if (rule.regex.test(relative)) return !rule.isNegated
    }
  }
  return false
}

/** The rules of one ignore file, read only if what opens lies inside the project. */
async function readRules(root: string, file: string): Promise<IgnoreRule[]> {
  let text: string
  try {
    const { handle } = await openFileInside(root, file, file)
    try {
      text = await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  } catch {
    // No such file (the common case) or unreadable: it contributes no rules.
    return []
  }
  return text.split(/\r?\n/).flatMap((line) => {
    const rule = parseIgnoreLine(line)
    return rule === undefined ? [] : [rule]
  })
}

function parseIgnoreLine(line: string): IgnoreRule | undefined {
  // Trailing spaces do not count unless the last one is escaped with a backslash.
  let pattern = line.replace(/(?<!\\) +$/, '')
  if (pattern === '' || pattern.startsWith('#')) return undefined
  const isNegated = pattern.startsWith('!')
  if (isNegated) pattern = pattern.slice(1)
  try {
    const rule = compileRule(pattern, 'gitignore')
    return rule === undefined ? undefined : { ...rule, isNegated }
  } catch {
    // A pattern git could not use either (a reversed range, say): it matches nothing.
    return undefined
  }
}

/**
 * Compiles a glob with .gitignore's placement rules: without a slash (a trailing one aside) it
 * matches a name at any depth; with one it matches the whole path relative to its base; a
 * trailing slash matches folders only. Throws a SyntaxError for an impossible class.
 */
function compileRule(
  glob: string,
  syntax: GlobSyntax,
): { regex: RegExp; isDirOnly: boolean } | undefined {
  let pattern = glob
  const isDirOnly = pattern.endsWith('/')
  while (pattern.endsWith('/')) pattern = pattern.slice(0, -1)
  const isAnchored = pattern.includes('/')
  while (pattern.startsWith('/')) pattern = pattern.slice(1)
  if (pattern === '') return undefined
  const body = translateGlob(pattern, syntax)
  return { regex: new RegExp(isAnchored ? `^${body}$` : `^(?:.*/)?${body}$`), isDirOnly }
}

/** Tests a path (relative to the searched folder, forward slashes) against a compiled glob. */
export type GlobMatcher = (path: string, isDir: boolean) => boolean

/**
 * Compiles a glob as `glob` and `grep` take it (and as ripgrep's --glob reads it): `*` and `?`
 * stay within one name, `**` spans folders, `[a-z]`, `[!a]` and `{ts,tsx}` work, `\` escapes;
 * placement follows .gitignore (see `compileRule`). A leading `./` is dropped. Throws a
 * ToolError with code INVALID_GLOB when the pattern cannot be compiled.
 */
export function compileGlob(glob: string): GlobMatcher {
  let rule: { regex: RegExp; isDirOnly: boolean } | undefined
  try {
    rule = compileRule(glob.replace(/^(?:\.\/)+/, ''), 'glob')
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ToolError('INVALID_GLOB', `The glob ${glob} is not valid: ${reason}`)
  }
  if (rule === undefined) throw new ToolError('INVALID_GLOB', `The glob ${glob} matches nothing`)
  const { regex, isDirOnly } = rule
  return (path, isDir) => (isDir || !isDirOnly) && regex.test(path)
}

/**
 * `gitignore`: git's reading (no braces; what cannot be parsed is literal). `glob`: ripgrep's
 * reading (`{a,b}` alternatives, not nested; an unclosed `[` or `{` is an error), so a glob
 * ripgrep refuses is refused by the JS search too. A `**` inside a name is a `*` in both.
 */
type GlobSyntax = 'gitignore' | 'glob'

function translateGlob(glob: string, syntax: GlobSyntax): string {
  const isStrict = syntax === 'glob'
  let out = ''
  let inBrace = false
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i)
    if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob.charAt(++i))
    } else if (c === '*') {
      let stars = 1
      while (glob.charAt(i + stars) === '*') stars++
      const before = i === 0 ? '/' : glob.charAt(i - 1)
      const after = glob.charAt(i + stars)
      const opensName = before === '/' || (inBrace && (before === '{' || before === ','))
      const closesName =
        after === '' || after === '/' || (inBrace && (after === '}' || after === ','))
      if (stars >= 2 && opensName && closesName) {
        // A whole-name `**`: any number of folders (`**/`), or everything below (`/**`).
        out += after === '/' ? '(?:.*/)?' : '.*'
        i += after === '/' ? stars : stars - 1
      } else {
        out += '[^/]*'
        i += stars - 1
      }
    } else if (c === '?') {
      out += '[^/]'
    } else if (c === '[') {
      const set = readClass(glob, i)
      if (set !== undefined) {
        out += set.source
        i = set.end
      } else if (isStrict) {
        throw new SyntaxError('[ opens a character set that is never closed with ]')
      } else {
        out += '\\['
      }
    } else if (isStrict && c === '{') {
      if (inBrace) throw new SyntaxError('{a,b} alternatives cannot be nested')
      if (!glob.includes('}', i)) throw new SyntaxError('{ is never closed with }')
      inBrace = true
      out += '(?:'
    } else if (isStrict && c === '}' && inBrace) {
      inBrace = false
      out += ')'
    } else if (isStrict && c === ',' && inBrace) {
      out += '|'
    } else {
      out += escapeRegex(c)
    }
  }
  return out
}

/** A `[...]` set starting at `start`, as a regex that never matches `/`; undefined if unclosed. */
function readClass(glob: string, start: number): { source: string; end: number } | undefined {
  let i = start + 1
  const isNegated = glob.charAt(i) === '!' || glob.charAt(i) === '^'
  if (isNegated) i++
  let members = ''
  for (let first = true; i < glob.length; i++, first = false) {
    const c = glob.charAt(i)
    if (c === ']' && !first) {
      return { source: isNegated ? `[^/${members}]` : `(?!/)[${members}]`, end: i }
    }
    // Escaped or not, a member is literal (`\d` in a glob set is the letter d); only an
    // unescaped `-` makes a range.
    const isEscaped = c === '\\' && i + 1 < glob.length
    const member = isEscaped ? glob.charAt(++i) : c
    members += /[\]\\[^]/.test(member) || (isEscaped && member === '-') ? `\\${member}` : member
  }
  return undefined
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c
}
