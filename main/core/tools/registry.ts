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
 */
export class ToolRegistry {
  private readonly global = new Map<string, Tool>()
  private readonly scoped = new Map<string, Map<string, Tool>>()
  private readonly filters = new Map<string, ToolFilter>()

  register(tool: Tool, opts: { scope?: string } = {}): Disposer {
    const table = opts.scope === undefined ? this.global : this.scopeTable(opts.scope)
    if (table.has(tool.name)) {
      throw new Error(
        `a tool named "${tool.name}" is already registered${opts.scope ? ` in scope ${opts.scope}` : ''}`,
      )
    }
    table.set(tool.name, tool)
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

  /** The tools of `scope`, sorted by name so the request's tool list is byte-stable. */
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
    return [...visible.values()].sort((a, b) => a.name.localeCompare(b.name))
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
