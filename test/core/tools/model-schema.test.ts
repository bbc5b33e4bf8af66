import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { fullToolSpec, leanToolSpec } from '../../../main/core/tools/model-schema.js'
import { defineTool } from '../../../main/core/tools/types.js'
import type { Tool } from '../../../main/core/tools/types.js'

function toolWith(schema: z.ZodType, extra: Partial<Tool> = {}): Tool {
  return defineTool({
    name: 'note',
    description: 'Writes a note to the project. It keeps a history of notes.',
    kind: 'edit',
    schema,
    run: () => Promise.resolve({ output: '' }),
    ...extra,
  })
}

const NOTE = z
  .object({
    title: z.string().describe('The title of the note'),
    description: z.string().describe('The body of the note').optional(),
    mode: z.enum(['append', 'replace']).describe('How to write'),
    tags: z
      .array(z.object({ name: z.string().describe('A tag'), description: z.number() }).strict())
      .optional(),
  })
  .strict()

describe('fullToolSpec', () => {
  it('gives the JSON Schema of the input with descriptions, without the $schema line', () => {
    const spec = fullToolSpec(toolWith(NOTE))
    expect(spec.name).toBe('note')
    expect(spec.description).toBe('Writes a note to the project. It keeps a history of notes.')
    expect(spec.parameters).not.toHaveProperty('$schema')
    expect(spec.parameters).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['title', 'mode'],
      properties: {
        title: { type: 'string', description: 'The title of the note' },
        description: { type: 'string', description: 'The body of the note' },
        mode: { type: 'string', enum: ['append', 'replace'], description: 'How to write' },
      },
    })
  })

  it('describes the input, so an argument with a default is not required', () => {
    const spec = fullToolSpec(
      toolWith(z.object({ path: z.string(), limit: z.number().default(10) })),
    )
    expect(spec.parameters['required']).toEqual(['path'])
  })
})

describe('leanToolSpec', () => {
  it("uses the tool's brief", () => {
    expect(
      leanToolSpec(toolWith(NOTE, { brief: 'note(title, mode): write a note' })).description,
    ).toBe('note(title, mode): write a note')
  })

  it('falls back to the first sentence of the description, or all of it', () => {
    expect(leanToolSpec(toolWith(NOTE)).description).toBe('Writes a note to the project.')
    const oneLine = toolWith(NOTE, { description: 'Lists files in v1.2 of the tree' })
    expect(leanToolSpec(oneLine).description).toBe('Lists files in v1.2 of the tree')
  })

  it('drops descriptions and additionalProperties, keeping a property named description', () => {
    expect(leanToolSpec(toolWith(NOTE)).parameters).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        description: { type: 'string' },
        mode: { type: 'string', enum: ['append', 'replace'] },
        tags: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, description: { type: 'number' } },
            required: ['name', 'description'],
          },
        },
      },
      required: ['title', 'mode'],
    })
  })

  it('keeps what the full spec says apart from the descriptions', () => {
    const full = JSON.stringify(fullToolSpec(toolWith(NOTE)).parameters)
    const lean = JSON.stringify(leanToolSpec(toolWith(NOTE)).parameters)
    expect(lean.length).toBeLessThan(full.length)
    for (const kept of [
      '"enum":["append","replace"]',
      '"required":["title","mode"]',
      '"type":"array"',
    ]) {
      expect(lean).toContain(kept)
    }
  })

  // Bug: withoutDescriptions walks data values as if they were schemas, so a `default` (or
  // `const`, `examples`) object with a `description` key loses it: the model is told a wrong
  // default.
  it('keeps a default value that has a description key', () => {
    const schema = z.object({
      meta: z.object({ description: z.string() }).default({ description: 'none' }),
    })
    const meta = leanToolSpec(toolWith(schema)).parameters['properties'] as Record<
      string,
      Record<string, unknown>
    >
    expect(meta['meta']?.['default']).toEqual({ description: 'none' })
  })
})

describe('spec cache', () => {
  it("converts a tool's schema once and shares the frozen spec", () => {
    const tool = toolWith(NOTE)
    const full = fullToolSpec(tool)
    expect(fullToolSpec(tool)).toBe(full)
    expect(leanToolSpec(tool)).toBe(leanToolSpec(tool))
    expect(Object.isFrozen(full.parameters['properties'])).toBe(true)
    // Another tool object with the same schema gets its own spec.
    expect(fullToolSpec(toolWith(NOTE))).not.toBe(full)
  })

  it("leaves the tool's own JSON Schema and zod metadata unfrozen", () => {
    const parameters = { type: 'object', properties: { q: { type: 'string' } } }
    const examples = [{ description: 'an example' }]
    const fromServer = toolWith(z.object({}), { parameters })
    const withMeta = toolWith(z.object({ q: z.string().meta({ examples }) }))
    expect(fullToolSpec(fromServer).parameters).toEqual(parameters)
    expect(Object.isFrozen(parameters.properties)).toBe(false)
    expect(fullToolSpec(withMeta).parameters).toMatchObject({
      properties: { q: { examples: [{ description: 'an example' }] } },
    })
    expect(Object.isFrozen(examples)).toBe(false)
  })
})
