/**
 * `grep`: searches file contents with a regular expression. Two backends give the same output
 * for the same query: ripgrep when it is installed (fast), and a pure-JS search over walk.ts.
 * Both see the same files: ripgrep's own ignore handling only narrows what it reads, and every
 * file it reports is checked again with the walker's rules, glob and binary test.
 */
import { execFile, spawn } from 'node:child_process'
import type { FileHandle } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import { createInterface } from 'node:readline'
import { z } from 'zod'
import { openChildFile, openFileInside, openFolderInsideSync } from '../../workspace/confined.js'
import { resolveInsideProject } from '../../workspace/paths.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import { assessRead } from './file-helpers.js'
import { MAX_LINE_CHARS, Results } from './grep-results.js'
import type { Line } from './grep-results.js'
import { compileGlob, IgnoreRules, projectPath, statTarget, walkProject } from './walk.js'

export const DEFAULT_GREP_RESULTS = 200
export const MAX_GREP_RESULTS = 1000
/** Larger files are not searched (ripgrep's `--max-filesize`: larger than this is skipped). */
export const MAX_SEARCH_FILE_BYTES = 5 * 1024 * 1024
/** The oldest ripgrep whose flags we use (`--engine`). */
const MIN_RIPGREP_MAJOR = 13

export interface GrepToolOptions {
  /**
   * The ripgrep binary. Undefined: `rg` from PATH if it runs and is recent enough (checked once
   * per tool); null: always the JS search; a string: that binary, without a check.
   */
  readonly ripgrepPath?: string | null
}

const OutputMode = z.enum(['content', 'files', 'count'])

const GrepArgs = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression, matched against one line at a time (e.g. `function\\s+\\w+`)'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('File or folder to search, relative to the project folder (default: all of it)'),
  glob: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Only files matching this glob (`*.ts`, `src/**/*.{ts,tsx}`); a leading `!` excludes instead',
    ),
  ignoreCase: z.boolean().default(false).describe('Match letters in either case'),
  context: z
    .number()
    .int()
    .min(0)
    .max(10)
    .default(0)
    .describe('Lines of context to show before and after each match (content mode only)'),
  outputMode: OutputMode.default('content').describe(
    '`content`: matching lines as path:line:text; `files`: paths of matching files; `count`: path:number of matching lines',
  ),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(MAX_GREP_RESULTS)
    .default(DEFAULT_GREP_RESULTS)
    .describe('At most this many matching lines (content) or files (files, count)'),
})
type GrepArgs = z.infer<typeof GrepArgs>

export function grepTool(options: GrepToolOptions = {}): Tool {
  let ripgrep: Promise<string | null> | undefined
  const findRipgrep = (): Promise<string | null> => {
    if (options.ripgrepPath !== undefined) return Promise.resolve(options.ripgrepPath)
    ripgrep ??= detectRipgrep()
    return ripgrep
  }
  return defineTool({
    name: 'grep',
    brief: 'Search file contents with a regular expression; output `path:line:text`.',
    description: [
      'Search the contents of project files with a regular expression (JavaScript syntax, one',
      'line at a time). Output modes: `content` (default) lists `path:line:text`, with context',
      'lines as `path-line-text` and `--` between groups; `files` lists matching paths; `count`',
      'lists `path:count`. Files are searched in path order; files ignored by .gitignore, binary',
      `files and files over ${MAX_SEARCH_FILE_BYTES / 1024 / 1024} MB are skipped. Lines are cut`,
      `at ${MAX_LINE_CHARS} characters. Narrow large searches with path and glob.`,
    ].join(' '),
    schema: GrepArgs,
    kind: 'read',
    isConcurrencySafe: () => true,
    assess: ({ path }, { projectDir }) => assessRead(projectDir, path ?? '.'),
    describe: ({ pattern, path }) =>
      `Search for /${pattern}/${path === undefined ? '' : ` in ${path}`}`,
    async run(args, { projectDir, signal }) {
      const root = resolveInsideProject(projectDir, '.')
      const target = resolveInsideProject(projectDir, args.path ?? '.')
      const search: Search = {
        root,
        start: projectPath(root, target),
        regex: compilePattern(args.pattern, args.ignoreCase),
        isWanted: fileFilter(args.glob),
        rules: new IgnoreRules(root),
        results: new Results(args.outputMode, args.context, args.maxResults),
        signal,
      }
      let backend = 'js'
      let isWalkTruncated = false
      if (!(await statTarget(target, args.path ?? '.')).isDirectory()) {
        // A named file is read directly by both backends, with the same filters.
        const open = async () => (await openFileInside(root, target, search.start)).handle
        if (search.isWanted(basename(target))) await searchFile(search, search.start, open)
      } else {
        const rg = await findRipgrep()
        if (rg === null) {
          isWalkTruncated = await searchWithJs(search)
        } else {
          backend = 'ripgrep'
          await searchWithRipgrep(rg, target, args, search)
        }
      }
      const { results } = search
      return {
        output: results.format(args, isWalkTruncated),
        metadata: { backend, files: results.files.length, isTruncated: results.isTruncated },
      }
    },
  })
}

interface Search {
  readonly root: string
  /** Project-relative folder searched ('' for all); for a single file, that file's path. */
  readonly start: string
  readonly regex: RegExp
  /** Whether a file (path relative to `start`) passes the glob filter. */
  readonly isWanted: (path: string) => boolean
  /** The walker's ignore rules, to re-check what ripgrep reports. */
  readonly rules: IgnoreRules
  readonly results: Results
  readonly signal: AbortSignal
}

/**
 * Compiles with the `u` flag when the pattern allows it (closer to ripgrep's Unicode-aware
 * classes), else with the legacy syntax, which accepts more escapes.
 */
function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  if (/(?<!\\)(?:\\\\)*\\n|\n/.test(pattern)) {
    throw new ToolError(
      'INVALID_PATTERN',
      `The pattern ${pattern} contains a line break, but grep matches one line at a time; search for a single line of it`,
    )
  }
  const flags = ignoreCase ? 'i' : ''
  try {
    return new RegExp(pattern, `${flags}u`)
  } catch {
    // Not valid in Unicode mode (e.g. `\-` outside a set); the legacy syntax may accept it.
  }
  try {
    return new RegExp(pattern, flags)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    const hint = /^\(\?[a-zA-Z]+\)/.test(pattern)
      ? ' (inline flags are not supported; use ignoreCase)'
      : ''
    throw new ToolError(
      'INVALID_PATTERN',
      `The pattern is not a valid regular expression: ${reason}${hint}`,
    )
  }
}

/** The `glob` argument as ripgrep reads it: a `!` glob also excludes whole folders it matches. */
function fileFilter(glob: string | undefined): (path: string) => boolean {
  if (glob === undefined) return () => true
  const isNegated = glob.startsWith('!')
  const matches = compileGlob(isNegated ? glob.slice(1) : glob)
  if (!isNegated) return (path) => matches(path, false)
  return (path) => {
    const parts = path.split('/')
    return parts.every((_, i) => !matches(parts.slice(0, i + 1).join('/'), i < parts.length - 1))
  }
}

function relativeTo(start: string, path: string): string {
  return start === '' ? path : path.slice(start.length + 1)
}

async function searchWithJs(search: Search): Promise<boolean> {
  const { root, start, signal } = search
  const { isTruncated } = await walkProject({ root, start, signal }, async (file) => {
    if (search.isWanted(relativeTo(start, file.path))) {
      await searchFile(search, file.path, () => openChildFile(file.folder, file.name))
    }
    return !search.results.isDone
  })
  return isTruncated
}

/**
 * A file's bytes through a handle `open` gives (one verified inside the project), or undefined
 * for what ripgrep skips too: a file too big, not regular, removed or unreadable since it was seen.
 */
async function readSearched(open: () => Promise<FileHandle>): Promise<Buffer | undefined> {
  let handle: FileHandle
  try {
    handle = await open()
  } catch {
    return undefined
  }
  try {
    const info = await handle.stat()
    if (!info.isFile() || info.size > MAX_SEARCH_FILE_BYTES) return undefined
    return await handle.readFile()
  } catch {
    return undefined
  } finally {
    await handle.close()
  }
}

/** Searches one file as ripgrep would: big, unreadable and binary (NUL) files yield nothing. */
async function searchFile(
  search: Search,
  path: string,
  open: () => Promise<FileHandle>,
): Promise<void> {
  const bytes = await readSearched(open)
  if (bytes !== undefined) searchText(search, path, bytes)
}

/** Searches one file's bytes: a binary (NUL) file yields nothing. */
function searchText(search: Search, path: string, bytes: Buffer): void {
  search.signal.throwIfAborted()
  const text = decodeText(bytes)
  if (text.includes('\0')) return
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const { results, regex } = search
  results.beginFile(path)
  for (let i = 0; i < lines.length && results.wantsMoreOfFile(); i++) {
    const line = lines[i] ?? ''
    results.addLine(i + 1, line, regex.test(line))
  }
  results.endFile()
}

/**
 * Reports what ripgrep found in one file only as far as the project's own file holds it: the file
 * is read again through descriptors opened from the project root without following a link, and
 * ripgrep's lines are shown only when each is that file's line at that number. ripgrep opens
 * files by name as it walks, so a folder swapped for a link meanwhile could have led it outside;
 * when its lines differ (that, or a decoding difference), the verified bytes are searched here.
 */
async function reportVerified(search: Search, file: { path: string; lines: Line[] }) {
  const absolutePath = join(search.root, file.path)
  const bytes = await readSearched(async () => {
    const folder = openFolderInsideSync(search.root, dirname(absolutePath), { links: 'refuse' })
    try {
      return await openChildFile(folder, basename(absolutePath))
    } finally {
      folder.close()
    }
  })
  if (bytes === undefined) return
  const lines = decodeText(bytes).split('\n')
  if (!file.lines.every((line) => lines[line.n - 1] === line.text)) {
    searchText(search, file.path, bytes)
    return
  }
  const { results } = search
  results.beginFile(file.path)
  for (const line of file.lines) results.addLine(line.n, line.text, line.isMatch)
  results.endFile()
}

/** Decodes like ripgrep's default: a BOM selects UTF-16 or is dropped; else UTF-8. */
function decodeText(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le')
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const even = Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)))
    return even.swap16().toString('utf16le')
  }
  const text = bytes.toString('utf8')
  return text.startsWith('\uFEFF') ? text.slice(1) : text
}

const RgText = z.union([z.object({ text: z.string() }), z.object({ bytes: z.string() })])
const RgMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('begin'), data: z.object({ path: RgText }) }),
  z.object({
    type: z.enum(['match', 'context']),
    data: z.object({ lines: RgText, line_number: z.number().int() }),
  }),
  z.object({ type: z.literal('end'), data: z.object({ binary_offset: z.number().nullable() }) }),
  z.object({ type: z.literal('summary') }),
])

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    // Not a JSON line (ripgrep writes only JSON to stdout with --json); the caller skips it.
    return undefined
  }
}

function rgText(value: z.infer<typeof RgText>): string {
  return 'text' in value ? value.text : Buffer.from(value.bytes, 'base64').toString('utf8')
}

/**
 * Runs ripgrep in `folder` (never through a shell) and feeds its JSON output to the results.
 * Parent, global and `.ignore` files are not read, so ripgrep never skips what the walker would
 * search; `-g` globs can re-include ignored files, so each reported file is checked with the
 * walker's rules. A file is fed only at its end event, where ripgrep says if it found a NUL.
 * The process is killed on abort or once the results are complete.
 */
async function searchWithRipgrep(
  rg: string,
  folder: string,
  args: GrepArgs,
  search: Search,
): Promise<void> {
  const { results, signal, start } = search
  signal.throwIfAborted()
  const flags = ['--no-config', '--json', '--hidden', '--no-require-git', '--no-ignore-parent']
  flags.push('--no-ignore-global', '--no-ignore-dot', '--sort', 'path', '--engine', 'auto')
  flags.push('--max-filesize', String(MAX_SEARCH_FILE_BYTES), '--glob', '!.git')
  if (args.ignoreCase) flags.push('--ignore-case')
  if (args.outputMode === 'content' && args.context > 0) flags.push('--context', `${args.context}`)
  if (args.glob !== undefined) flags.push('--glob', args.glob.replace(/^(!?)(?:\.\/)+/, '$1'))
  flags.push('--regexp', args.pattern, '--', '.')

  const child = spawn(rg, flags, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.on('error', (error) => {
      resolve({ code: null, error })
    })
    child.on('close', (code) => {
      resolve({ code })
    })
  })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < 8192) stderr += chunk
  })
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
  }
  signal.addEventListener('abort', kill, { once: true })
  try {
    let file: { path: string; lines: Line[] } | undefined
    for await (const json of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      signal.throwIfAborted()
      const parsed = RgMessage.safeParse(parseJson(json))
      if (!parsed.success) continue
      const message = parsed.data
      if (message.type === 'begin') {
        const below = rgText(message.data.path).replace(/^\.[/\\]/, '')
        const relative = sep === '/' ? below : below.split(sep).join('/')
        const path = start === '' ? relative : `${start}/${relative}`
        const isWanted = search.isWanted(relative) && (await search.rules.reaches(start, path))
        file = isWanted ? { path, lines: [] } : undefined
      } else if (message.type === 'match' || message.type === 'context') {
        const text = rgText(message.data.lines).replace(/\n$/, '')
        file?.lines.push({ n: message.data.line_number, text, isMatch: message.type === 'match' })
      } else if (message.type === 'end') {
        if (file !== undefined && message.data.binary_offset === null) {
          await reportVerified(search, file)
        }
        file = undefined
        if (results.isDone) break
      }
    }
  } finally {
    signal.removeEventListener('abort', kill)
    kill()
  }
  const { code, error } = await exited
  signal.throwIfAborted()
  if (error !== undefined) throw new Error(`ripgrep (${rg}) could not run: ${error.message}`)
  if (code === 2) {
    const reason = stderr.trim()
    if (/regex parse error|regex could not be compiled|PCRE2/.test(reason)) {
      throw new ToolError('INVALID_PATTERN', `ripgrep cannot use this pattern: ${reason}`)
    }
    if (reason.startsWith('error parsing glob')) {
      throw new ToolError('INVALID_GLOB', `ripgrep cannot use this glob: ${reason}`)
    }
    // Anything else that stopped ripgrep as a whole; per-file errors (an unreadable file) start
    // with the file's path and are skipped, as the JS search skips such files.
    if (/^error:/m.test(reason)) throw new Error(`ripgrep (${rg}) failed: ${reason}`)
  }
}

/** `rg` from PATH, if it runs and is at least MIN_RIPGREP_MAJOR; else null. Never throws. */
function detectRipgrep(): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('rg', ['--version'], { timeout: 5000 }, (error, stdout) => {
      const major = /ripgrep (\d+)\./.exec(stdout)?.[1]
      resolve(
        error === null && major !== undefined && Number(major) >= MIN_RIPGREP_MAJOR ? 'rg' : null,
      )
    })
  })
}
