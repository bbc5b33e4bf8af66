/**
 * The MCP tools of one agent: before the first step of each turn, the session's servers that are
 * not running yet are started (those waiting after a failure are left to wait) and their tools
 * put in the agent's registry; a server's changed tool list is applied there as it comes, which
 * the next step's request picks up. A tool keeps its name and place for the agent's life;
 * changed and new tools go at the end of the list, so the cached prompt prefix moves as little
 * as it can. A server that cannot start is a notice, and the turn goes on without it.
 */
import type { Disposer } from '../kernel/index.js'
import type { ToolRegistry } from '../tools/registry.js'
import type { McpServerEntry } from './config.js'
import { PROJECT_MCP_FILE } from './config.js'
import type { McpManager } from './manager.js'
import type { McpServer, McpServerTool } from './server.js'
import { mcpTool, mcpToolName, uniqueName } from './tools.js'

export interface McpNotice {
  readonly level: 'info' | 'warning'
  readonly code: 'MCP_SERVER_FAILED' | 'MCP_PROJECT_UNTRUSTED'
  readonly message: string
}

export interface McpSessionToolsOptions {
  readonly manager: McpManager
  readonly entries: readonly McpServerEntry[]
  readonly projectDir: string
  readonly registry: ToolRegistry
}

interface Registered {
  readonly name: string
  readonly definition: string
  readonly dispose: Disposer
}

export class McpSessionTools {
  /** By server, then by the server's tool name. */
  private readonly registered = new Map<string, Map<string, Registered>>()
  /** Model-facing names given out, by `server\0tool`, kept when a tool comes back. */
  private readonly names = new Map<string, string>()
  private readonly watching = new Map<McpServer, () => void>()
  /** Servers whose failure this agent already told the session about. */
  private readonly told = new Set<string>()

  constructor(private readonly opts: McpSessionToolsOptions) {}

  /**
   * Starts what needs starting and registers the tools; resolves the notices the session should
   * log (a failed start, once per server until it starts; an untrusted project file, once).
   * Stops waiting for slow starts when `signal` aborts (they go on in the background).
   */
  async prepare(signal: AbortSignal): Promise<McpNotice[]> {
    const notices: McpNotice[] = []
    const untrusted = this.opts.entries.filter((entry) => entry.off?.state === 'untrusted')
    if (untrusted.length > 0 && !this.told.has('\0untrusted')) {
      this.told.add('\0untrusted')
      notices.push({
        level: 'info',
        code: 'MCP_PROJECT_UNTRUSTED',
        message: `This project's ${PROJECT_MCP_FILE} names MCP servers (${untrusted.map((e) => e.name).join(', ')}) that do not start until you trust the file: review it in Settings, MCP servers (or run bridle with --trust-project-mcp).`,
      })
    }
    const starts = this.opts.entries
      .filter((entry) => entry.off === undefined)
      .map(async (entry) => {
        const server = this.opts.manager.server(entry, this.opts.projectDir)
        this.watch(server)
        if (server.tools) this.sync(server, server.tools)
        if (server.state === 'running' || !server.mayStart) return
        try {
          await untilAborted(server.ensure(), signal)
          this.told.delete(server.name)
        } catch (error) {
          if (signal.aborted || this.told.has(server.name)) return
          this.told.add(server.name)
          notices.push({
            level: 'warning',
            code: 'MCP_SERVER_FAILED',
            message: `${error instanceof Error ? error.message : String(error)} This session goes on without its tools; it is tried again at a later turn.`,
          })
        }
      })
    await Promise.all(starts)
    return notices
  }

  /** Takes the agent's MCP tools out of its registry and stops listening to the servers. */
  dispose(): void {
    for (const stop of this.watching.values()) stop()
    this.watching.clear()
    for (const tools of this.registered.values())
      for (const entry of tools.values()) entry.dispose()
    this.registered.clear()
  }

  private watch(server: McpServer): void {
    if (this.watching.has(server)) return
    this.watching.set(
      server,
      server.onToolsChanged((tools) => this.sync(server, tools)),
    )
  }

  /** The registry's tools of `server` made equal to `tools`, touching only what changed. */
  private sync(server: McpServer, tools: readonly McpServerTool[]): void {
    const mine = this.registered.get(server.name) ?? new Map<string, Registered>()
    this.registered.set(server.name, mine)
    const wanted = new Map(tools.map((tool) => [tool.name, tool]))
    for (const [toolName, entry] of mine) {
      const tool = wanted.get(toolName)
      if (tool && JSON.stringify(tool) === entry.definition) continue
      entry.dispose()
      mine.delete(toolName)
    }
    for (const tool of tools) {
      if (mine.has(tool.name)) continue
      const name = this.nameFor(server.name, tool.name)
      const dispose = this.opts.registry.register(mcpTool({ name, server, tool }), { late: true })
      mine.set(tool.name, { name, definition: JSON.stringify(tool), dispose })
    }
  }

  private nameFor(server: string, tool: string): string {
    const key = `${server}\0${tool}`
    const known = this.names.get(key)
    if (known !== undefined) return known
    const given = new Set(this.names.values())
    const name = uniqueName(
      mcpToolName(server, tool),
      (candidate) => given.has(candidate) || this.opts.registry.has(candidate),
    )
    this.names.set(key, name)
    return name
  }
}

/** `promise`, or a rejection when `signal` aborts first (the work itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const stopped = () =>
    signal.reason instanceof Error ? signal.reason : new Error('the turn was stopped')
  if (signal.aborted) return Promise.reject(stopped())
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(stopped())
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error instanceof Error ? error : new Error(String(error)))
      },
    )
  })
}
