/**
 * Which MCP servers a session in a project may use: the user's (config.json's `mcpServers`) and
 * the project's (`.mcp.json` at its root, only once the user trusts that very content). A
 * project server with the name of a user server wins, as a closer configuration does in the
 * other tools; a file that is not JSON or not the known shape is reported, never half used.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { McpProjectFile } from '../../../protocol/mcp.js'
import type { McpScope, McpServerConfig, McpServers } from '../../../protocol/mcp.js'

export const PROJECT_MCP_FILE = '.mcp.json'

/** One configured server, resolved for a project. */
export interface McpServerEntry {
  readonly name: string
  readonly scope: McpScope
  readonly config: McpServerConfig
  /** Why it will not start, in words a person understands; undefined: it may start. */
  readonly off?: { readonly state: 'disabled' | 'untrusted'; readonly reason: string }
}

/** A project's `.mcp.json` as read: its servers and the content hash trust is given to. */
export type ProjectMcpFile =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'servers'
      readonly path: string
      readonly sha256: string
      readonly servers: McpServers
    }
  | { readonly kind: 'invalid'; readonly path: string; readonly reason: string }

export function readProjectMcpFile(projectDir: string): ProjectMcpFile {
  const path = join(projectDir, PROJECT_MCP_FILE)
  if (!existsSync(path)) return { kind: 'none' }
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    return { kind: 'invalid', path, reason: `it cannot be read (${messageOf(error)})` }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    return { kind: 'invalid', path, reason: `it is not valid JSON (${messageOf(error)})` }
  }
  const parsed = McpProjectFile.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.join('.') ?? ''
    return {
      kind: 'invalid',
      path,
      reason: `${where === '' ? 'its content' : where}: ${issue?.message ?? 'not the expected shape'}`,
    }
  }
  const sha256 = createHash('sha256').update(text).digest('hex')
  return { kind: 'servers', path, sha256, servers: parsed.data.mcpServers }
}

/**
 * The servers of a project: the user's, then the project's (trusted or not, so settings can show
 * them), each with why it is off when it is. `isTrusted` answers for the file's hash.
 */
export function serversFor(
  userServers: McpServers,
  project: ProjectMcpFile,
  isTrusted: (sha256: string) => boolean,
): McpServerEntry[] {
  const entries = new Map<string, McpServerEntry>()
  for (const [name, config] of Object.entries(userServers))
    entries.set(name, withOff({ name, scope: 'user', config }))
  if (project.kind === 'servers') {
    const trusted = isTrusted(project.sha256)
    for (const [name, config] of Object.entries(project.servers)) {
      const entry = withOff({ name, scope: 'project', config })
      entries.set(
        name,
        trusted || entry.off
          ? entry
          : {
              ...entry,
              off: {
                state: 'untrusted',
                reason: `the project's ${PROJECT_MCP_FILE} is not trusted yet (it starts programs on this computer: review it, then trust it)`,
              },
            },
      )
    }
  }
  return [...entries.values()]
}

function withOff(entry: Omit<McpServerEntry, 'off'>): McpServerEntry {
  if (entry.config.enabled !== false) return entry
  return { ...entry, off: { state: 'disabled', reason: 'turned off ("enabled": false)' } }
}

/** A variable named in a value is not set, and the value has no fallback. */
export class MissingVariableError extends Error {
  constructor(
    readonly variable: string,
    where: string,
  ) {
    super(`the environment variable ${variable} named in ${where} is not set`)
    this.name = 'MissingVariableError'
  }
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** `${NAME}` and `${NAME:-fallback}` in `value`, from `env`; an unset one without fallback throws. */
export function expandVariables(value: string, env: NodeJS.ProcessEnv, where: string): string {
  return value.replace(VARIABLE, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name]
    if (found !== undefined && found !== '') return found
    if (fallback !== undefined) return fallback
    throw new MissingVariableError(name, where)
  })
}

/** The names of the variables `value` refers to (`${NAME}`, `${NAME:-fallback}`), in order. */
export function variablesIn(value: string): string[] {
  return [...value.matchAll(VARIABLE)].flatMap((match) =>
    match[1] === undefined ? [] : [match[1]],
  )
}

/** Every value of a record expanded; `where` names the field for the error. */
export function expandRecord(
  record: Readonly<Record<string, string>> | undefined,
  env: NodeJS.ProcessEnv,
  where: string,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(record ?? {}))
    out[key] = expandVariables(value, env, `${where}.${key}`)
  return out
}

/**
 * The folder a project's stdio server runs in: its `cwd` (relative to the project), else the
 * project. A user's server runs elsewhere (`userServerCwd` in launch.ts).
 */
export function serverCwd(config: McpServerConfig, projectDir: string): string {
  if (!('command' in config) || config.cwd === undefined) return projectDir
  return isAbsolute(config.cwd) ? config.cwd : resolve(projectDir, config.cwd)
}

/** What a server runs or where it is, without anything that may be a secret (env, headers). */
export function describeTarget(config: McpServerConfig): string {
  if ('command' in config) return [config.command, ...(config.args ?? [])].join(' ')
  try {
    const url = new URL(config.url)
    url.username = ''
    url.password = ''
    url.search = ''
    return url.toString()
  } catch {
    return config.url
  }
}

export function transportOf(config: McpServerConfig): 'stdio' | 'http' | 'sse' {
  if ('command' in config) return 'stdio'
  return config.type === 'sse' ? 'sse' : 'http'
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
