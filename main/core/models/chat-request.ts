/**
 * ModelRequest -> the body of `POST /chat/completions`. Pure, so the mapping is tested without a
 * server; the recorded request bodies of the scripted server check it end to end.
 */
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions'
import type { Message } from '../log/messages.js'
import type { ModelRequest } from './types.js'

export function toChatCompletionParams(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const { params } = request
  return {
    model: request.model,
    messages: request.messages.map(toWireMessage),
    ...(request.tools.length === 0 ? {} : { tools: request.tools.map(toWireTool) }),
    stream: true,
    stream_options: { include_usage: true },
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
 * Reasoning blocks are not sent back: most OpenAI-compatible servers reject or ignore an
 * assistant `reasoning_content`, and chat templates (Qwen3, DeepSeek-R1) drop earlier reasoning
 * anyway. So the model sees its earlier answers without their reasoning.
 */
export function toWireMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content }
    case 'user':
      return { role: 'user', content: message.content }
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: message.content }
    case 'assistant': {
      const texts: string[] = []
      const calls: {
        id: string
        type: 'function'
        function: { name: string; arguments: string }
      }[] = []
      for (const block of message.blocks) {
        if (block.type === 'text') texts.push(block.text)
        else if (block.type === 'tool-call') {
          calls.push({
            id: block.callId,
            type: 'function',
            function: { name: block.name, arguments: block.args },
          })
        }
      }
      if (calls.length === 0) {
        // Servers reject an assistant message with neither content nor tool calls.
        return { role: 'assistant', content: texts.join('') }
      }
      return {
        role: 'assistant',
        content: texts.length === 0 ? null : texts.join(''),
        tool_calls: calls,
      }
    }
  }
}
