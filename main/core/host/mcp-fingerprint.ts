/**
 * What trust in a project's `.mcp.json` covers: the file's content, and for each stdio server the
 * content of every file inside the project that its command line names — the command when it is
 * a path, each argument that is a path inside the project (`srv.py`, `./bin/x`, `dist/server.js`,
 * also the words of a `sh -c "…"` line), a Python module run with `-m mod` (`mod.py`,
 * `mod/__init__.py`, `mod/__main__.py` and its parent packages), and a package that `npx <name>`
 * would take from the project's `node_modules` (its package.json, its bin files and
 * `node_modules/.bin/<name>`). A named file that does not exist is covered as missing, so one that
 * appears later is a change; so is any change of content, whoever made it (the agent included).
 *
 * Contract: the fingerprint is a pure function of those files' bytes and the `.mcp.json` content;
 * files outside the project and programs found on PATH (`python3`, `npx`) are not covered.
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { McpServers, McpStdioServer } from '../../../protocol/mcp.js'
import { serverCwd } from '../mcp/config.js'
import { isWithin } from '../workspace/paths.js'

/** One file trust covers: its path inside the project and its content hash (null: missing). */
export interface CoveredFile {
  readonly path: string
  readonly sha256: string | null
}

export interface McpFingerprint {
  /** One hash over the `.mcp.json` content and every covered file: what trust is given to. */
  readonly sha256: string
  /** By server name, the files its command line names, each once, in a stable order. */
  readonly files: Readonly<Record<string, readonly CoveredFile[]>>
}

export function fingerprintProjectMcp(
  projectDir: string,
  fileSha256: string,
  servers: McpServers,
): McpFingerprint {
  const files: Record<string, CoveredFile[]> = {}
  const all = createHash('sha256').update(`mcp.json ${fileSha256}\n`)
  for (const [name, config] of Object.entries(servers)) {
    if (!('command' in config)) continue
    const covered = [...namedPaths(config, projectDir)]
      .sort()
      .map((path) => ({ path: relative(projectDir, path), sha256: hashFile(path) }))
    files[name] = covered
    all.update(`${JSON.stringify([name, config.command, config.args ?? [], config.cwd ?? null])}\n`)
    for (const file of covered)
      all.update(`${JSON.stringify(name)} ${JSON.stringify(file.path)} ${file.sha256 ?? '-'}\n`)
  }
  return { sha256: all.digest('hex'), files }
}

/** Every absolute path inside the project that the server's command line may run or load. */
function namedPaths(config: McpStdioServer, projectDir: string): Set<string> {
  const cwd = serverCwd(config, projectDir)
  const out = new Set<string>()
  const add = (path: string) => {
    const full = resolve(cwd, path)
    if (isWithin(projectDir, full)) out.add(full)
  }
  const args = config.args ?? []
  if (config.command.includes('/') || config.command.includes(sep)) add(config.command)
  for (const word of args.flatMap(wordsOf)) {
    // A flag names no file, except through its value: `--script=srv.py`.
    const value = word.startsWith('-')
      ? word.includes('=')
        ? word.split('=').slice(1).join('=')
        : ''
      : word
    if (value === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue
    const full = resolve(cwd, value)
    add(full)
    if (isDirectory(full)) for (const entry of DIRECTORY_ENTRIES) add(join(full, entry))
  }
  for (const module of pythonModules(args))
    for (const path of modulePaths(module)) add(join(cwd, path))
  const npx = npxPackage(config.command, args)
  if (npx !== undefined) for (const path of packagePaths(npx, cwd, projectDir)) out.add(path)
  return out
}

/** What `node <dir>` or `python <dir>` would run from a folder. */
const DIRECTORY_ENTRIES = ['package.json', 'index.js', 'index.mjs', 'index.cjs', '__main__.py']

/** An argument and, when it is a shell line (`sh -c "…"`), each of its words too. */
function wordsOf(arg: string): string[] {
  const words = arg.split(/[\s;&|()<>`"']+/).filter((word) => word !== '' && word !== arg)
  return [arg, ...words]
}

/** The modules of `-m mod` / `-mmod` in a Python command line. */
function pythonModules(args: readonly string[]): string[] {
  const out: string[] = []
  args.forEach((arg, index) => {
    if (arg === '-m' && args[index + 1] !== undefined) out.push(args[index + 1] as string)
    else if (/^-m[A-Za-z_]/.test(arg)) out.push(arg.slice(2))
  })
  return out.filter((module) => /^[A-Za-z_][\w.]*$/.test(module))
}

/** The files Python may load for `mod.sub`: each package's `__init__.py`, then the module. */
function modulePaths(module: string): string[] {
  const parts = module.split('.')
  const out: string[] = []
  for (let i = 1; i < parts.length; i++) out.push(join(...parts.slice(0, i), '__init__.py'))
  const base = join(...parts)
  out.push(`${base}.py`, join(base, '__init__.py'), join(base, '__main__.py'))
  return out
}

/** The package `npx <name>` (or `npm exec <name>`) runs, without its version. */
function npxPackage(command: string, args: readonly string[]): string | undefined {
  const tool = command.split(/[\\/]/).pop() ?? command
  let rest: readonly string[]
  if (tool === 'npx') rest = args
  else if ((tool === 'npm' || tool === 'pnpm') && (args[0] === 'exec' || args[0] === 'x'))
    rest = args.slice(1)
  else return undefined
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string
    if (arg === '-p' || arg === '--package') return bareName(rest[i + 1])
    if (arg.startsWith('--package=')) return bareName(arg.slice('--package='.length))
    if (arg === '--') continue
    if (!arg.startsWith('-')) return bareName(arg)
  }
  return undefined
}

function bareName(spec: string | undefined): string | undefined {
  if (spec === undefined) return undefined
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0)
  const name = at === -1 ? spec : spec.slice(0, at)
  return /^(@[\w.-]+\/)?[\w.-]+$/.test(name) ? name : undefined
}

/**
 * The files of a package npx would take from the project: in each `node_modules` from the
 * server's folder up to the project root, its package.json, its bin files and `.bin/<bin>` links
 * (missing ones included, so a package that appears later is a change).
 */
function packagePaths(name: string, cwd: string, projectDir: string): string[] {
  const out: string[] = []
  const binName = name.split('/').pop() as string
  for (let dir = cwd; isWithin(projectDir, dir); dir = dirname(dir)) {
    const modules = join(dir, 'node_modules')
    const packageDir = join(modules, name)
    out.push(join(packageDir, 'package.json'), join(modules, '.bin', binName))
    for (const [bin, target] of binsOf(join(packageDir, 'package.json'))) {
      out.push(join(modules, '.bin', bin))
      const file = resolve(packageDir, target)
      if (isWithin(projectDir, file)) out.push(file)
    }
    if (dir === projectDir) break
  }
  return out
}

function binsOf(packageJson: string): [string, string][] {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(packageJson, 'utf8'))
  } catch {
    return []
  }
  if (typeof parsed !== 'object' || parsed === null) return []
  const { bin, name } = parsed as { bin?: unknown; name?: unknown }
  if (typeof bin === 'string' && typeof name === 'string')
    return [[name.split('/').pop() as string, bin]]
  if (typeof bin !== 'object' || bin === null) return []
  return Object.entries(bin).filter((pair): pair is [string, string] => typeof pair[1] === 'string')
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The content hash of a file (following links), or null when there is no file to read. */
function hashFile(path: string): string | null {
  try {
    const stat = statSync(path)
    if (!stat.isFile()) return stat.isDirectory() ? null : `special:${stat.mode}`
    return createHash('sha256').update(readFileSync(path)).digest('hex')
  } catch {
    return null
  }
}
