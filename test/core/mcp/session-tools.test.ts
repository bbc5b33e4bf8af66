import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { McpManager, McpSessionTools, mcpToolName } from '../../../main/core/mcp/index.js'
import type { McpServerEntry } from '../../../main/core/mcp/index.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { defineTool } from '../../../main/core/tools/types.js'
import { fixtureServer } from '../../fixtures/mcp-server/index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function setup(entries: McpServerEntry[]) {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-mcp-session-'))
  const manager = new McpManager({ env: process.env, clientVersion: '0' })
  const registry = new ToolRegistry()
  registry.register(
    defineTool({
      name: 'read',
      description: 'built-in',
      kind: 'read',
      schema: z.object({}),
      run: () => Promise.resolve({ output: '' }),
    }),
  )
  const tools = new McpSessionTools({ manager, entries, projectDir: dir, registry })
  cleanups.push(async () => {
    tools.dispose()
    await manager.stopAll()
    rmSync(dir, { recursive: true, force: true })
  })
  return { manager, registry, tools, dir }
}

const names = (registry: ToolRegistry) => registry.view().map((tool) => tool.name)
const live = () => new AbortController().signal

describe("an agent's MCP tools", () => {
  it('registers the tools after the built-ins; a tool added at run time goes at the end', async () => {
    const entry: McpServerEntry = { name: 'fixture', scope: 'user', config: fixtureServer() }
    const { registry, tools, manager, dir } = setup([entry])
    expect(await tools.prepare(live())).toEqual([])
    const before = names(registry)
    expect(before[0]).toBe('read')
    expect(before).toContain('mcp__fixture__echo')
    await manager.server(entry, dir).call('grow', {}, live())
    await expect
      .poll(() => names(registry), { timeout: 10_000 })
      .toContain('mcp__fixture__late_tool')
    expect(names(registry)).toEqual([...before, 'mcp__fixture__late_tool'])
  })

  it('validates arguments against the server schema like a built-in', async () => {
    const entry: McpServerEntry = { name: 'fixture', scope: 'user', config: fixtureServer() }
    const { registry, tools } = setup([entry])
    await tools.prepare(live())
    const add = registry.view().find((tool) => tool.name === 'mcp__fixture__add')
    expect(add?.schema.safeParse({ a: 1, b: 2 }).success).toBe(true)
    expect(add?.schema.safeParse({ a: 'one', b: 2 }).success).toBe(false)
    expect(add?.kind).toBe('read')
    expect(add?.runsUnaskedFrom).toBe('auto-edit')
    const note = registry.view().find((tool) => tool.name === 'mcp__fixture__write_note')
    expect(note?.runsUnaskedFrom).toBe('full-auto')
  })

  it('tells about a server that cannot start once, and about an untrusted project file once', async () => {
    const { tools, registry } = setup([
      { name: 'broken', scope: 'user', config: fixtureServer({ flags: ['--fail-start'] }) },
      {
        name: 'notes',
        scope: 'project',
        config: fixtureServer(),
        off: { state: 'untrusted', reason: 'not trusted' },
      },
    ])
    const first = await tools.prepare(live())
    expect(first.map((n) => n.code).sort()).toEqual(['MCP_PROJECT_UNTRUSTED', 'MCP_SERVER_FAILED'])
    expect(first.find((n) => n.code === 'MCP_SERVER_FAILED')?.message).toMatch(
      /"broken" could not start.*FIXTURE_TOKEN is missing.*goes on without its tools/,
    )
    expect(await tools.prepare(live())).toEqual([])
    expect(names(registry)).toEqual(['read'])
  })
})

describe('MCP tool names', () => {
  it('keep [A-Za-z0-9_-], fit 64 characters, and stay apart when cut', () => {
    expect(mcpToolName('my server', 'read.file')).toBe('mcp__my_server__read_file')
    const long = mcpToolName('s', 'x'.repeat(100))
    expect(long).toHaveLength(64)
    expect(long).toMatch(/^mcp__s__x+_[0-9a-f]{8}$/)
    expect(mcpToolName('s', `${'x'.repeat(100)}a`)).not.toBe(long)
  })
})
