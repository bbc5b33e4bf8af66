import type { Disposer } from '../kernel/index.js'
import type { Tool } from './types.js'

export interface ToolFilter {
  /** When set, only these inherited tools are visible. */
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
}

/**
 * Tools by name, registered globally or for one scope (a session or an agent), each returning a
 * disposer. `view(scope)` resolves what a step may use: the global tools, then the scope's own
 * additions (which win on a name clash), with the scope's allow/deny filter applied to the
 * inherited tools only: a tool registered in the scope itself is never filtered away.
 *
 * The list is part of every request's cached prefix: the tools sort by name, and tools that come
 * and go while a session runs (an MCP server's) are registered with `late` and follow them in the
 * order they came, so a new one changes only the end of the list.
 */
export class ToolRegistry {
  private readonly global = new Map<string, Tool>()
  private readonly scoped = new Map<string, Map<string, Tool>>()
  private readonly filters = new Map<string, ToolFilter>()
  private readonly late = new WeakSet<Tool>()

  register(tool: Tool, opts: { scope?: string; late?: boolean } = {}): Disposer {
    const table = opts.scope === undefined ? this.global : this.scopeTable(opts.scope)
    if (table.has(tool.name)) {
      throw new Error(
        `a tool named "${tool.name}" is already registered${opts.scope ? ` in scope ${opts.scope}` : ''}`,
      )
    }
    table.set(tool.name, tool)
    if (opts.late === true) this.late.add(tool)
    return () => {
      if (table.get(tool.name) === tool) table.delete(tool.name)
    }
  }

  setFilter(scope: string, filter: ToolFilter): Disposer {
    this.filters.set(scope, filter)
    return () => {
      if (this.filters.get(scope) === filter) this.filters.delete(scope)
    }
  }

  /** Whether a tool of this name is visible in `scope` (or registered globally). */
  has(name: string, scope?: string): boolean {
    return (
      this.global.has(name) || (scope !== undefined && this.scoped.get(scope)?.has(name) === true)
    )
  }

  /**
   * The tools of `scope`, sorted by name so the request's tool list is byte-stable; late tools
   * after them, in the order they were registered.
   */
  view(scope?: string): Tool[] {
    const filter = scope === undefined ? undefined : this.filters.get(scope)
    const visible = new Map<string, Tool>()
    for (const [name, tool] of this.global) {
      if (filter?.allow && !filter.allow.includes(name)) continue
      if (filter?.deny?.includes(name)) continue
      visible.set(name, tool)
    }
    for (const [name, tool] of scope === undefined ? [] : (this.scoped.get(scope) ?? []))
      visible.set(name, tool)
    const all = [...visible.values()]
    const sorted = all
      .filter((tool) => !this.late.has(tool))
      .sort((a, b) => a.name.localeCompare(b.name))
    return [...sorted, ...all.filter((tool) => this.late.has(tool))]
  }

  private scopeTable(scope: string): Map<string, Tool> {
    let table = this.scoped.get(scope)
    if (!table) {
      table = new Map()
      this.scoped.set(scope, table)
    }
    return table
  }
}
