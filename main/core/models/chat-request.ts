/**
 * ModelRequest -> the body of `POST /chat/completions`, shaped by the request's wire settings
 * (the server's profile when it was logged). Pure, so the mapping is tested without a server and
 * the recorded request bodies of the scripted server check it end to end.
 */
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions'
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import type { WireSettings } from '../../../protocol/events.js'
import type { Message } from '../log/messages.js'
import { textModeMessages } from './text-tools.js'
import type { TextModeMessage } from './text-tools.js'
import type { ModelRequest } from './types.js'

/**
 * What DeepSeek accepts for an assistant tool-call message whose reasoning was not kept (an
 * empty string counts as missing there).
 */
export const REASONING_PLACEHOLDER = ' '

export function toChatCompletionParams(request: ModelRequest): ChatCompletionCreateParams {
  const wire = request.wire ?? DEFAULT_WIRE
  const { params } = request
  const isText = wire.toolCalls === 'text'
  const hasTools = request.tools.length > 0
  // A server that cannot stream calls gets the request whole; a request without tools streams.
  const stream = !(wire.toolCalls === 'native-nonstream' && hasTools)
  return {
    model: request.model,
    messages: isText
      ? textModeMessages(request.messages, request.tools).map(toTextModeWire)
      : request.messages.map((message) => toWireMessage(message, wire)),
    ...(!hasTools || isText ? {} : { tools: request.tools.map(toWireTool) }),
    stream,
    ...(stream && wire.streamUsage ? { stream_options: { include_usage: true } } : {}),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { top_p: params.topP }),
    // `max_tokens`, not `max_completion_tokens`: the local servers all accept it; OpenAI's
    // reasoning models want the other one, a known limit (see README).
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- see above
    ...(params.maxTokens === undefined ? {} : { max_tokens: params.maxTokens }),
    ...(params.stop === undefined ? {} : { stop: [...params.stop] }),
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- llama.cpp, vLLM and Ollama honour it
    ...(params.seed === undefined ? {} : { seed: params.seed }),
  }
}

/** A text-mode message: plain, except a user message's images as content parts. */
function toTextModeWire(message: TextModeMessage): ChatCompletionMessageParam {
  return message.role === 'user'
    ? userWireMessage(message.content, message.images)
    : { role: message.role, content: message.content }
}

/** A user message; images go as `image_url` parts after the text (files are in the text). */
function userWireMessage(
  content: string,
  images: readonly { readonly mime: string; readonly data: string }[] | undefined,
): ChatCompletionMessageParam {
  if (images === undefined) return { role: 'user', content }
  return {
    role: 'user',
    content: [
      { type: 'text', text: content },
      ...images.map((image) => ({
        type: 'image_url' as const,
        image_url: { url: `data:${image.mime};base64,${image.data}` },
      })),
    ],
  }
}

function toWireTool(tool: ModelRequest['tools'][number]): ChatCompletionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: { ...tool.parameters },
    },
  }
}

/**
 * One message in the OpenAI shape. Reasoning goes back only with `replayReasoning` (DeepSeek's
 * thinking mode wants the reasoning of tool-call turns back, and ignores the rest); elsewhere
 * it is left out: most servers reject or ignore an assistant `reasoning_content`, and chat
 * templates (Qwen3, DeepSeek-R1) drop earlier reasoning anyway.
 */
export function toWireMessage(
  message: Message,
  wire: WireSettings = DEFAULT_WIRE,
): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      return userWireMessage(message.content, message.images)
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: message.content }
    case 'assistant': {
      const texts: string[] = []
      const thoughts: string[] = []
      const calls: {
        id: string
        type: 'function'
        function: { name: string; arguments: string }
      }[] = []
      for (const block of message.blocks) {
        if (block.type === 'text') texts.push(block.text)
        else if (block.type === 'reasoning') thoughts.push(block.text)
        else {
          calls.push({
            id: block.callId,
            type: 'function',
            function: { name: block.name, arguments: block.args },
          })
        }
      }
      const reasoning = thoughts.join('')
      const replay =
        !wire.replayReasoning || (reasoning === '' && calls.length === 0)
          ? {}
          : { reasoning_content: reasoning === '' ? REASONING_PLACEHOLDER : reasoning }
      if (calls.length === 0) {
        // Servers reject an assistant message with neither content nor tool calls.
        return { role: 'assistant', content: texts.join(''), ...replay }
      }
      return {
        role: 'assistant',
        content: texts.length === 0 ? null : texts.join(''),
        tool_calls: calls,
        ...replay,
      }
    }
  }
}
