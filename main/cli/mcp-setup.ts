/**
 * The MCP servers of one CLI command: the project's `.mcp.json` is trusted by
 * `--trust-project-mcp` or by the user's "y" on a terminal (remembered for that content and the
 * project files its command lines name, see `mcp-fingerprint.ts`), never by default; a file that
 * cannot be used is named on stderr and its servers left out, and servers that changed since
 * they were trusted say which files changed.
 */
import { createInterface } from 'node:readline'
import { projectMcp } from '../core/host/mcp.js'
import type { ProjectMcp } from '../core/host/mcp.js'
import { McpTrust } from '../core/host/mcp-trust.js'
import type { Config } from '../core/host/settings/config.js'
import { hasHiddenCharacters, trustLines, trustServerViews } from '../core/host/mcp-trust-view.js'
import { visibleText } from '../../protocol/visible-text.js'
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
    opts.err(
      `  ! ${visibleText(project.file.path)} is not used: ${visibleText(project.file.reason)}\n`,
    )
  const { fingerprint } = project
  if (project.needsTrust && project.file.kind === 'servers' && fingerprint !== undefined) {
    const changed = trust.changedFiles(opts.projectDir, fingerprint)
    if (changed.length > 0)
      opts.err(
        `  ! what this project's MCP servers run changed since you trusted them (${changed.map(visibleText).join(', ')}): they do not start until you trust them again\n`,
      )
    const trusted =
      opts.trustProject ||
      (opts.input !== undefined && (await askTrust(project, opts.input, opts.err)))
    if (trusted) {
      // What the user said yes to, not what is there now: a change while asking is asked again.
      if (
        projectMcp(opts.config, opts.projectDir, trust).fingerprint?.sha256 === fingerprint.sha256
      )
        trust.trust(opts.projectDir, fingerprint)
      else opts.err("  ! the project's MCP servers changed while you were asked: not trusted\n")
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

/**
 * Shows every field of each server (escaped, secrets masked, covered files with their hashes)
 * and reads one answer line (`y` trusts).
 */
async function askTrust(
  project: ProjectMcp,
  input: NodeJS.ReadableStream,
  err: (text: string) => void,
): Promise<boolean> {
  if (project.file.kind !== 'servers') return false
  err(
    `\nThis project's ${visibleText(project.file.path)} wants to start MCP servers on this computer:\n`,
  )
  for (const line of trustLines(trustServerViews(project.file.servers, project.fingerprint)))
    err(`${line}\n`)
  if (hasHiddenCharacters(project.file.servers))
    err('  ! the file holds control or invisible characters (shown above as \\x.. escapes)\n')
  err('Trusting covers the file and the files listed; if any changes, Bridle asks again.\n')
  err('Trust this file and start them? [y/N] ')
  const lines = createInterface({ input, terminal: false })
  const answer = await new Promise<string>((resolve) => {
    lines.once('line', resolve)
    lines.once('close', () => resolve(''))
  })
  lines.close()
  return /^y(es)?$/i.test(answer.trim())
}
