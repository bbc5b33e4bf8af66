/**
 * The app's MCP servers: one manager for the host (sessions in the same folder share a server),
 * the entries each session's agent gets, and the `mcp/*` methods settings use to show the
 * servers, trust a project's `.mcp.json`, turn a user server on or off, and restart one. Every
 * change of a server's state is told as `mcp/changed`.
 */
import type { McpListView } from '../../../protocol/mcp.js'
import { describeTarget, McpManager } from '../mcp/index.js'
import type { McpServerEntry } from '../mcp/index.js'
import { HostError } from './host.js'
import { projectMcp } from './mcp.js'
import { McpTrust } from './mcp-trust.js'
import type { HandlerGroup, HostContext, McpMethods, SettingsService } from './services.js'
import { resolveProjectDir } from './sessions/projects.js'
import { updateConfig } from './settings/config.js'

export interface McpService {
  /** What a session's agent in `projectDir` gets (servers off say why). */
  agentMcp(projectDir: string): { manager: McpManager; entries: readonly McpServerEntry[] }
  /** Counts trust changes, so idle agents are built again with the servers now trusted. */
  revision(): number
  /** Stops every server (process groups included). */
  close(): Promise<void>
}

export function createMcp(
  ctx: HostContext,
  settings: SettingsService,
  opts: { readonly env: NodeJS.ProcessEnv; readonly version: string },
): { service: McpService; handlers: HandlerGroup<McpMethods> } {
  const manager = new McpManager({ env: opts.env, clientVersion: opts.version })
  const trust = new McpTrust(ctx.home)
  let revision = 0
  let pending: NodeJS.Timeout | undefined
  // Many changes come together (a start lists tools too): one notification for a burst.
  manager.onChange(() => {
    pending ??= setTimeout(() => {
      pending = undefined
      ctx.notify('mcp/changed', {})
    }, 50)
  })
  const project = (projectDir: string) => projectMcp(settings.current(), projectDir, trust)

  const view = (projectDir: string): McpListView => {
    const { entries, file } = project(projectDir)
    return {
      projectDir,
      servers: manager.views(entries, projectDir),
      ...(file.kind === 'none'
        ? {}
        : {
            projectFile:
              file.kind === 'invalid'
                ? { path: file.path, state: 'invalid', reason: file.reason, servers: [] }
                : {
                    path: file.path,
                    state: trust.isTrusted(projectDir, file.sha256) ? 'trusted' : 'untrusted',
                    servers: Object.entries(file.servers).map(([name, config]) => ({
                      name,
                      target: describeTarget(config),
                    })),
                  },
          }),
    }
  }

  const entryOf = (projectDir: string, name: string): McpServerEntry => {
    const entry = project(projectDir).entries.find((e) => e.name === name)
    if (!entry) throw new HostError('NOT_FOUND', `there is no MCP server named "${name}"`)
    return entry
  }

  return {
    service: {
      agentMcp: (projectDir) => ({ manager, entries: project(projectDir).entries }),
      revision: () => revision,
      close: async () => {
        clearTimeout(pending)
        await manager.stopAll()
      },
    },
    handlers: {
      'mcp/list': ({ projectDir }) => view(resolveProjectDir(projectDir)),
      'mcp/trust': ({ projectDir, trust: wanted }) => {
        const dir = resolveProjectDir(projectDir)
        const { file } = project(dir)
        if (file.kind !== 'servers')
          throw new HostError('NOT_FOUND', `${dir} has no usable .mcp.json to trust`)
        if (wanted) trust.trust(dir, file.sha256)
        else {
          trust.revoke(dir)
          for (const entry of project(dir).entries)
            if (entry.scope === 'project') void manager.find(entry, dir)?.stop()
        }
        revision++
        return view(dir)
      },
      'mcp/setEnabled': async ({ projectDir, name, enabled }) => {
        const dir = resolveProjectDir(projectDir)
        const entry = entryOf(dir, name)
        if (entry.scope !== 'user')
          throw new HostError(
            'INVALID_PARAMS',
            `"${name}" comes from the project's .mcp.json: edit that file, or stop trusting it`,
          )
        if (!enabled) await manager.find(entry, dir)?.stop()
        updateConfig(ctx.home, (raw) => {
          const servers = { ...((raw.mcpServers ?? {}) as Record<string, Record<string, unknown>>) }
          const { enabled: _old, ...rest } = servers[name] ?? {}
          servers[name] = enabled ? rest : { ...rest, enabled: false }
          return { ...raw, mcpServers: servers }
        })
        return view(dir)
      },
      'mcp/restart': async ({ projectDir, name }) => {
        const dir = resolveProjectDir(projectDir)
        const entry = entryOf(dir, name)
        if (entry.off) throw new HostError('INVALID_PARAMS', `"${name}" is ${entry.off.reason}`)
        await manager
          .server(entry, dir)
          .restart()
          .catch(() => undefined)
        return view(dir)
      },
    },
  }
}
