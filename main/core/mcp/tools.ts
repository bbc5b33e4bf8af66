/**
 * An MCP server's tools as Bridle tools: named `mcp__<server>__<tool>` (what the model may call,
 * at most 64 characters of `[A-Za-z0-9_-]`), the server's JSON Schema shown to the model as it
 * is and checked by zod like any built-in's, and each call going through the same pipeline
 * (approvals, guards, caps, spill, cancel). What comes back is made text: images and binary
 * resources are described, never pasted.
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { resultText } from './result-text.js'
import { ToolError } from '../tools/types.js'
import type { Tool, ToolOutput } from '../tools/types.js'
import { McpCallError } from './server.js'
import type { McpServer, McpServerTool } from './server.js'

export const MCP_PREFIX = 'mcp__'
const MAX_NAME = 64
/** Longer descriptions are cut: they cost tokens at every request. */
export const MAX_DESCRIPTION = 2000

/** `mcp__<server>__<tool>` with other characters as `_`, cut to 64 with a hash keeping it apart. */
export function mcpToolName(server: string, tool: string): string {
  const name = `${MCP_PREFIX}${safe(server)}__${safe(tool)}`
  if (name.length <= MAX_NAME) return name
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`
}

/** `name`, or with `_2`, `_3`… (cut to fit) when it is taken. */
export function uniqueName(name: string, taken: (name: string) => boolean): string {
  if (!taken(name)) return name
  for (let n = 2; ; n++) {
    const suffix = `_${n}`
    const candidate = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`
    if (!taken(candidate)) return candidate
  }
}

function safe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_')
}

export function trimDescription(text: string): string {
  const clean = text.trim()
  return clean.length <= MAX_DESCRIPTION ? clean : `${clean.slice(0, MAX_DESCRIPTION - 1)}…`
}

/** The server's input schema for the model: an object schema, without `$schema`. */
export function modelParameters(inputSchema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = inputSchema
  return schema.type === undefined ? { type: 'object', ...schema } : schema
}

/** A zod schema checking what the server's JSON Schema says; a schema zod cannot read checks that it is an object. */
export function argumentSchema(inputSchema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(modelParameters(inputSchema))
  } catch {
    return z.record(z.string(), z.unknown())
  }
}

export interface McpToolOptions {
  /** The name the model calls it by (unique in the session). */
  readonly name: string
  readonly server: McpServer
  readonly tool: McpServerTool
}

/**
 * A Bridle tool for one server tool. Approvals: asked by default; a tool the server marks
 * read-only (`readOnlyHint`) runs unasked from `auto-edit` on, and may run beside other safe
 * calls; every tool runs in `full-auto`. The result names the server in its metadata.
 */
export function mcpTool({ name, server, tool }: McpToolOptions): Tool {
  return {
    name,
    description: trimDescription(
      tool.description === ''
        ? `The tool "${tool.name}" of the MCP server "${server.name}".`
        : tool.description,
    ),
    schema: argumentSchema(tool.inputSchema),
    parameters: modelParameters(tool.inputSchema),
    kind: tool.readOnly ? 'read' : 'other',
    runsUnaskedFrom: tool.readOnly ? 'auto-edit' : 'full-auto',
    isConcurrencySafe: () => tool.readOnly,
    describe: (args) => `${server.name}: ${tool.name} ${clip(JSON.stringify(args ?? {}), 200)}`,
    mcp: { server: server.name, tool: tool.name },
    async run(args, ctx) {
      const metadata = { mcpServer: server.name, mcpTool: tool.name }
      let result: CallToolResult
      try {
        result = await server.call(tool.name, (args ?? {}) as Record<string, unknown>, ctx.signal)
      } catch (error) {
        if (error instanceof McpCallError) throw new ToolError(error.code, error.message)
        throw error
      }
      const output = resultText(result)
      if (result.isError === true)
        throw new ToolError(
          'MCP_TOOL_ERROR',
          `The MCP server "${server.name}" reports an error from "${tool.name}": ${output || '(no message)'}`,
        )
      return { output, metadata } satisfies ToolOutput
    },
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`
}
