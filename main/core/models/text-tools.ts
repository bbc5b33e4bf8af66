/**
 * The text tool-call mode: for a server that cannot take `tools` (llama.cpp without `--jinja`, an
 * Ollama model without tool support, vLLM without a tool parser), the tools are described in
 * the system prompt and the model writes its calls as `<tool_call>` blocks (the Hermes/Qwen
 * convention, the one most local models were trained on). The history goes back in the same
 * convention: calls as the blocks the model wrote, results as `<tool_response>` blocks in a user
 * message, since such a server has no tool role to render. Pure functions of the request, so
 * the body is rebuilt from the log like any other.
 */
import type { Message } from '../log/messages.js'
import type { ToolSpec } from './types.js'

/** The system prompt's addition: the calling convention, then one entry a tool. */
export function describeToolsAsText(tools: readonly ToolSpec[]): string {
  const entries = tools.map((tool) => `- ${signatureOf(tool)}\n  ${oneParagraph(tool.description)}`)
  return [
    '# Tool calls',
    'To use a tool, write a block exactly like this, with the arguments as a JSON object:',
    '<tool_call>',
    '{"name": "TOOL_NAME", "arguments": {"ARG": "value"}}',
    '</tool_call>',
    'Write one block a call (several blocks for several calls), then stop: the results come back in <tool_response> blocks. Without a block nothing runs.',
    '',
    '# Tools (name(arguments): what it does; ? marks an optional argument)',
    ...entries,
  ].join('\n')
}

/** `read(path: string, offset?: integer)`: the tool's arguments from its JSON Schema. */
export function signatureOf(tool: ToolSpec): string {
  const schema = tool.parameters
  const properties = isRecord(schema['properties']) ? schema['properties'] : {}
  const required = new Set(
    Array.isArray(schema['required'])
      ? schema['required'].filter((name) => typeof name === 'string')
      : [],
  )
  const args = Object.entries(properties).map(
    ([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${typeOf(property)}`,
  )
  return `${tool.name}(${args.join(', ')})`
}

function typeOf(property: unknown): string {
  if (!isRecord(property)) return 'any'
  const values = property['enum']
  if (Array.isArray(values)) return values.map((value) => JSON.stringify(value)).join(' | ')
  const anyOf = property['anyOf'] ?? property['oneOf']
  if (Array.isArray(anyOf)) return anyOf.map(typeOf).join(' | ')
  const type = property['type']
  if (type === 'array') return `${typeOf(property['items'])}[]`
  if (Array.isArray(type)) return type.join(' | ')
  return typeof type === 'string' ? type : 'any'
}

function oneParagraph(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** A wire message in the text mode: every role a plain chat template knows. */
export interface TextModeMessage {
  readonly role: 'system' | 'user' | 'assistant'
  readonly content: string
  /** A user message's images (merged messages keep them all, in order). */
  readonly images?: readonly { readonly mime: string; readonly data: string }[]
}

/**
 * The conversation for a server without tool support: the tools appended to the system prompt,
 * calls written back as `<tool_call>` blocks, results as `<tool_response>` blocks, and user
 * messages that would follow each other merged (strict templates demand alternation).
 */
export function textModeMessages(
  messages: readonly Message[],
  tools: readonly ToolSpec[],
): TextModeMessage[] {
  const out: {
    role: TextModeMessage['role']
    content: string
    images?: TextModeMessage['images']
  }[] = []
  const names = new Map<string, string>()
  const push = (
    role: TextModeMessage['role'],
    content: string,
    images?: TextModeMessage['images'],
  ): void => {
    const last = out.at(-1)
    if (role === 'user' && last?.role === 'user') {
      last.content += `\n\n${content}`
      if (images) last.images = [...(last.images ?? []), ...images]
    } else out.push({ role, content, ...(images ? { images } : {}) })
  }
  const toolText = tools.length === 0 ? '' : describeToolsAsText(tools)
  let hasSystem = false
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        hasSystem = true
        out.push({
          role: 'system',
          content: toolText === '' ? message.content : `${message.content}\n\n${toolText}`,
        })
        break
      case 'user':
        push('user', message.content, message.images)
        break
      case 'tool': {
        const name = names.get(message.callId)
        const head = name === undefined ? '' : `${JSON.stringify({ name })}\n`
        push('user', `<tool_response>\n${head}${message.content}\n</tool_response>`)
        break
      }
      case 'assistant': {
        const parts: string[] = []
        for (const block of message.blocks) {
          if (block.type === 'text') parts.push(block.text)
          else if (block.type === 'tool-call') {
            names.set(block.callId, block.name)
            parts.push(`<tool_call>\n${callJson(block.name, block.args)}\n</tool_call>`)
          }
        }
        push('assistant', parts.join('\n'))
        break
      }
    }
  }
  if (!hasSystem && toolText !== '') out.unshift({ role: 'system', content: toolText })
  return out
}

/** The call as the model should have written it; unreadable arguments go back as written. */
function callJson(name: string, args: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    parsed = args
  }
  return JSON.stringify({ name, arguments: parsed })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
