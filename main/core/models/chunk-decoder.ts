/**
 * Turns chat completion chunks, as the servers really send them, into stream parts. Chunks are
 * read as untyped JSON: the non-standard fields (`reasoning_content`, `reasoning`) live outside
 * the SDK's types, and a server's quirks must degrade into something the loop can handle rather
 * than an exception.
 *
 * Tool calls are assembled by the index the server gives them. A call starts once its name is
 * known (arguments that come first are held until then); a missing id is synthesised; a server
 * that reuses an index for a call with a different id gets a fresh index for the new call.
 *
 * Content goes through two filters: `<think>` tags (think-tags.ts) and, when the request offered
 * tools, calls written as text (text-call-stream.ts). Calls found in the text become ordinary
 * tool-call parts at the end of the reply, unless the server also sent structured calls: then
 * the text is left as it was written.
 */
import { randomUUID } from 'node:crypto'
import type { FinishReason } from '../../../protocol/events.js'
import { isRecord } from './model-errors.js'
import { TextCallStream } from './text-call-stream.js'
import { ThinkTagSplitter } from './think-tags.js'
import type { ContentPiece } from './think-tags.js'
import type { StreamPart, Usage } from './types.js'

/** The name given to a tool call whose name never arrived: no tool has it, so the tool layer answers "unknown tool". */
export const MISSING_TOOL_NAME = '<missing-name>'

export type DecodeResult =
  | {
      readonly parts: StreamPart[]
      /** The chunk carried content, usage or a finish reason (an empty keepalive does not). */
      readonly isContent: boolean
    }
  | { readonly malformed: string }

interface CallState {
  readonly index: number
  id?: string
  name?: string
  isStarted: boolean
  /** Arguments received before the name. */
  heldArgs: string
}

export interface DecoderOptions {
  /** Makes ids for calls the server sent without one (default `call_<index>_<random>`). */
  readonly newCallId?: (index: number) => string
  /** The tools the request offered: calls written as text are looked for only when there are some. */
  readonly toolNames?: ReadonlySet<string>
  /** Whether a lone `</think>` ends reasoning the template opened (default true). */
  readonly unopenedThink?: boolean
}

export class ChunkDecoder {
  private readonly think: ThinkTagSplitter
  private readonly newCallId: (index: number) => string
  private readonly toolNames: ReadonlySet<string>
  private textCalls: TextCallStream | undefined
  /** By the server's index; a reused index points at the latest call. */
  private readonly calls = new Map<number, CallState>()
  private readonly usedIndexes = new Set<number>()
  private lastCall: CallState | undefined
  private rawFinish: string | undefined
  private usage: Usage | undefined
  private streamed = false
  /** Whether calls were read from the reply's text (a fallback, or the text mode). */
  private hasTextCalls = false

  constructor(options: DecoderOptions = {}) {
    this.newCallId = options.newCallId ?? defaultCallId
    this.toolNames = options.toolNames ?? new Set()
    this.think = new ThinkTagSplitter({ unopened: options.unopenedThink ?? true })
    this.textCalls = this.toolNames.size > 0 ? new TextCallStream(this.toolNames) : undefined
  }

  /** Whether a text, reasoning or tool-call part has been produced. */
  get hasStreamed(): boolean {
    return this.streamed
  }

  get hasFinished(): boolean {
    return this.rawFinish !== undefined
  }

  /** The last usage the server reported (some report it cumulatively in every chunk). */
  get lastUsage(): Usage | undefined {
    return this.usage
  }

  push(chunk: unknown): DecodeResult {
    if (!isRecord(chunk)) return { malformed: 'a stream event is not a JSON object' }
    const parts: StreamPart[] = []
    let isContent = false

    const usage = chunk['usage']
    if (isRecord(usage)) {
      this.usage = toUsage(usage)
      isContent = true
    }

    const choices = chunk['choices']
    if (choices === undefined || choices === null) return { parts, isContent }
    if (!Array.isArray(choices)) return { malformed: 'a chunk has `choices` that is not a list' }
    const choice: unknown =
      choices.find((c: unknown) => isRecord(c) && c['index'] === 0) ?? choices[0]
    if (choice === undefined) return { parts, isContent }
    if (!isRecord(choice)) return { malformed: 'a chunk has a choice that is not an object' }

    const delta = choice['delta']
    if (isRecord(delta)) {
      // One field only: servers that send both carry the same text in each.
      const reasoning = nonEmpty(delta['reasoning_content']) ?? nonEmpty(delta['reasoning'])
      if (reasoning !== undefined) {
        isContent = true
        this.emit(parts, { type: 'reasoning', text: reasoning })
      }
      const content = nonEmpty(delta['content'])
      if (content !== undefined) {
        isContent = true
        this.pushContent(this.think.push(content), parts)
      }
      const refusal = nonEmpty(delta['refusal'])
      if (refusal !== undefined) {
        isContent = true
        this.emit(parts, { type: 'text', text: refusal })
      }
      const toolCalls = delta['tool_calls']
      if (Array.isArray(toolCalls)) {
        for (const call of toolCalls) {
          if (isRecord(call)) {
            isContent = true
            this.pushToolCall(call, parts)
          }
        }
      }
    }

    const finish = choice['finish_reason']
    if (typeof finish === 'string' && finish.length > 0) {
      this.rawFinish = finish
      isContent = true
    }
    return { parts, isContent }
  }

  /**
   * The stream ended normally: held-back content, and calls whose name never came (started
   * under MISSING_TOOL_NAME so their arguments are not silently lost).
   */
  end(): StreamPart[] {
    const parts: StreamPart[] = []
    this.pushContent(this.think.flush(), parts)
    for (const call of this.calls.values()) {
      if (!call.isStarted) {
        call.name = MISSING_TOOL_NAME
        this.startCall(call, parts)
      }
    }
    const textCalls = this.textCalls
    if (textCalls === undefined) return parts
    if (this.usedIndexes.size > 0) {
      // The server sent structured calls: text that looked like calls is just text.
      this.emitText(parts, textCalls.flush())
      return parts
    }
    for (const segment of textCalls.finish()) {
      if (segment.kind === 'text') {
        this.emitText(parts, segment.text)
        continue
      }
      if (!this.hasTextCalls) parts.push({ type: 'text-calls', format: segment.call.format })
      this.hasTextCalls = true
      const index = this.nextIndex()
      this.usedIndexes.add(index)
      const { name, args } = segment.call
      this.startCall({ index, name, isStarted: false, heldArgs: args }, parts)
    }
    return parts
  }

  /** The stream failed: held-back content only (a call without a name is dropped). */
  flushContent(): StreamPart[] {
    const parts: StreamPart[] = []
    this.pushContent(this.think.flush(), parts)
    this.emitText(parts, this.textCalls?.flush() ?? '')
    return parts
  }

  /** Content pieces from the think filter, text through the text-call filter. */
  private pushContent(pieces: readonly ContentPiece[], parts: StreamPart[]): void {
    for (const piece of pieces) {
      switch (piece.kind) {
        case 'reasoning':
          this.emit(parts, { type: 'reasoning', text: piece.text })
          break
        case 'text':
          this.emitText(parts, this.textCalls ? this.textCalls.push(piece.text) : piece.text)
          break
        case 'retract': {
          // What was shown (and held) as text was reasoning; the answer starts afresh.
          parts.push({ type: 'text-is-reasoning' })
          const held = this.textCalls?.flush() ?? ''
          if (held !== '') this.emit(parts, { type: 'reasoning', text: held })
          if (this.textCalls) this.textCalls = new TextCallStream(this.toolNames)
          break
        }
      }
    }
  }

  private emitText(parts: StreamPart[], text: string): void {
    if (text !== '') this.emit(parts, { type: 'text', text })
  }

  /**
   * The finish reason to report. Some servers (older llama.cpp and Ollama, some vLLM tool
   * parsers) say `stop` after emitting tool calls; the calls are what matters.
   */
  finishReason(): FinishReason {
    const reason = mapFinishReason(this.rawFinish ?? 'stop')
    return reason === 'stop' && this.usedIndexes.size > 0 ? 'tool-calls' : reason
  }

  private pushToolCall(raw: Record<string, unknown>, parts: StreamPart[]): void {
    const id = nonEmpty(raw['id'])
    const fn = isRecord(raw['function']) ? raw['function'] : {}
    const name = nonEmpty(fn['name'])
    const argsValue = fn['arguments']
    // Some servers send the arguments as an object rather than JSON text (ollama/ollama#6155).
    const args =
      typeof argsValue === 'string'
        ? argsValue
        : isRecord(argsValue) || Array.isArray(argsValue)
          ? JSON.stringify(argsValue)
          : ''

    const call = this.callFor(raw['index'], id)
    if (!call.isStarted) {
      call.id ??= id
      call.name ??= name
      call.heldArgs += args
      if (call.name !== undefined) this.startCall(call, parts)
    } else if (args.length > 0) {
      this.emit(parts, { type: 'tool-call-delta', index: call.index, argsDelta: args })
    }
  }

  private callFor(rawIndex: unknown, id: string | undefined): CallState {
    if (typeof rawIndex === 'number' && Number.isInteger(rawIndex) && rawIndex >= 0) {
      const existing = this.calls.get(rawIndex)
      // The same index with a different id is a new call (a server that numbers every call 0).
      if (
        existing !== undefined &&
        !(id !== undefined && existing.id !== undefined && id !== existing.id)
      ) {
        return existing
      }
      return this.newCall(rawIndex, this.usedIndexes.has(rawIndex) ? this.nextIndex() : rawIndex)
    }
    // No index at all: a new id starts a new call, anything else continues the last one.
    const last = this.lastCall
    if (last !== undefined && (id === undefined || id === last.id)) return last
    const index = this.nextIndex()
    return this.newCall(index, index)
  }

  private newCall(key: number, index: number): CallState {
    const call: CallState = { index, isStarted: false, heldArgs: '' }
    this.usedIndexes.add(index)
    this.calls.set(key, call)
    this.lastCall = call
    return call
  }

  private nextIndex(): number {
    let index = 0
    for (const used of this.usedIndexes) index = Math.max(index, used + 1)
    return index
  }

  private startCall(call: CallState, parts: StreamPart[]): void {
    call.isStarted = true
    call.id ??= this.newCallId(call.index)
    this.emit(parts, {
      type: 'tool-call-start',
      index: call.index,
      callId: call.id,
      name: call.name ?? MISSING_TOOL_NAME,
    })
    if (call.heldArgs.length > 0) {
      this.emit(parts, { type: 'tool-call-delta', index: call.index, argsDelta: call.heldArgs })
      call.heldArgs = ''
    }
  }

  private emit(parts: StreamPart[], part: StreamPart): void {
    this.streamed = true
    parts.push(part)
  }
}

export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    case 'length':
      return 'max-tokens'
    case 'content_filter':
      return 'content-filter'
    default:
      return 'other'
  }
}

function toUsage(raw: Record<string, unknown>): Usage {
  const completion = isRecord(raw['completion_tokens_details'])
    ? raw['completion_tokens_details']
    : {}
  const prompt = isRecord(raw['prompt_tokens_details']) ? raw['prompt_tokens_details'] : {}
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {}
  const input = count(raw['prompt_tokens'])
  const output = count(raw['completion_tokens'])
  const reasoning = count(completion['reasoning_tokens'])
  const cached = count(prompt['cached_tokens'])
  if (input !== undefined) usage.inputTokens = input
  if (output !== undefined) usage.outputTokens = output
  if (reasoning !== undefined) usage.reasoningTokens = reasoning
  if (cached !== undefined) usage.cachedInputTokens = cached
  return usage
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

function defaultCallId(index: number): string {
  return `call_${index}_${randomUUID().slice(0, 8)}`
}
