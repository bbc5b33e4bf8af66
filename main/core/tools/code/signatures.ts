/**
 * The tools as a program sees them, typed: one TypeScript signature a tool, made from the JSON
 * Schema the model is shown for it (`read(args: { path: string; offset?: number }): Promise<string>`),
 * so the model writes calls that validate. Schemas this does not follow become `unknown`.
 */
import { fullToolSpec } from '../model-schema.js'
import type { Tool } from '../types.js'

/** How deep nested schemas are spelled out before they become `unknown`. */
const MAX_DEPTH = 4

export function toolSignature(tool: Tool): string {
  const { parameters } = fullToolSpec(tool)
  const brief = tool.brief ?? tool.description.split('\n')[0] ?? ''
  return `// ${brief}\n${tool.name}(args: ${typeOf(parameters, 0)}): Promise<string>`
}

export function typeOf(schema: unknown, depth: number): string {
  if (!isRecord(schema) || depth > MAX_DEPTH) return 'unknown'
  const choices = schema['enum']
  if (Array.isArray(choices)) return (choices as unknown[]).map(literal).join(' | ') || 'never'
  if ('const' in schema) return literal(schema['const'])
  const union = schema['anyOf'] ?? schema['oneOf']
  if (Array.isArray(union))
    return (union as unknown[]).map((s) => typeOf(s, depth + 1)).join(' | ') || 'unknown'
  const type = schema['type']
  if (Array.isArray(type))
    return (type as unknown[]).map((t) => typeOf({ ...schema, type: t }, depth)).join(' | ')
  switch (type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array': {
      const item = typeOf(schema['items'], depth + 1)
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`
    }
    case 'object':
      return objectType(schema, depth)
    default:
      return isRecord(schema['properties']) ? objectType(schema, depth) : 'unknown'
  }
}

function objectType(schema: Record<string, unknown>, depth: number): string {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {}
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : [])
  const fields = Object.entries(properties).map(([name, field]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)
    // A field with a default may be left out, whatever `required` says.
    const isOptional = !required.has(name) || (isRecord(field) && 'default' in field)
    return `${key}${isOptional ? '?' : ''}: ${typeOf(field, depth + 1)}`
  })
  if (fields.length === 0) return 'Record<string, unknown>'
  return `{ ${fields.join('; ')} }`
}

const literal = (value: unknown): string => JSON.stringify(value)

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
