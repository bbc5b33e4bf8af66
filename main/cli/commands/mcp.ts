import { realpathSync } from 'node:fs'
import { ensureHome } from '../../core/host/home.js'
import { projectMcp } from '../../core/host/mcp.js'
import { parseFolder } from './options.js'
import { McpTrust } from '../../core/host/mcp-trust.js'
import { trustLines, trustServerViews } from '../../core/host/mcp-trust-view.js'
import { loadConfig } from '../../core/host/settings/config.js'
import { McpManager } from '../../core/mcp/index.js'
import type { McpServerEntry } from '../../core/mcp/index.js'
import type { McpServerView } from '../../../protocol/mcp.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { launchEnvironment } from '../launch-env.js'
import { writeErr } from '../terminal.js'

/**
 * `bridle mcp list | test <name> | trust`: the MCP servers a session in this project would use.
 * `list` starts each one that may run, prints its state and tools, and stops it (exit 0 even
 * when one failed: its line says why); `test` does that for one server and exits 1 when it
 * cannot start; `trust` trusts the project's `.mcp.json` as it is now.
 */
export async function run(
  { positionals, values }: CommandArgs,
  context: CommandContext,
): Promise<number> {
  const [action, name, ...rest] = positionals
  if (rest.length > 0) throw new UsageError(`mcp ${action ?? ''} takes at most one name`)
  const projectDir = realpathSync(parseFolder('--project', values.project ?? process.cwd()))
  const home = ensureHome(context.home)
  const trust = new McpTrust(home)
  const project = projectMcp(loadConfig(home), projectDir, trust)
  if (project.file.kind === 'invalid')
    writeErr(`bridle: ${project.file.path} is not used: ${project.file.reason}\n`)
  switch (action) {
    case 'list':
      return list(project.entries, projectDir, context, values.json === true)
    case 'test': {
      const entry = project.entries.find((e) => e.name === name)
      if (name === undefined) throw new UsageError('mcp test needs the name of a server')
      if (!entry)
        throw new UsageError(
          `no MCP server named "${name}" (configured: ${project.entries.map((e) => e.name).join(', ') || 'none'})`,
        )
      return test(entry, projectDir, context)
    }
    case 'trust': {
      if (project.file.kind !== 'servers' || project.fingerprint === undefined)
        throw new UsageError(`there is no usable .mcp.json in ${projectDir}`)
      trust.trust(projectDir, project.fingerprint)
      context.print(`trusted ${project.file.path}; its servers start when a session needs them:`)
      for (const line of trustLines(trustServerViews(project.file.servers, project.fingerprint)))
        context.print(line)
      return 0
    }
    default:
      throw new UsageError('mcp needs list, test <name> or trust')
  }
}

async function list(
  entries: readonly McpServerEntry[],
  projectDir: string,
  context: CommandContext,
  json: boolean,
): Promise<number> {
  const manager = new McpManager({ env: launchEnvironment(), clientVersion: context.version })
  try {
    await Promise.all(
      entries
        .filter((entry) => entry.off === undefined)
        .map((entry) =>
          manager
            .server(entry, projectDir)
            .ensure()
            .catch(() => undefined),
        ),
    )
    const views = manager.views(entries, projectDir)
    if (json) context.print(JSON.stringify(views, null, 2))
    else if (views.length === 0)
      context.print('no MCP servers (add "mcpServers" to config.json or a project .mcp.json)')
    else for (const view of views) printServer(view, context)
    return 0
  } finally {
    await manager.stopAll()
  }
}

async function test(
  entry: McpServerEntry,
  projectDir: string,
  context: CommandContext,
): Promise<number> {
  if (entry.off) {
    context.print(`${entry.name}: ${entry.off.state}: ${entry.off.reason}`)
    return 1
  }
  const manager = new McpManager({ env: launchEnvironment(), clientVersion: context.version })
  try {
    const server = manager.server(entry, projectDir)
    const started = await server.ensure().then(
      () => true,
      () => false,
    )
    const [view] = manager.views([entry], projectDir)
    if (view) printServer(view, context)
    if (!started && server.stderr.toString() !== '')
      context.print(`stderr:\n${server.stderr.toString().trimEnd()}`)
    return started ? 0 : 1
  } finally {
    await manager.stopAll()
  }
}

function printServer(view: McpServerView, context: CommandContext): void {
  context.print(
    `${view.name} (${view.scope}, ${view.transport}: ${view.target}): ${view.state}${view.reason ? `: ${view.reason}` : ''}`,
  )
  for (const tool of view.tools)
    context.print(
      `  ${tool.name}${tool.readOnly ? ' (read-only)' : ''}  ${firstLine(tool.description)}`,
    )
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}
