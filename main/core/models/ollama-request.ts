/**
 * ModelRequest -> the body of Ollama's native `POST /api/chat`, and its NDJSON reply lines ->
 * chunks in the OpenAI shape (so one decoder reads every server). Pure. The native API is used
 * because it is the only one that takes `options.num_ctx`: with it, the window Bridle plans for
 * is the window Ollama runs (its OpenAI-compatible endpoint silently drops `options`).
 *
 * Wire facts (ollama/ollama `api/types.go`, `server/routes.go`): tool calls carry their arguments
 * as a JSON object and come whole, in a `done: false` line or in the final one; thinking comes
 * in `message.thinking` (0.9+; inline `<think>` before); the final line has `done: true`,
 * `done_reason`, `prompt_eval_count` and `eval_count`; an error after the stream started is a
 * line `{"error": "..."}`. Tool results go back as `role: "tool"` with `tool_name`.
 */
import { DEFAULT_WIRE } from '../../../protocol/events.js'
import type { Message } from '../log/messages.js'
import { isRecord } from './model-errors.js'
import { textModeMessages } from './text-tools.js'
import type { ModelRequest } from './types.js'

interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string
  tool_calls?: { function: { name: string; arguments: Record<string, unknown> } }[]
  tool_name?: string
  images?: string[]
}

export function toOllamaChatBody(request: ModelRequest): Record<string, unknown> {
  const wire = request.wire ?? { ...DEFAULT_WIRE, api: 'ollama', streamUsage: false }
  const { params } = request
  const isText = wire.toolCalls === 'text'
  const hasTools = request.tools.length > 0
  const options: Record<string, unknown> = {
    ...(wire.numCtx === undefined ? {} : { num_ctx: wire.numCtx }),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(params.topP === undefined ? {} : { top_p: params.topP }),
    ...(params.maxTokens === undefined ? {} : { num_predict: params.maxTokens }),
    ...(params.stop === undefined ? {} : { stop: [...params.stop] }),
    ...(params.seed === undefined ? {} : { seed: params.seed }),
  }
  return {
    model: request.model,
    messages: isText
      ? textModeMessages(request.messages, request.tools).map(({ images, ...message }) =>
          images === undefined ? message : { ...message, images: images.map((i) => i.data) },
        )
      : nativeMessages(request.messages),
    ...(!hasTools || isText
      ? {}
      : {
          tools: request.tools.map((tool) => ({
            type: 'function',
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            },
          })),
        }),
    stream: !(wire.toolCalls === 'native-nonstream' && hasTools),
    ...(Object.keys(options).length === 0 ? {} : { options }),
  }
}

function nativeMessages(messages: readonly Message[]): OllamaMessage[] {
  const names = new Map<string, string>()
  return messages.map((message): OllamaMessage => {
    switch (message.role) {
      case 'system':
        return { role: message.role, content: message.content }
      case 'user':
        // Ollama's native API takes a message's images as bare base64 next to its text.
        return {
          role: message.role,
          content: message.content,
          ...(message.images === undefined
            ? {}
            : { images: message.images.map((image) => image.data) }),
        }
      case 'tool': {
        const name = names.get(message.callId)
        return {
          role: 'tool',
          content: message.content,
          ...(name === undefined ? {} : { tool_name: name }),
        }
      }
      case 'assistant': {
        const text: string[] = []
        const calls: NonNullable<OllamaMessage['tool_calls']> = []
        for (const block of message.blocks) {
          if (block.type === 'text') text.push(block.text)
          else if (block.type === 'tool-call') {
            names.set(block.callId, block.name)
            calls.push({ function: { name: block.name, arguments: objectArgs(block.args) } })
          }
        }
        return {
          role: 'assistant',
          content: text.join(''),
          ...(calls.length === 0 ? {} : { tool_calls: calls }),
        }
      }
    }
  })
}

/** Ollama wants arguments as an object; arguments that were not one went back to the model as an error already. */
function objectArgs(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args)
    return isRecord(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

/** An error line inside a started stream (`{"error": "..."}`). */
export class OllamaStreamError extends Error {
  constructor(readonly serverMessage: string) {
    super(serverMessage)
    this.name = 'OllamaStreamError'
  }
}

/**
 * A line of the native stream (or the whole non-streamed reply) as an OpenAI chunk: thinking as
 * `reasoning`, calls with an index each (`nextIndex` counts them across the stream), the final
 * line's `done_reason` and counts as the finish reason and usage. Throws OllamaStreamError for
 * an error line.
 */
export function ollamaLineToChunk(line: unknown, nextIndex: { value: number }): unknown {
  if (!isRecord(line)) return line
  const error = line['error']
  if (typeof error === 'string') throw new OllamaStreamError(error)
  if (isRecord(error)) {
    const said = error['message']
    throw new OllamaStreamError(typeof said === 'string' ? said : JSON.stringify(error))
  }
  const message = isRecord(line['message']) ? line['message'] : {}
  const delta: Record<string, unknown> = {}
  if (typeof message['content'] === 'string') delta['content'] = message['content']
  if (typeof message['thinking'] === 'string') delta['reasoning'] = message['thinking']
  if (Array.isArray(message['tool_calls'])) {
    delta['tool_calls'] = message['tool_calls'].map((call: unknown) => {
      const fn = isRecord(call) && isRecord(call['function']) ? call['function'] : {}
      const id = isRecord(call) && typeof call['id'] === 'string' ? call['id'] : undefined
      return {
        index: nextIndex.value++,
        ...(id === undefined ? {} : { id }),
        type: 'function',
        function: { name: fn['name'], arguments: fn['arguments'] ?? {} },
      }
    })
  }
  const isDone = line['done'] === true
  const reason = typeof line['done_reason'] === 'string' ? line['done_reason'] : 'stop'
  const chunk: Record<string, unknown> = {
    choices: [{ index: 0, delta, finish_reason: isDone ? reason : null }],
  }
  if (isDone) {
    const prompt = line['prompt_eval_count']
    const completion = line['eval_count']
    chunk['usage'] = {
      ...(typeof prompt === 'number' ? { prompt_tokens: prompt } : {}),
      ...(typeof completion === 'number' ? { completion_tokens: completion } : {}),
    }
  }
  return chunk
}
