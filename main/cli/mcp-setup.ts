/**
 * The MCP servers of one CLI command: the project's `.mcp.json` is trusted by
 * `--trust-project-mcp` or by the user's "y" on a terminal (remembered for that content), never
 * by default; a file that cannot be used is named on stderr and its servers left out.
 */
import { createInterface } from 'node:readline'
import { projectMcp } from '../core/host/mcp.js'
import type { ProjectMcp } from '../core/host/mcp.js'
import { McpTrust } from '../core/host/mcp-trust.js'
import type { Config } from '../core/host/settings/config.js'
import { describeTarget } from '../core/mcp/config.js'
import type { McpServerEntry } from '../core/mcp/config.js'
import type { McpManager } from '../core/mcp/manager.js'

export interface CliMcpOptions {
  readonly config: Config
  readonly projectDir: string
  readonly dataDir: string
  readonly env: NodeJS.ProcessEnv
  readonly version: string
  /** `--trust-project-mcp`: trust the project's `.mcp.json` as it is now. */
  readonly trustProject: boolean
  /** A terminal to ask on; without one an untrusted file stays off. */
  readonly input?: NodeJS.ReadableStream
  readonly err: (text: string) => void
}

export interface CliMcp {
  readonly manager: McpManager
  readonly entries: readonly McpServerEntry[]
}

/**
 * The servers and a manager to start them, or undefined when the project has none: the MCP SDK
 * is then never loaded (it is a large part of a start's CPU).
 */
export async function prepareCliMcp(opts: CliMcpOptions): Promise<CliMcp | undefined> {
  const trust = new McpTrust(opts.dataDir)
  let project = projectMcp(opts.config, opts.projectDir, trust)
  if (project.file.kind === 'invalid')
    opts.err(`  ! ${project.file.path} is not used: ${project.file.reason}\n`)
  if (project.needsTrust && project.file.kind === 'servers') {
    const trusted =
      opts.trustProject ||
      (opts.input !== undefined && (await askTrust(project, opts.input, opts.err)))
    if (trusted) {
      trust.trust(opts.projectDir, project.file.sha256)
      project = projectMcp(opts.config, opts.projectDir, trust)
    }
  }
  if (project.entries.length === 0) return undefined
  const { McpManager } = await import('../core/mcp/manager.js')
  return {
    manager: new McpManager({ env: opts.env, clientVersion: opts.version }),
    entries: project.entries,
  }
}

/** Shows what the project's servers would run and reads one answer line (`y` trusts). */
async function askTrust(
  project: ProjectMcp,
  input: NodeJS.ReadableStream,
  err: (text: string) => void,
): Promise<boolean> {
  if (project.file.kind !== 'servers') return false
  err(`\nThis project's ${project.file.path} wants to start MCP servers on this computer:\n`)
  for (const [name, config] of Object.entries(project.file.servers))
    err(`  ${name}: ${describeTarget(config)}\n`)
  err('Trust this file and start them? [y/N] ')
  const lines = createInterface({ input, terminal: false })
  const answer = await new Promise<string>((resolve) => {
    lines.once('line', resolve)
    lines.once('close', () => resolve(''))
  })
  lines.close()
  return /^y(es)?$/i.test(answer.trim())
}
