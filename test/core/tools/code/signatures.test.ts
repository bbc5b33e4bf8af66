import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { builtinTools } from '../../../../main/core/tools/builtin/index.js'
import { toolSignature, typeOf } from '../../../../main/core/tools/code/signatures.js'
import { codeModeSection } from '../../../../main/core/prompt/code-mode.js'
import { createPromptSections } from '../../../../main/core/prompt/builtin.js'
import { defineTool } from '../../../../main/core/tools/types.js'

describe('typed signatures for code mode', () => {
  it('types a built-in tool from its schema: required, optional and defaulted fields', () => {
    const read = builtinTools({}).find((tool) => tool.name === 'read')
    expect(read).toBeDefined()
    const signature = toolSignature(read as NonNullable<typeof read>)
    expect(signature).toMatch(/^\/\/ .+\nread\(args: \{ path: string; .*\}\): Promise<string>$/)
    expect(signature).toMatch(/offset\?: number/)
  })

  it('spells enums, arrays, unions, nested objects and odd names', () => {
    const tool = defineTool({
      name: 'odd',
      description: 'An odd tool.\nMore.',
      schema: z.object({
        mode: z.enum(['a', 'b']),
        paths: z.array(z.string()),
        pairs: z.array(z.object({ k: z.string() })).optional(),
        either: z.union([z.string(), z.number()]),
        'with-dash': z.boolean().default(false),
      }),
      kind: 'read',
      run: () => Promise.resolve({ output: '' }),
    })
    expect(toolSignature(tool)).toBe(
      '// An odd tool.\nodd(args: { mode: "a" | "b"; paths: string[]; pairs?: Array<{ k: string }>; either: string | number; "with-dash"?: boolean }): Promise<string>',
    )
    expect(typeOf({ type: ['string', 'null'] }, 0)).toBe('string | null')
    expect(typeOf({}, 0)).toBe('unknown')
  })

  it('is in the system prompt only when code mode is on', async () => {
    const off = await createPromptSections({
      projectDir: '/nowhere',
      platform: 'linux',
      toolNames: [],
    })
    expect(off.assemble().map((s) => s.name)).not.toContain('code-mode')
    const on = await createPromptSections({
      projectDir: '/nowhere',
      platform: 'linux',
      toolNames: [],
      codeSignatures: ['read(args: { path: string }): Promise<string>'],
    })
    const section = on.assemble().find((s) => s.name === 'code-mode')
    expect(section?.text).toContain('read(args: { path: string }): Promise<string>')
    expect(section?.text).toBe(
      codeModeSection(['read(args: { path: string }): Promise<string>']).text,
    )
  })
})
