import type { Message } from '../../../main/core/log/messages.js'
import type {
  ModelAdapter,
  ModelError,
  ModelRequest,
  StreamPart,
  Usage,
} from '../../../main/core/models/types.js'

export function userRequest(text = 'hello', overrides: Partial<ModelRequest> = {}): ModelRequest {
  const messages: Message[] = [{ role: 'user', content: text, seq: 1, kind: 'input' }]
  return { model: 'scripted', messages, tools: [], params: {}, ...overrides }
}

export async function collect(
  adapter: ModelAdapter,
  request: ModelRequest = userRequest(),
  signal: AbortSignal = new AbortController().signal,
): Promise<StreamPart[]> {
  const parts: StreamPart[] = []
  for await (const part of adapter.stream(request, signal)) parts.push(part)
  return parts
}

export interface AssembledCall {
  readonly index: number
  readonly callId: string
  readonly name: string
  readonly args: string
}

export interface Assembled {
  readonly text: string
  readonly reasoning: string
  readonly calls: AssembledCall[]
  readonly usage?: Usage
  readonly finish?: string
  readonly error?: ModelError
  readonly hasStreamed?: boolean
  /** The format of calls read from the text, when they were. */
  readonly textCalls?: string
}

/**
 * Assembles parts the way the loop will, checking the stream's own rules on the way: one
 * terminal part, last; deltas only for started calls; usage before finish.
 */
export function assemble(parts: readonly StreamPart[]): Assembled {
  let text = ''
  let reasoning = ''
  const calls = new Map<number, { index: number; callId: string; name: string; args: string }>()
  let usage: Usage | undefined
  let finish: string | undefined
  let error: ModelError | undefined
  let hasStreamed: boolean | undefined
  let textCalls: string | undefined
  parts.forEach((part, at) => {
    const isLast = at === parts.length - 1
    switch (part.type) {
      case 'text':
        text += part.text
        break
      case 'reasoning':
        reasoning += part.text
        break
      case 'tool-call-start':
        if (calls.has(part.index)) throw new Error(`call ${part.index} started twice`)
        calls.set(part.index, { index: part.index, callId: part.callId, name: part.name, args: '' })
        break
      case 'tool-call-delta': {
        const call = calls.get(part.index)
        if (call === undefined) throw new Error(`delta for call ${part.index} before its start`)
        call.args += part.argsDelta
        break
      }
      case 'text-is-reasoning':
        reasoning += text
        text = ''
        break
      case 'text-calls':
        textCalls = part.format
        break
      case 'usage':
        usage = part.usage
        break
      case 'finish':
        if (!isLast) throw new Error('finish is not the last part')
        finish = part.reason
        break
      case 'error':
        if (!isLast) throw new Error('error is not the last part')
        error = part.error
        hasStreamed = part.hasStreamed
        break
    }
  })
  const last = parts.at(-1)
  if (last?.type !== 'finish' && last?.type !== 'error') throw new Error('no terminal part')
  return {
    text,
    reasoning,
    calls: [...calls.values()].sort((a, b) => a.index - b.index),
    ...(usage === undefined ? {} : { usage }),
    ...(finish === undefined ? {} : { finish }),
    ...(error === undefined ? {} : { error }),
    ...(hasStreamed === undefined ? {} : { hasStreamed }),
    ...(textCalls === undefined ? {} : { textCalls }),
  }
}

/** The last part, which must be an error. */
export function errorOf(parts: readonly StreamPart[]): { error: ModelError; hasStreamed: boolean } {
  const last = parts.at(-1)
  if (last?.type !== 'error') throw new Error(`expected an error part, got ${JSON.stringify(last)}`)
  if (parts.filter((p) => p.type === 'error' || p.type === 'finish').length !== 1) {
    throw new Error('more than one terminal part')
  }
  return { error: last.error, hasStreamed: last.hasStreamed }
}

/** A fetch that counts the body reads of each response (to prove a split reached the client). */
export function countingFetch(): { fetch: typeof fetch; reads: () => number; bytes: () => number } {
  let reads = 0
  let bytes = 0
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (response.body === null) return response
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        reads++
        bytes += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      headers: response.headers,
    })
  }
  return { fetch: counting, reads: () => reads, bytes: () => bytes }
}
