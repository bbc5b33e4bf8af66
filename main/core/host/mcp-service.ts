/**
 * The app's MCP servers: one manager for the host (sessions in the same folder share a server),
 * the entries each session's agent gets, and the `mcp/*` methods settings use to show the
 * servers, trust a project's `.mcp.json`, turn a user server on or off, and restart one. Every
 * change of a server's state is told as `mcp/changed`.
 */
import type { McpCatalogView, McpListView, McpProjectFileView } from '../../../protocol/mcp.js'
import { visibleText } from '../../../protocol/visible-text.js'
import { McpManager, mcpToolName } from '../mcp/index.js'
import type { McpServerEntry } from '../mcp/index.js'
import { HostError } from './host.js'
import { projectMcp } from './mcp.js'
import type { ProjectMcp } from './mcp.js'
import { hasHiddenCharacters, trustServerViews } from './mcp-trust-view.js'
import { McpTrust } from './mcp-trust.js'
import type { HandlerGroup, HostContext, McpMethods, SettingsService } from './services.js'
import { resolveProjectDir } from './sessions/projects.js'
import { updateConfig } from './settings/config.js'

export interface McpService {
  /** What a session's agent in `projectDir` gets (servers off say why). */
  agentMcp(projectDir: string): { manager: McpManager; entries: readonly McpServerEntry[] }
  /** A resource's text from a server of `projectDir` (for an attachment). */
  readResource(projectDir: string, server: string, uri: string): Promise<string>
  /**
   * Counts trust changes and changes of what a project's servers run (checked at each call), so
   * idle agents are built again with the servers as now trusted; a changed project's servers stop.
   */
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
  /** By project folder, the fingerprint its agents were last built with. */
  const built = new Map<string, string | undefined>()
  const stopProjectServers = (dir: string) => {
    for (const entry of project(dir).entries)
      if (entry.scope === 'project') void manager.find(entry, dir)?.stop()
  }

  const view = (projectDir: string): McpListView => {
    const mcp = project(projectDir)
    return {
      projectDir,
      servers: manager.views(mcp.entries, projectDir),
      ...(mcp.file.kind === 'none' ? {} : { projectFile: projectFileView(projectDir, mcp) }),
    }
  }
  const projectFileView = (
    projectDir: string,
    { file, fingerprint, trusted }: ProjectMcp,
  ): McpProjectFileView => {
    if (file.kind === 'none') throw new Error('no project file to show')
    if (file.kind === 'invalid')
      return {
        path: visibleText(file.path),
        state: 'invalid',
        reason: visibleText(file.reason),
        servers: [],
      }
    const changed = fingerprint && !trusted ? trust.changedFiles(projectDir, fingerprint) : []
    return {
      path: visibleText(file.path),
      state: trusted ? 'trusted' : 'untrusted',
      servers: trustServerViews(file.servers, fingerprint),
      ...(fingerprint === undefined ? {} : { fingerprint: fingerprint.sha256 }),
      ...(hasHiddenCharacters(file.servers) ? { hiddenCharacters: true } : {}),
      ...(changed.length > 0 ? { changed: changed.map(visibleText) } : {}),
    }
  }

  const entryOf = (projectDir: string, name: string): McpServerEntry => {
    const entry = project(projectDir).entries.find((e) => e.name === name)
    if (!entry) throw new HostError('NOT_FOUND', `there is no MCP server named "${name}"`)
    return entry
  }
  /** A server that may run, for a prompt or a resource; one that is off says why. */
  const runnable = (projectDir: string, name: string) => {
    const entry = entryOf(projectDir, name)
    if (entry.off)
      throw new HostError('INVALID_PARAMS', `the MCP server "${name}" is ${entry.off.reason}`)
    return manager.server(entry, projectDir)
  }
  const callFailed = (error: unknown) =>
    new HostError('MCP_FAILED', error instanceof Error ? error.message : String(error))

  const catalog = async (projectDir: string): Promise<McpCatalogView> => {
    const out: McpCatalogView = { prompts: [], resources: [], failures: [] }
    const entries = project(projectDir).entries.filter((entry) => entry.off === undefined)
    await Promise.all(
      entries.map(async (entry) => {
        const server = manager.server(entry, projectDir)
        try {
          const [prompts, resources] = await Promise.all([server.prompts(), server.resources()])
          for (const prompt of prompts)
            out.prompts.push({
              server: entry.name,
              command: `/${mcpToolName(entry.name, prompt.name)}`,
              ...prompt,
              arguments: [...prompt.arguments],
            })
          for (const resource of resources) out.resources.push({ server: entry.name, ...resource })
        } catch (error) {
          out.failures.push({
            server: entry.name,
            reason: error instanceof Error ? error.message : String(error),
          })
        }
      }),
    )
    return out
  }

  return {
    service: {
      agentMcp: (projectDir) => {
        const mcp = project(projectDir)
        built.set(projectDir, mcp.fingerprint?.sha256)
        return { manager, entries: mcp.entries }
      },
      readResource: async (projectDir, server, uri) =>
        (await runnable(projectDir, server).readResource(uri)).text,
      revision: () => {
        for (const [dir, was] of built) {
          const mcp = project(dir)
          if (mcp.fingerprint?.sha256 === was) continue
          // The file or what it runs changed (the agent's own write counts): agents are built
          // again, and servers no longer trusted stop, so no restart runs the changed code.
          built.set(dir, mcp.fingerprint?.sha256)
          revision++
          if (!mcp.trusted) stopProjectServers(dir)
        }
        return revision
      },
      close: async () => {
        clearTimeout(pending)
        await manager.stopAll()
      },
    },
    handlers: {
      'mcp/list': ({ projectDir }) => view(resolveProjectDir(projectDir)),
      'mcp/trust': ({ projectDir, trust: wanted, fingerprint: seen }) => {
        const dir = resolveProjectDir(projectDir)
        const { file, fingerprint } = project(dir)
        if (file.kind !== 'servers' || fingerprint === undefined)
          throw new HostError('NOT_FOUND', `${dir} has no usable .mcp.json to trust`)
        if (wanted && seen !== undefined && seen !== fingerprint.sha256)
          throw new HostError(
            'INVALID_PARAMS',
            "the project's MCP servers changed since they were shown (the .mcp.json or a file it runs): review them again before trusting them",
          )
        if (wanted) trust.trust(dir, fingerprint)
        else {
          trust.revoke(dir)
          stopProjectServers(dir)
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
      'mcp/catalog': ({ projectDir }) => catalog(resolveProjectDir(projectDir)),
      'mcp/prompt': async ({ projectDir, server, name, arguments: args }) => {
        const found = runnable(resolveProjectDir(projectDir), server)
        try {
          return { text: await found.prompt(name, args ?? {}) }
        } catch (error) {
          throw callFailed(error)
        }
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
