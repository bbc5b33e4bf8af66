/**
 * The capability probe (`bridle probe`, the "Test" button in settings): a few small real
 * requests that show how a model on a server behaves, read from the wire rather than assumed.
 *
 * 1. Calls: a one-tool request, streamed. Structured calls in the stream? Calls written as text?
 *    A refusal of `tools` (in the server's words)? Then, if the stream gave no structured call,
 *    the same request not streamed, and with the tool described in the prompt instead.
 * 2. Reasoning: which field carried it (`reasoning_content`, `reasoning`, Ollama's `thinking`),
 *    or `<think>` tags in the text, or only a closing `</think>`.
 * 3. `stream_options`: accepted, or refused (asked again without).
 * 4. Context: a word planted at the head of a long prompt, the question at its end; the prompt
 *    tokens the server reports against what was sent show whether it cut the start, and the
 *    model's answer whether it saw it.
 *
 * Never throws: a failed step is a line in the report.
 */
import type { ProbeReport } from '../../../../protocol/probe-report.js'
import { estimateTokens } from '../../tokens/estimate.js'
import { detectTruncation } from '../../tokens/window.js'
import type { ListModelsResult } from '../../models/discovery.js'
import { errorBodyText, httpPost, postThroughFetch } from '../../models/http-post.js'
import {
  classifyError,
  describeEndpoint,
  errorFromStatus,
  extractServerMessage,
  isRecord,
  modelError,
} from '../../models/model-errors.js'
import type { ErrorContext } from '../../models/model-errors.js'
import { ollamaRoot } from '../../models/ollama-native.js'
import {
  OllamaStreamError,
  ollamaLineToChunk,
  toOllamaChatBody,
} from '../../models/ollama-request.js'
import { toChatCompletionParams } from '../../models/chat-request.js'
import { chatSender } from '../../models/openai-compatible.js'
import type { ServerKind } from '../../models/profile.js'
import { contextWindowIn, recognizeRefusal } from '../../models/refusals.js'
import { parseTextCalls } from '../../models/text-calls.js'
import { describeToolsAsText } from '../../models/text-tools.js'
import type {
  EndpointConfig,
  ModelError,
  ModelInfo,
  ModelRequest,
  ToolSpec,
} from '../../models/types.js'

export type { ProbeReport }

/** The long prompt's default size: above the 2,048 and 4,096 that servers run by default. */
export const DEFAULT_CONTEXT_PROBE_TOKENS = 6_000
/** Each request of the probe may take this long (a local server may load the model first). */
export const DEFAULT_PROBE_TIMEOUT_MS = 180_000

const PROBE_TOOL: ToolSpec = {
  name: 'probe_echo',
  description: 'Echoes a word back. Call it when you are asked to.',
  parameters: {
    type: 'object',
    properties: { word: { type: 'string', description: 'The word to echo' } },
    required: ['word'],
  },
}
const SYSTEM = 'You are being tested. Follow the instruction exactly.'
const ASK_FOR_CALL = 'Call the probe_echo tool with word set to "kiwi". Do not answer in text.'

export interface ProbeOptions {
  readonly endpoint: EndpointConfig
  readonly model: string
  /** The API Bridle uses for this server (its profile). */
  readonly api: 'openai' | 'ollama'
  readonly kind: ServerKind
  /** The server's listing, for its version and the window it says it runs. */
  readonly listing?: ListModelsResult
  /** Ollama: the window Bridle asks for (num_ctx), when config sets one. */
  readonly numCtx?: number
  readonly contextTokens?: number
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
  readonly now?: () => number
  /** For tests: the fetch underneath. */
  readonly fetch?: typeof fetch
}

/** What one request showed. */
interface Observation {
  readonly error?: ModelError
  readonly calls: readonly { readonly name: string; readonly args: string }[]
  readonly content: string
  readonly reasoningField?: 'reasoning_content' | 'reasoning' | 'thinking'
  readonly promptTokens?: number
}

interface Wire {
  send(body: RequestShape): Promise<Observation>
}

interface RequestShape {
  readonly messages: readonly { role: 'system' | 'user'; content: string }[]
  readonly tools?: readonly ToolSpec[]
  readonly stream: boolean
  readonly streamUsage: boolean
  readonly maxTokens: number
}

export async function probeModel(opts: ProbeOptions): Promise<ProbeReport> {
  const now = opts.now ?? Date.now
  const started = performance.now()
  const probedAt = now()
  const wire = opts.api === 'ollama' ? ollamaWire(opts) : openAiWire(opts)
  const notes: string[] = []
  const listed = opts.listing?.ok === true ? opts.listing : undefined
  const info = listed?.models.find((m) => m.id === opts.model)

  const calls = await probeToolCalls(wire, opts, notes)
  // 4: the context actually honoured.
  const context = await probeContext(wire, opts, info, calls.usage, notes)

  return {
    baseUrl: opts.endpoint.baseUrl.replace(/\/+$/, ''),
    model: opts.model,
    kind: opts.kind,
    ...(listed?.serverVersion === undefined ? {} : { serverVersion: listed.serverVersion }),
    probedAt,
    durationMs: Math.round(performance.now() - started),
    api: opts.api,
    toolCalls: calls.toolCalls,
    reasoning: calls.reasoning,
    streamOptions: calls.streamOptions,
    context,
    notes,
  }
}

const ASK: RequestShape['messages'] = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: ASK_FOR_CALL },
]

/** What steps 1 to 3 showed, and whether later requests may ask for usage in the stream. */
interface CallsProbe {
  readonly toolCalls: ProbeReport['toolCalls']
  readonly reasoning: ProbeReport['reasoning']
  readonly streamOptions: ProbeReport['streamOptions']
  readonly usage: boolean
}

/** 1 to 3: how the model makes calls, which reasoning field it uses, and `stream_options`. */
async function probeToolCalls(
  wire: Wire,
  opts: ProbeOptions,
  notes: string[],
): Promise<CallsProbe> {
  const { streamed, streamOptions } = await sendStreamed(wire, opts)
  const usage = streamOptions === 'refused' ? false : opts.api === 'openai'
  const streamedOutcome = callOutcome(streamed)
  const serverSaid =
    streamedOutcome === 'refused'
      ? (streamed.error?.serverMessage ?? streamed.error?.message)
      : undefined
  const fallbacks = await sendFallbacks(wire, streamedOutcome, usage)
  const { nonStreamed, asText } = fallbacks
  const textFormat =
    (streamedOutcome === 'text' ? textFormatOf(streamed) : undefined) ?? fallbacks.textFormat
  if (streamedOutcome === 'none' && nonStreamed !== 'structured' && asText !== 'text') {
    notes.push('the model made no tool call in any form; it may not be able to use tools')
  }
  if (streamed.error && streamedOutcome === 'failed')
    notes.push(`the streamed request failed: ${streamed.error.message}`)
  // Reasoning is read from the first request the server answered.
  const answered = [streamed, ...fallbacks.answered]
  return {
    toolCalls: {
      streamed: streamedOutcome,
      nonStreamed,
      asText,
      ...(textFormat === undefined ? {} : { textFormat }),
      chosen: chosenCalls(streamedOutcome, nonStreamed, asText),
      ...(serverSaid === undefined ? {} : { serverSaid }),
    },
    reasoning: reasoningOf(answered.find((o) => o.error === undefined) ?? streamed),
    streamOptions,
    usage,
  }
}

/**
 * 1 and 3: the one-tool request, streamed, with `stream_options` where the API has them; when
 * the server refuses them, the same request again without.
 */
async function sendStreamed(
  wire: Wire,
  opts: ProbeOptions,
): Promise<{ streamed: Observation; streamOptions: ProbeReport['streamOptions'] }> {
  const shape = (streamUsage: boolean): RequestShape => ({
    messages: ASK,
    tools: [PROBE_TOOL],
    stream: true,
    streamUsage,
    maxTokens: 1024,
  })
  const streamed = await wire.send(shape(opts.api === 'openai'))
  if (streamed.error && recognizeRefusal(streamed.error.message) === 'stream-options') {
    return { streamed: await wire.send(shape(false)), streamOptions: 'refused' }
  }
  return { streamed, streamOptions: opts.api === 'openai' ? 'accepted' : 'not-applicable' }
}

interface Fallbacks {
  readonly nonStreamed: ProbeReport['toolCalls']['nonStreamed']
  readonly asText: ProbeReport['toolCalls']['asText']
  readonly textFormat: string | undefined
  /** The requests sent, in order. */
  readonly answered: readonly Observation[]
}

/**
 * When the stream gave no structured call: the same request not streamed (unless the server
 * refused `tools`), then with the tool described in the prompt instead.
 */
async function sendFallbacks(
  wire: Wire,
  streamedOutcome: ProbeReport['toolCalls']['streamed'],
  usage: boolean,
): Promise<Fallbacks> {
  if (streamedOutcome === 'structured') {
    return { nonStreamed: 'skipped', asText: 'skipped', textFormat: undefined, answered: [] }
  }
  const plain =
    streamedOutcome === 'refused'
      ? undefined
      : await wire.send({
          messages: ASK,
          tools: [PROBE_TOOL],
          stream: false,
          streamUsage: false,
          maxTokens: 1024,
        })
  const described = await wire.send({
    messages: [
      { role: 'system', content: `${SYSTEM}\n\n${describeToolsAsText([PROBE_TOOL])}` },
      { role: 'user', content: ASK_FOR_CALL },
    ],
    stream: true,
    streamUsage: usage,
    maxTokens: 1024,
  })
  const asText = callOutcome(described)
  return {
    nonStreamed: plain === undefined ? 'skipped' : callOutcome(plain),
    asText,
    textFormat: asText === 'text' ? textFormatOf(described) : undefined,
    answered: plain === undefined ? [described] : [plain, described],
  }
}

/** How Bridle should ask this model for calls, from the forms that worked. */
function chosenCalls(
  streamed: ProbeReport['toolCalls']['streamed'],
  nonStreamed: ProbeReport['toolCalls']['nonStreamed'],
  asText: ProbeReport['toolCalls']['asText'],
): ProbeReport['toolCalls']['chosen'] {
  if (streamed === 'structured' || streamed === 'text') return 'native'
  if (nonStreamed === 'structured') return 'native-nonstream'
  if (asText === 'text' || streamed === 'refused') return 'text'
  return 'native'
}

function callOutcome(observation: Observation): ProbeReport['toolCalls']['streamed'] {
  if (observation.error) {
    return recognizeRefusal(observation.error.message) === 'tools-unsupported'
      ? 'refused'
      : 'failed'
  }
  if (observation.calls.length > 0) return 'structured'
  return textFormatOf(observation) === undefined ? 'none' : 'text'
}

function textFormatOf(observation: Observation): string | undefined {
  const segments = parseTextCalls(answerOf(observation.content), new Set([PROBE_TOOL.name]))
  const call = segments?.find((segment) => segment.kind === 'call')
  return call?.kind === 'call' ? call.call.format : undefined
}

/** The content without a leading think block (or the reasoning before a lone `</think>`). */
function answerOf(content: string): string {
  const close = content.indexOf('</think>')
  return close >= 0 ? content.slice(close + '</think>'.length) : content
}

function reasoningOf(observation: Observation): ProbeReport['reasoning'] {
  if (observation.reasoningField !== undefined) return observation.reasoningField
  const content = observation.content.trimStart()
  if (content.startsWith('<think>')) return 'think-tags'
  if (content.includes('</think>')) return 'unopened-think'
  return 'none'
}

async function probeContext(
  wire: Wire,
  opts: ProbeOptions,
  info: ModelInfo | undefined,
  usage: boolean,
  notes: string[],
): Promise<ProbeReport['context']> {
  const window = opts.numCtx ?? info?.contextWindow
  const windowSource: ModelInfo['contextSource'] =
    opts.numCtx === undefined ? info?.contextSource : 'server'
  const base = {
    ...(window === undefined ? {} : { window }),
    ...(windowSource === undefined ? {} : { windowSource }),
    ...(info?.trainedContext === undefined ? {} : { trained: info.trainedContext }),
  }
  // Just under a window the server says it runs, when that is small; else above the defaults.
  const target =
    opts.contextTokens ??
    (window !== undefined &&
    windowSource === 'server' &&
    window * 0.9 < DEFAULT_CONTEXT_PROBE_TOKENS
      ? Math.floor(window * 0.9)
      : DEFAULT_CONTEXT_PROBE_TOKENS)
  const word = `marigold-${(opts.now ?? Date.now)() % 9973}`
  const prompt = longPrompt(word, target)
  const sent = estimateTokens(prompt) + 12
  const observation = await wire.send({
    messages: [{ role: 'user', content: prompt }],
    stream: true,
    streamUsage: usage,
    maxTokens: 256,
  })
  if (observation.error) {
    if (recognizeRefusal(observation.error.message) === 'context-overflow') {
      const honoured = contextWindowIn(observation.error.message)
      return {
        ...base,
        testedWith: sent,
        verdict: 'refused',
        ...(honoured === undefined ? {} : { honoured }),
        serverSaid: observation.error.serverMessage ?? observation.error.message,
      }
    }
    notes.push(`the long-prompt request failed: ${observation.error.message}`)
    return { ...base, testedWith: sent, verdict: 'untested' }
  }
  const sawHead = answerOf(observation.content).includes(word)
  const reported = observation.promptTokens
  if (reported === undefined) {
    notes.push(
      'the server reported no prompt tokens, so a cut prompt cannot be seen from its count',
    )
    return { ...base, testedWith: sent, verdict: 'untested', sawHead }
  }
  const cut = detectTruncation({ sent, reported })
  if (cut !== undefined || reported < 0.6 * sent) {
    return {
      ...base,
      testedWith: sent,
      reported,
      verdict: 'cut',
      honoured: cut?.honouredWindow ?? reported,
      sawHead,
    }
  }
  return { ...base, testedWith: sent, reported, verdict: 'fits', sawHead }
}

/** About `tokens` tokens: the word first, plain filler, the question last. */
function longPrompt(word: string, tokens: number): string {
  const head = `Remember this code word: ${word}. You will be asked for it at the end.\n\n`
  const question =
    '\n\nWhat was the code word given at the very start? Reply with the code word only.'
  const line =
    'The survey counted the trees along the river, noting the height and kind of each one.\n'
  const perLine = estimateTokens(line)
  const lines = Math.max(0, Math.ceil((tokens - estimateTokens(head + question)) / perLine))
  return head + line.repeat(lines) + question
}

// ---- The two wires -------------------------------------------------------------------------

/** The request as Bridle would build it: the same mapping the adapters use. */
function requestOf(
  opts: ProbeOptions,
  shape: RequestShape,
  api: 'openai' | 'ollama',
): ModelRequest {
  return {
    model: opts.model,
    messages: shape.messages.map((m, seq) =>
      m.role === 'system'
        ? { role: 'system', content: m.content, seq }
        : { role: 'user', content: m.content, seq, kind: 'input' },
    ),
    tools: shape.tools ?? [],
    params: { maxTokens: shape.maxTokens },
    wire: {
      api,
      toolCalls: shape.stream ? 'native' : 'native-nonstream',
      streamUsage: shape.streamUsage,
      replayReasoning: false,
      ...(opts.numCtx === undefined ? {} : { numCtx: opts.numCtx }),
    },
  }
}

/** What chunks in the OpenAI shape show: calls, text, which reasoning field, prompt tokens. */
class ChunkObserver {
  private readonly calls = new Map<number, { name: string; args: string }>()
  private content = ''
  private reasoningField: 'reasoning_content' | 'reasoning' | undefined
  private promptTokens: number | undefined

  take(chunk: unknown): void {
    if (!isRecord(chunk)) return
    const usage = chunk['usage']
    if (isRecord(usage) && typeof usage['prompt_tokens'] === 'number') {
      this.promptTokens = usage['prompt_tokens']
    }
    const choice: unknown = Array.isArray(chunk['choices']) ? chunk['choices'][0] : undefined
    const delta = isRecord(choice) ? (choice['delta'] ?? choice['message']) : undefined
    if (!isRecord(delta)) return
    if (typeof delta['content'] === 'string') this.content += delta['content']
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const value = delta[field]
      if (typeof value === 'string' && value !== '') this.reasoningField ??= field
    }
    const toolCalls = delta['tool_calls']
    if (!Array.isArray(toolCalls)) return
    toolCalls.forEach((call: unknown, i) => {
      if (!isRecord(call)) return
      const index = typeof call['index'] === 'number' ? call['index'] : i + this.calls.size
      const fn = isRecord(call['function']) ? call['function'] : {}
      const entry = this.calls.get(index) ?? { name: '', args: '' }
      if (typeof fn['name'] === 'string') entry.name ||= fn['name']
      const args = fn['arguments']
      if (typeof args === 'string') entry.args += args
      else if (isRecord(args)) entry.args += JSON.stringify(args)
      this.calls.set(index, entry)
    })
  }

  /** `thinking`: Ollama's field, which its lines carry as `reasoning` once made chunks. */
  observation(api: 'openai' | 'ollama', error?: ModelError): Observation {
    const field =
      this.reasoningField === undefined
        ? undefined
        : api === 'ollama'
          ? ('thinking' as const)
          : this.reasoningField
    return {
      ...(error === undefined ? {} : { error }),
      calls: error ? [] : [...this.calls.values()].filter((call) => call.name !== ''),
      content: this.content,
      ...(field === undefined ? {} : { reasoningField: field }),
      ...(this.promptTokens === undefined ? {} : { promptTokens: this.promptTokens }),
    }
  }
}

function openAiWire(opts: ProbeOptions): Wire {
  const endpoint = opts.endpoint
  const send = chatSender(endpoint, opts.fetch)
  return {
    async send(shape) {
      const observer = new ChunkObserver()
      const params = toChatCompletionParams(requestOf(opts, shape, 'openai'))
      const signal = signalOf(opts)
      try {
        for await (const chunk of await send(params, signal)) observer.take(chunk)
      } catch (error) {
        return observer.observation('openai', failureOf(error, signal, opts, endpoint))
      }
      return observer.observation('openai')
    },
  }
}

function ollamaWire(opts: ProbeOptions): Wire {
  const endpoint = opts.endpoint
  const post = opts.fetch === undefined ? httpPost : postThroughFetch(opts.fetch)
  const context = {
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  }
  return {
    async send(shape) {
      const observer = new ChunkObserver()
      const index = { value: 0 }
      const signal = signalOf(opts)
      try {
        const reply = await post(`${ollamaRoot(endpoint.baseUrl)}/api/chat`, {
          headers: {
            'content-type': 'application/json',
            ...endpoint.headers,
            ...(endpoint.apiKey === undefined
              ? {}
              : { authorization: `Bearer ${endpoint.apiKey}` }),
          },
          body: JSON.stringify(toOllamaChatBody(requestOf(opts, shape, 'ollama'))),
          signal,
        })
        if (!reply.ok) {
          const said = extractServerMessage(await errorBodyText(reply))
          return observer.observation('ollama', errorFromStatus(reply.status, said, context))
        }
        for (const line of (await reply.text()).split('\n')) {
          if (line.trim() !== '') observer.take(ollamaLineToChunk(JSON.parse(line), index))
        }
      } catch (error) {
        const failure =
          error instanceof OllamaStreamError
            ? errorFromStatus(500, error.serverMessage, context)
            : failureOf(error, signal, opts, context)
        return observer.observation('ollama', failure)
      }
      return observer.observation('ollama')
    },
  }
}

/**
 * What a failed probe request means: the caller's cancel, the probe's own time running out, or
 * what the endpoint did.
 */
function failureOf(
  error: unknown,
  signal: AbortSignal,
  opts: ProbeOptions,
  context: ErrorContext,
): ModelError {
  if (!signal.aborted) return classifyError(error, context)
  if (opts.signal?.aborted === true) return modelError('ABORTED', 'the probe was cancelled')
  const seconds = Math.round((opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS) / 1000)
  return modelError(
    'STALLED',
    `${describeEndpoint(context.baseUrl)} did not answer within ${seconds} s`,
  )
}

function signalOf(opts: ProbeOptions): AbortSignal {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS)
  return opts.signal === undefined ? timeout : AbortSignal.any([opts.signal, timeout])
}
