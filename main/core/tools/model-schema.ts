/**
 * How a tool is shown to the model: its JSON Schema from zod (without the `$schema` line, which
 * only costs tokens), in full, or lean for small windows. The lean form is the tool's one-line
 * brief and a schema without property descriptions: it keeps names, types, enums and what is
 * required, which is what a model needs to make a valid call.
 */
import { z } from 'zod'
import { deepFreeze } from '../log/freeze.js'
import type { ToolSpec } from '../models/types.js'
import type { Tool } from './types.js'

/** Windows of this many tokens or fewer get the lean prompt and lean tools. */
export const LEAN_PROMPT_MAX_WINDOW = 8192

/** Tools left out of the lean set: they help, but a small window cannot afford them. */
export const LEAN_LEFT_OUT: ReadonlySet<string> = new Set(['present', 'recall', 'task'])

/**
 * Specs by tool, made once: a tool's fields are read-only, and converting its zod schema at every
 * step was most of a step's cost outside the store. Deep-frozen, because every request shares them.
 */
const fullSpecs = new WeakMap<Tool, ToolSpec>()
const leanSpecs = new WeakMap<Tool, ToolSpec>()

export function fullToolSpec(tool: Tool): ToolSpec {
  return specOf(fullSpecs, tool, () => ({
    name: tool.name,
    description: tool.description,
    parameters: jsonSchemaOf(tool),
  }))
}

export function leanToolSpec(tool: Tool): ToolSpec {
  return specOf(leanSpecs, tool, () => ({
    name: tool.name,
    description: tool.brief ?? firstSentence(tool.description),
    parameters: withoutDescriptions(fullToolSpec(tool).parameters) as Record<string, unknown>,
  }))
}

function specOf(cache: WeakMap<Tool, ToolSpec>, tool: Tool, make: () => ToolSpec): ToolSpec {
  let spec = cache.get(tool)
  if (spec === undefined) {
    spec = deepFreeze(make())
    cache.set(tool, spec)
  }
  return spec
}

/**
 * A copy nothing else shares (the conversion may hand back a schema's own metadata objects), so
 * that freezing the spec leaves the tool and its zod schema alone.
 */
function jsonSchemaOf(tool: Tool): Record<string, unknown> {
  if (tool.parameters !== undefined) return structuredClone({ ...tool.parameters })
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.schema, { io: 'input' })
  return structuredClone(schema)
}

/** Schema keywords whose values are data (a default, examples), never walked as schemas. */
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples'])

function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'description' || key === 'additionalProperties') continue
    if (DATA_KEYWORDS.has(key)) {
      out[key] = item
      continue
    }
    // `properties` maps names to schemas: a property called `description` is kept.
    out[key] =
      key === 'properties' && isRecord(item)
        ? Object.fromEntries(
            Object.entries(item).map(([name, schema]) => [name, withoutDescriptions(schema)]),
          )
        : withoutDescriptions(item)
  }
  return out
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function firstSentence(text: string): string {
  const end = text.search(/[.!?](\s|$)/)
  return end < 0 ? text : text.slice(0, end + 1)
}
