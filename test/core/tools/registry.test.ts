import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { defineTool } from '../../../main/core/tools/types.js'

const tool = (name: string) =>
  defineTool({
    name,
    description: name,
    kind: 'read',
    schema: z.object({}),
    run: () => Promise.resolve({ output: name }),
  })

describe('ToolRegistry', () => {
  it('gives a scope the global tools, its own additions, and filters only what it inherits', () => {
    const registry = new ToolRegistry()
    registry.register(tool('read'))
    registry.register(tool('bash'))
    const disposeOwn = registry.register(tool('deploy'), { scope: 's1' })
    registry.setFilter('s1', { deny: ['bash', 'deploy'] })
    expect(registry.view('s1').map((t) => t.name)).toEqual(['deploy', 'read'])
    expect(registry.view('s2').map((t) => t.name)).toEqual(['bash', 'read'])
    expect(registry.view().map((t) => t.name)).toEqual(['bash', 'read'])
    registry.setFilter('s2', { allow: ['read'] })
    expect(registry.view('s2').map((t) => t.name)).toEqual(['read'])
    disposeOwn()
    expect(registry.view('s1').map((t) => t.name)).toEqual(['read'])
  })

  it('refuses a second tool of the same name in one scope, and a disposer removes only its own', () => {
    const registry = new ToolRegistry()
    const dispose = registry.register(tool('read'))
    expect(() => registry.register(tool('read'))).toThrow('already registered')
    dispose()
    registry.register(tool('read'))
    dispose()
    expect(registry.view().map((t) => t.name)).toEqual(['read'])
  })
})
