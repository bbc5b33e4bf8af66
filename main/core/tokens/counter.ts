/**
 * Counts what a request costs in tokens: exactly where we ship the model's tokenizer, estimated
 * (and calibrated against the server) elsewhere. A counter caches per message, so re-deriving
 * a long history on every step only pays for the new messages.
 */
import type { Message } from '../log/messages.js'
import type { ToolSpec } from '../models/types.js'
import type { Calibration } from './calibration.js'
import { encodingForModel, loadEncoding } from './encodings.js'
import type { EncodingName } from './encodings.js'
import { estimateTokens } from './estimate.js'
import { imageTokens } from './images.js'

/**
 * Framing a chat template adds around each message (ChatML's `<|im_start|>role\n` ...
 * `<|im_end|>`, Llama 3's headers, OpenAI's documented 3-4): a typical middle.
 */
export const MESSAGE_OVERHEAD = 4
/** Framing around one tool call in an assistant message (`<tool_call>`, name and arguments keys). */
export const TOOL_CALL_OVERHEAD = 8
/** The tool list's preamble in the system turn, beyond the schemas themselves. */
export const TOOLS_OVERHEAD = 10
/** The assistant header that primes the reply (OpenAI counts 3). */
export const REPLY_OVERHEAD = 3

/** Texts shorter than this are recounted rather than cached: counting them is cheaper. */
const CACHE_MIN_CHARS = 256
/** The text cache's bound, in UTF-16 code units (about 16 MB). */
const CACHE_MAX_CHARS = 8_000_000

export interface MessageCount {
  /** The whole prompt: `system + tools + history` plus the reply header. */
  readonly total: number
  /** System messages, with their framing. */
  readonly system: number
  /** The tool schemas, counted as their JSON. */
  readonly tools: number
  /** Every other message, with its framing. */
  readonly history: number
  /** One count per message, in order, framing included. */
  readonly perMessage: readonly number[]
  /** `total` before calibration: what `Calibration.observe` wants beside the server's figure. */
  readonly uncalibrated: number
}

export interface TokenCounter {
  readonly model: string
  /** `exact`: the model's own BPE encoding; `estimate`: the character-class heuristic. */
  readonly kind: 'exact' | 'estimate'
  readonly encoding: EncodingName | null
  /** Tokens of `text` alone, without message framing; calibrated when an estimate. */
  count(text: string): number
  /** Tokens of a request's prompt. Reasoning blocks are left out: they are not sent back. */
  countMessages(messages: readonly Message[], tools?: readonly ToolSpec[]): MessageCount
}

export interface TokenCounterOptions {
  /** Scales estimates by the model's learnt ratio, read at each count; exact counts ignore it. */
  readonly calibration?: Calibration
}

/** How raw text is counted: the seam tests use to see what the caches save. */
export interface TextTokenizer {
  readonly kind: 'exact' | 'estimate'
  readonly encoding: EncodingName | null
  readonly countText: (text: string) => number
}

/** The tokenizer for `model`: its bundled encoding (loaded on first count), else the estimate. */
export function textTokenizerFor(model: string): TextTokenizer {
  const encoding = encodingForModel(model)
  if (encoding === null) return { kind: 'estimate', encoding: null, countText: estimateTokens }
  let count: ((text: string) => number) | undefined
  return {
    kind: 'exact',
    encoding,
    countText: (text) => (count ??= loadEncoding(encoding))(text),
  }
}

/**
 * A counter for `model`. Its caches live in the counter, so keep one per session (or model)
 * rather than making one per request.
 */
export function tokenCounter(model: string, options: TokenCounterOptions = {}): TokenCounter {
  return makeTokenCounter(model, textTokenizerFor(model), options)
}

export function makeTokenCounter(
  model: string,
  tokenizer: TextTokenizer,
  options: TokenCounterOptions = {},
): TokenCounter {
  const texts = new TextCache(tokenizer.countText)
  // Frozen messages (as `messageOf` makes them) never change, so the object is the key; the
  // history a step re-derives hands back the same objects.
  const byMessage = new WeakMap<Message, number>()
  const { calibration } = options
  const ratio = (): number =>
    tokenizer.kind === 'estimate' && calibration ? calibration.ratio(model) : 1

  const rawMessage = (message: Message): number => {
    const frozen = isDeeplyFrozen(message)
    const cached = frozen ? byMessage.get(message) : undefined
    if (cached !== undefined) return cached
    const tokens = MESSAGE_OVERHEAD + messageBody(message, texts, model)
    if (frozen) byMessage.set(message, tokens)
    return tokens
  }

  // The tools are the same specs step after step (built once, frozen): their count is kept
  // while the list holds the same objects in the same order.
  let countedTools: readonly ToolSpec[] = []
  let countedToolTokens = 0
  const rawToolsOf = (tools: readonly ToolSpec[]): number => {
    if (tools.length === 0) return 0
    const isSame =
      tools.length === countedTools.length &&
      tools.every((tool, i) => Object.isFrozen(tool) && tool === countedTools[i])
    if (!isSame) {
      countedTools = [...tools]
      countedToolTokens = TOOLS_OVERHEAD + texts.count(toolsJson(tools))
    }
    return countedToolTokens
  }

  return {
    model,
    kind: tokenizer.kind,
    encoding: tokenizer.encoding,
    count: (text) => Math.round(texts.count(text) * ratio()),
    countMessages(messages, tools = []) {
      const scale = ratio()
      const perMessage: number[] = []
      let system = 0
      let history = 0
      let uncalibrated = REPLY_OVERHEAD
      for (const message of messages) {
        const raw = rawMessage(message)
        uncalibrated += raw
        const tokens = Math.round(raw * scale)
        perMessage.push(tokens)
        if (message.role === 'system') system += tokens
        else history += tokens
      }
      const rawTools = rawToolsOf(tools)
      uncalibrated += rawTools
      const toolTokens = Math.round(rawTools * scale)
      return {
        total: system + toolTokens + history + Math.round(REPLY_OVERHEAD * scale),
        system,
        tools: toolTokens,
        history,
        perMessage,
        uncalibrated,
      }
    },
  }
}

/**
 * The tokens of a message's content as the wire carries it (see chat-request.ts); a user
 * message's images by their family's rule (images.ts).
 */
function messageBody(message: Message, texts: TextCache, model: string): number {
  switch (message.role) {
    case 'system':
    case 'tool':
      return texts.count(message.content)
    case 'user': {
      let images = 0
      for (const image of message.images ?? []) images += imageTokens(model, image)
      return texts.count(message.content) + images
    }
    case 'assistant': {
      let text = ''
      let calls = 0
      for (const block of message.blocks) {
        if (block.type === 'text') text += block.text
        else if (block.type === 'tool-call') {
          calls += TOOL_CALL_OVERHEAD + texts.count(block.name) + texts.count(block.args)
        }
      }
      return texts.count(text) + calls
    }
  }
}

/** The schemas as the model is shown them: one JSON object per tool. */
function toolsJson(tools: readonly ToolSpec[]): string {
  return tools
    .map((tool) =>
      JSON.stringify({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      }),
    )
    .join('\n')
}

/** `deepFreeze` freezes the blocks too; anything less might still change under the cache. */
function isDeeplyFrozen(message: Message): boolean {
  if (!Object.isFrozen(message)) return false
  return message.role !== 'assistant' || Object.isFrozen(message.blocks)
}

/**
 * Counts by content, least recently used first out, bounded in characters: a message rebuilt
 * as a new object (compaction counts node by node) or a system prompt re-sent each step is not
 * tokenized again.
 */
class TextCache {
  private readonly entries = new Map<string, number>()
  private chars = 0

  constructor(private readonly countText: (text: string) => number) {}

  count(text: string): number {
    if (text.length < CACHE_MIN_CHARS) return this.countText(text)
    const cached = this.entries.get(text)
    if (cached !== undefined) {
      this.entries.delete(text)
      this.entries.set(text, cached)
      return cached
    }
    const tokens = this.countText(text)
    if (text.length <= CACHE_MAX_CHARS) {
      this.entries.set(text, tokens)
      this.chars += text.length
      for (const oldest of this.entries.keys()) {
        if (this.chars <= CACHE_MAX_CHARS) break
        this.chars -= oldest.length
        this.entries.delete(oldest)
      }
    }
    return tokens
  }
}
