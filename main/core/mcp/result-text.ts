/**
 * What a tool call, a prompt or a resource gave back, as text for the model: text as it is,
 * embedded text resources with their address, images, audio and binary as a line saying what
 * they were (never pasted: most servers behind an OpenAI-compatible API cannot take them in a
 * tool result), structured content as JSON when there is nothing else.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

export function resultText(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const parts: string[] = []
  for (const item of result.content) {
    switch (item.type) {
      case 'text':
        parts.push(item.text)
        break
      case 'image':
      case 'audio':
        parts.push(`[${item.type} ${item.mimeType}, ${kb(base64Bytes(item.data))}, not shown]`)
        break
      case 'resource_link':
        parts.push(`[resource ${item.name}: ${item.uri}]`)
        break
      case 'resource': {
        const resource = item.resource
        parts.push(
          'text' in resource && typeof resource.text === 'string'
            ? `[resource ${resource.uri}]\n${resource.text}`
            : `[resource ${resource.uri}, ${resource.mimeType ?? 'binary'}, not shown]`,
        )
        break
      }
      default:
        parts.push(`[${(item as { type: string }).type} content, not shown]`)
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent, null, 2)
  return parts.join('\n')
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4)
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`
}
