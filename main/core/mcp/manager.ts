/**
 * The MCP servers of this process (the app's host, or one CLI command): one `McpServer` per
 * configured server and project folder, shared by the sessions working there, so two sessions
 * do not start the same server twice. It stops them all on quit, process groups included.
 */
import type { McpServerView } from '../../../protocol/mcp.js'
import { describeTarget, transportOf } from './config.js'
import type { McpServerEntry } from './config.js'
import { McpServer } from './server.js'
import { mcpToolName, trimDescription } from './tools.js'

export interface McpManagerOptions {
  /** Where `${VAR}` values and a local server's PATH, HOME… come from. */
  readonly env: NodeJS.ProcessEnv
  readonly clientVersion: string
  /** A server without calls for this long is stopped (default 10 min). */
  readonly idleMs?: number
}

export class McpManager {
  private readonly byKey = new Map<string, McpServer>()
  private readonly listeners = new Set<() => void>()
  private readonly detach = new Map<McpServer, () => void>()
  /** Kills what is left if the process exits without `stopAll` (a second Ctrl+C, a crash path). */
  private readonly onExit = () => this.killAll()
  private isWatchingExit = false

  constructor(private readonly opts: McpManagerOptions) {}

  /** The server of `entry` in `projectDir`, created (not started) on first ask. */
  server(entry: McpServerEntry, projectDir: string): McpServer {
    const key = `${projectDir}\0${entry.scope}\0${entry.name}`
    const existing = this.byKey.get(key)
    if (existing && JSON.stringify(existing.config) === JSON.stringify(entry.config))
      return existing
    // Its configuration changed: the old one goes, the next use starts the new one.
    if (existing) this.retire(existing)
    const server = new McpServer({
      name: entry.name,
      config: entry.config,
      scope: entry.scope,
      projectDir,
      env: this.opts.env,
      clientVersion: this.opts.clientVersion,
      ...(this.opts.idleMs === undefined ? {} : { idleMs: this.opts.idleMs }),
    })
    this.byKey.set(key, server)
    if (!this.isWatchingExit) {
      this.isWatchingExit = true
      process.once('exit', this.onExit)
    }
    const offState = server.onStateChanged(() => this.changed())
    const offTools = server.onToolsChanged(() => this.changed())
    this.detach.set(server, () => {
      offState()
      offTools()
    })
    return server
  }

  /** The server of `entry` in `projectDir` if one was made, without making it. */
  find(entry: McpServerEntry, projectDir: string): McpServer | undefined {
    const found = this.byKey.get(`${projectDir}\0${entry.scope}\0${entry.name}`)
    return found && JSON.stringify(found.config) === JSON.stringify(entry.config)
      ? found
      : undefined
  }

  /** Told when any server starts, stops, fails or lists new tools. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** What settings and `bridle mcp list` show of a project's servers. */
  views(entries: readonly McpServerEntry[], projectDir: string): McpServerView[] {
    return entries.map((entry) => {
      const server = this.find(entry, projectDir)
      const reason = entry.off?.reason ?? server?.reason
      return {
        name: entry.name,
        scope: entry.scope,
        transport: transportOf(entry.config),
        target: describeTarget(entry.config),
        state: entry.off?.state ?? server?.state ?? 'stopped',
        ...(reason === undefined ? {} : { reason }),
        tools: (server?.tools ?? []).map((tool) => ({
          name: mcpToolName(entry.name, tool.name),
          serverTool: tool.name,
          description: trimDescription(tool.description),
          readOnly: tool.readOnly,
        })),
        stderr: server?.stderr.toString() ?? '',
      }
    })
  }

  /** Stops every server and waits for them (process groups included). */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.byKey.values()].map((server) => server.stop().catch(() => undefined)),
    )
    process.off('exit', this.onExit)
    this.isWatchingExit = false
  }

  /** Kills every local server's process group now, synchronously: the process is exiting. */
  killAll(): void {
    for (const server of this.byKey.values()) server.killNow()
  }

  private retire(server: McpServer): void {
    this.detach.get(server)?.()
    this.detach.delete(server)
    for (const [key, value] of this.byKey) if (value === server) this.byKey.delete(key)
    void server.stop().catch(() => undefined)
    this.changed()
  }

  private changed(): void {
    for (const listener of this.listeners) listener()
  }
}
