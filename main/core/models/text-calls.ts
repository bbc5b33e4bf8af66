/**
 * Tool calls that a model wrote as text, in the formats local models really use:
 *
 * - `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (Hermes, Qwen 2.5/3), one block a
 *   call, the closing tag sometimes missing; Python-style quoting is repaired;
 * - `<tool_call><function=NAME><parameter=KEY>value</parameter></function></tool_call>` (Qwen3-Coder);
 * - `<function=NAME>{...}</function>` (Llama 3.1's alternative);
 * - `[TOOL_CALLS][{...}]` and `[TOOL_CALLS]NAME[ARGS]{...}` (Mistral, before and after v11);
 * - `<|python_tag|>{...}` and `<|tool_call|>[...]` (Llama 3.x, Granite) prefixes;
 * - a bare `{"name": ..., "arguments"|"parameters": {...}}` object or a JSON array of them at the
 *   start of a line, or one inside a ```json fence.
 *
 * A marker (`<tool_call>`, `[TOOL_CALLS]`, ...) is unmistakable: what follows is a call even when
 * it is malformed, so the model gets an INVALID_ARGUMENTS result to correct from. Bare JSON and
 * fences count only when every object in them names a tool the request offered and carries its
 * arguments as an object: a model showing JSON to the user stays text. Never throws.
 */
import { jsonrepair } from 'jsonrepair'

/** The name a call gets when its markup was found but no name could be read from it. */
export const MALFORMED_CALL_NAME = '<malformed-call>'

export type TextCallFormat =
  'hermes' | 'qwen-xml' | 'function-tag' | 'mistral' | 'python-tag' | 'json' | 'json-fence'

export interface TextCall {
  readonly name: string
  /** JSON text of the arguments; for a malformed call, what could be read of it. */
  readonly args: string
  readonly format: TextCallFormat
}

export type TextSegment =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'call'; readonly call: TextCall }

/** Markers that start a call wherever they appear. */
const MARKERS = ['<tool_call>', '<|tool_call|>', '[TOOL_CALLS]', '<|python_tag|>', '<function=']
const TOOL_CALL_CLOSE = '</tool_call>'
const FENCE = '```'
/** Keys that may open a call object; anything else opening a bare JSON object makes it data. */
const CALL_KEYS = new Set([
  'name',
  'arguments',
  'parameters',
  'function',
  'type',
  'tool_call',
  'tool_calls',
])

// ---- Parsing a complete text ---------------------------------------------------------------

/**
 * Splits `text` into prose and calls. Returns undefined when there is no call in it, so the
 * caller keeps the text exactly as it was.
 */
export function parseTextCalls(
  text: string,
  toolNames: ReadonlySet<string>,
): TextSegment[] | undefined {
  const segments: TextSegment[] = []
  let prose = ''
  let pos = 0
  while (pos < text.length) {
    const start = nextCandidate(text, pos, pos === 0 || isLineStart(text, pos))
    if (start === undefined) {
      prose += text.slice(pos)
      break
    }
    prose += text.slice(pos, start.at)
    const parsed = parseCandidate(text, start, toolNames)
    if (parsed === undefined) {
      // Not a call after all: the candidate's first character is prose, look again after it.
      prose += text.slice(start.at, start.at + 1)
      pos = start.at + 1
      continue
    }
    if (parsed.calls.length === 0) {
      // Data (a fence or JSON that is not a call): kept whole as prose, not searched again.
      prose += text.slice(start.at, parsed.end)
    } else {
      if (prose.trim() !== '') segments.push({ kind: 'text', text: prose })
      prose = ''
      for (const call of parsed.calls) segments.push({ kind: 'call', call })
    }
    pos = parsed.end
  }
  if (!segments.some((segment) => segment.kind === 'call')) return undefined
  if (prose.trim() !== '') segments.push({ kind: 'text', text: prose })
  return trimAround(segments)
}

type CandidateKind = 'marker' | 'json' | 'fence'
interface Candidate {
  readonly at: number
  readonly kind: CandidateKind
  readonly marker?: string
}

/** The earliest place at or after `from` where a call may start. */
function nextCandidate(
  text: string,
  from: number,
  fromIsLineStart: boolean,
): Candidate | undefined {
  let best: Candidate | undefined
  for (const marker of MARKERS) {
    const at = text.indexOf(marker, from)
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, kind: 'marker', marker }
  }
  // Line starts (after optional spaces) with `{`, `[` or a fence.
  for (let line = from; line < text.length && (best === undefined || line < best.at);) {
    const isStart = line === from ? fromIsLineStart : true
    if (isStart) {
      let at = line
      while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at++
      if (best !== undefined && at >= best.at) break
      const char = text[at]
      if (char === '{' || char === '[') {
        best = { at, kind: 'json' }
        break
      }
      if (text.startsWith(FENCE, at)) {
        best = { at, kind: 'fence' }
        break
      }
    }
    const newline = text.indexOf('\n', line)
    if (newline < 0) break
    line = newline + 1
  }
  return best
}

interface ParsedCandidate {
  /** Calls found; empty when the candidate turned out to be data, kept as prose. */
  readonly calls: readonly TextCall[]
  readonly end: number
}

function parseCandidate(
  text: string,
  candidate: Candidate,
  toolNames: ReadonlySet<string>,
): ParsedCandidate | undefined {
  switch (candidate.kind) {
    case 'marker':
      return parseMarker(text, candidate.at, candidate.marker ?? '', toolNames)
    case 'json': {
      // JSON that is not (only) calls is data, kept whole: a call-shaped line nested in it is
      // part of what the model shows, not a call.
      const end = jsonValueEnd(text, candidate.at)
      return { calls: callsOfJson(text.slice(candidate.at, end), 'json', toolNames) ?? [], end }
    }
    case 'fence': {
      const fence = readFence(text, candidate.at)
      if (fence === undefined) return undefined
      if (!isJsonFenceInfo(fence.info)) return { calls: [], end: fence.end }
      const calls = callsOfJson(fence.body.trim(), 'json-fence', toolNames)
      return { calls: calls ?? [], end: fence.end }
    }
  }
}

function parseMarker(
  text: string,
  at: number,
  marker: string,
  toolNames: ReadonlySet<string>,
): ParsedCandidate | undefined {
  const after = at + marker.length
  switch (marker) {
    case '<tool_call>': {
      const close = text.indexOf(TOOL_CALL_CLOSE, after)
      const end = close < 0 ? text.length : close + TOOL_CALL_CLOSE.length
      const inner = text.slice(after, close < 0 ? text.length : close).trim()
      if (inner.startsWith('<function=')) {
        return { calls: parseFunctionTags(inner, 'qwen-xml', toolNames, true), end }
      }
      return { calls: callsOfMarkedJson(inner, 'hermes'), end }
    }
    case '<function=': {
      const nameEnd = text.indexOf('>', after)
      const name = nameEnd < 0 ? '' : text.slice(after, nameEnd).trim()
      // In prose, `<function=` only counts when it names one of the offered tools.
      if (!toolNames.has(name)) return undefined
      const close = text.indexOf('</function>', nameEnd)
      const end = close < 0 ? text.length : close + '</function>'.length
      return {
        calls: parseFunctionTags(text.slice(at, end), 'function-tag', toolNames, false),
        end,
      }
    }
    case '[TOOL_CALLS]':
      return parseMistral(text, after)
    case '<|python_tag|>':
    case '<|tool_call|>': {
      // One JSON value, or several separated by `;` (Llama 3.1 parallel calls).
      const calls: TextCall[] = []
      let pos = skipSpace(text, after)
      let end = pos
      while (pos < text.length && (text[pos] === '{' || text[pos] === '[')) {
        end = jsonValueEnd(text, pos)
        calls.push(...callsOfMarkedJson(text.slice(pos, end), 'python-tag'))
        pos = skipSpace(text, end)
        if (text[pos] !== ';') break
        pos = skipSpace(text, pos + 1)
      }
      if (calls.length === 0) {
        end = nextMarkerOrEnd(text, after)
        calls.push(malformed(text.slice(after, end).trim(), 'python-tag'))
      }
      return { calls, end }
    }
    default:
      return undefined
  }
}

/** `[TOOL_CALLS][{...}, ...]` or `[TOOL_CALLS]name[ARGS]{...}` (optionally `[CALL_ID]id` first). */
function parseMistral(text: string, after: number): ParsedCandidate {
  const pos = skipSpace(text, after)
  if (text[pos] === '[' || text[pos] === '{') {
    const end = jsonValueEnd(text, pos)
    return { calls: callsOfMarkedJson(text.slice(pos, end), 'mistral'), end }
  }
  const argsAt = text.indexOf('[ARGS]', pos)
  const next = nextMarkerOrEnd(text, pos)
  if (argsAt < 0 || argsAt > next) {
    return { calls: [malformed(text.slice(pos, next).trim(), 'mistral')], end: next }
  }
  const head = text.slice(pos, argsAt)
  const idAt = head.indexOf('[CALL_ID]')
  const name = (idAt < 0 ? head : head.slice(0, idAt)).trim()
  const bodyAt = skipSpace(text, argsAt + '[ARGS]'.length)
  const end = text[bodyAt] === '{' ? jsonValueEnd(text, bodyAt) : next
  const args = argsText(text.slice(bodyAt, end))
  return {
    calls: [
      name === '' ? malformed(text.slice(pos, end), 'mistral') : { name, args, format: 'mistral' },
    ],
    end,
  }
}

/**
 * `<function=NAME>` followed by a JSON object or `<parameter=KEY>value</parameter>` pairs, up to
 * `</function>`; several functions may follow each other.
 */
function parseFunctionTags(
  text: string,
  format: TextCallFormat,
  toolNames: ReadonlySet<string>,
  isMarked: boolean,
): TextCall[] {
  const calls: TextCall[] = []
  let pos = text.indexOf('<function=')
  while (pos >= 0) {
    const nameEnd = text.indexOf('>', pos)
    if (nameEnd < 0) {
      calls.push(malformed(text.slice(pos), format))
      break
    }
    const name = text.slice(pos + '<function='.length, nameEnd).trim()
    const close = text.indexOf('</function>', nameEnd)
    const body = text.slice(nameEnd + 1, close < 0 ? text.length : close)
    const trimmed = body.trim()
    const args = trimmed.startsWith('{') ? argsText(trimmed) : parameterTags(body)
    if (name === '') calls.push(malformed(body, format))
    else if (isMarked || toolNames.has(name)) calls.push({ name, args, format })
    if (close < 0) break
    pos = text.indexOf('<function=', close)
  }
  if (calls.length === 0 && isMarked) calls.push(malformed(text, format))
  return calls
}

/** `<parameter=KEY>value</parameter>` pairs as a JSON object (values that are JSON stay typed). */
function parameterTags(body: string): string {
  const args: Record<string, unknown> = {}
  const pattern = /<parameter=([^>\n]+)>([\s\S]*?)(?=<\/parameter>|<parameter=|$)/g
  for (const match of body.matchAll(pattern)) {
    const key = (match[1] ?? '').trim()
    // One newline around the value belongs to the markup, not to the value.
    const raw = (match[2] ?? '').replace(/^\n/, '').replace(/\n$/, '')
    if (key !== '') args[key] = typedValue(raw)
  }
  return JSON.stringify(args)
}

function typedValue(raw: string): unknown {
  const trimmed = raw.trim()
  if (/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)$/.test(trimmed)) {
    return JSON.parse(trimmed) as unknown
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed) as unknown
    } catch {
      // Not JSON after all: the text as written.
    }
  }
  return raw
}

/** JSON after a marker: always calls, malformed ones included. */
function callsOfMarkedJson(text: string, format: TextCallFormat): TextCall[] {
  const value = parseLenient(text)
  const calls = value === undefined ? undefined : callsOfValue(value, format, undefined)
  if (calls !== undefined && calls.length > 0) return calls
  return [malformed(text, format)]
}

/** Bare JSON: calls only when every object is a call to an offered tool with object arguments. */
function callsOfJson(
  text: string,
  format: TextCallFormat,
  toolNames: ReadonlySet<string>,
): TextCall[] | undefined {
  if (!opensWithCallKey(text)) return undefined
  const value = parseLenient(text)
  if (value === undefined) return undefined
  const calls = callsOfValue(value, format, toolNames)
  return calls !== undefined && calls.length > 0 ? calls : undefined
}

/**
 * The calls a JSON value describes, or undefined when it is not (only) calls. With `toolNames`,
 * a name outside it, or arguments that are not an object, make it not a call.
 */
function callsOfValue(
  value: unknown,
  format: TextCallFormat,
  toolNames: ReadonlySet<string> | undefined,
): TextCall[] | undefined {
  if (Array.isArray(value)) {
    const calls: TextCall[] = []
    for (const item of value) {
      const more = callsOfValue(item, format, toolNames)
      if (more === undefined) return undefined
      calls.push(...more)
    }
    return calls
  }
  if (!isRecord(value)) return undefined
  if (Array.isArray(value['tool_calls']))
    return callsOfValue(value['tool_calls'], format, toolNames)
  if (isRecord(value['tool_call'])) return callsOfValue(value['tool_call'], format, toolNames)
  const fn = isRecord(value['function']) ? value['function'] : value
  const name = fn['name']
  if (typeof name !== 'string' || name === '') return undefined
  const rawArgs = fn['arguments'] ?? fn['parameters']
  if (toolNames !== undefined) {
    if (!toolNames.has(name)) return undefined
    if (!(rawArgs === undefined || isRecord(rawArgs) || isJsonObjectText(rawArgs))) return undefined
  }
  const args =
    rawArgs === undefined ? '{}' : typeof rawArgs === 'string' ? rawArgs : JSON.stringify(rawArgs)
  return [{ name, args, format }]
}

function malformed(text: string, format: TextCallFormat): TextCall {
  const name = /["']name["']\s*:\s*["']([^"']+)["']/.exec(text)?.[1]
  return { name: name ?? MALFORMED_CALL_NAME, args: text, format }
}

/** Arguments written as JSON (possibly broken): repaired JSON text, else the text as written. */
function argsText(text: string): string {
  const value = parseLenient(text)
  return isRecord(value) ? JSON.stringify(value) : text
}

/** JSON.parse, else jsonrepair's reading of it (single quotes, trailing commas, cut-off ends). */
function parseLenient(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  try {
    return JSON.parse(trimmed) as unknown
  } catch {
    // Try the repaired reading below.
  }
  try {
    return JSON.parse(jsonrepair(trimmed)) as unknown
  } catch {
    // jsonrepair gives up on text that is not JSON-like at all.
    return undefined
  }
}

function isJsonObjectText(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    return isRecord(JSON.parse(value))
  } catch {
    return false
  }
}

/** Whether JSON text opens like a call: `{` (or `[{`) then one of the keys calls use first. */
function opensWithCallKey(text: string): boolean {
  return checkCallOpening(text, 0) === 'yes'
}

/**
 * Reads the opening of a JSON value from `at`: `yes` when it opens like a call, `no` when it
 * cannot, `more` when the text ends before that is decided (streaming).
 */
export function checkCallOpening(text: string, at: number): 'yes' | 'no' | 'more' {
  let pos = skipSpace(text, at)
  if (text[pos] === '[') pos = skipSpace(text, pos + 1)
  if (pos >= text.length) return 'more'
  if (text[pos] !== '{') return 'no'
  pos = skipSpace(text, pos + 1)
  if (pos >= text.length) return 'more'
  const quote = text[pos]
  if (quote !== '"' && quote !== "'") return 'no'
  const keyEnd = text.indexOf(quote, pos + 1)
  if (keyEnd < 0) return text.length - pos > 16 ? 'no' : 'more'
  return CALL_KEYS.has(text.slice(pos + 1, keyEnd)) ? 'yes' : 'no'
}

// ---- Small scanners ----------------------------------------------------------------------------

/**
 * Where the JSON value starting at `at` ends (after its closing bracket), tracking strings in
 * either quote and nesting; the end of the text when it never closes.
 */
export function jsonValueEnd(text: string, at: number): number {
  return new JsonValueScan().feed(text, at) ?? text.length
}

/**
 * Finds where a JSON value ends, fed piece by piece (strings in either quote, escapes, nesting):
 * what `jsonValueEnd` does on a whole text, for a stream.
 */
export class JsonValueScan {
  private depth = 0
  private quote: string | undefined
  private isEscaped = false

  /** Reads `text` from `from`; the index just past the value's end, or undefined if it goes on. */
  feed(text: string, from = 0): number | undefined {
    for (let pos = from; pos < text.length; pos++) {
      const char = text[pos]
      if (this.quote !== undefined) {
        if (this.isEscaped) this.isEscaped = false
        else if (char === '\\') this.isEscaped = true
        else if (char === this.quote) this.quote = undefined
        continue
      }
      if (char === '"' || char === "'") this.quote = char
      else if (char === '{' || char === '[') this.depth++
      else if (char === '}' || char === ']') {
        this.depth--
        if (this.depth <= 0) return pos + 1
      }
    }
    return undefined
  }
}

interface Fence {
  readonly info: string
  readonly body: string
  /** After the closing fence (or the end of the text). */
  readonly end: number
  readonly isClosed: boolean
}

/** A fenced block from `at` (which starts with ```); undefined while its info line is incomplete. */
export function readFence(text: string, at: number): Fence | undefined {
  const lineEnd = text.indexOf('\n', at)
  if (lineEnd < 0) return undefined
  const info = text.slice(at + FENCE.length, lineEnd).trim()
  const close = text.indexOf(FENCE, lineEnd + 1)
  if (close < 0) return { info, body: text.slice(lineEnd + 1), end: text.length, isClosed: false }
  return { info, body: text.slice(lineEnd + 1, close), end: close + FENCE.length, isClosed: true }
}

export function isJsonFenceInfo(info: string): boolean {
  return ['', 'json', 'tool_call', 'tool_code', 'tool'].includes(info.toLowerCase())
}

function nextMarkerOrEnd(text: string, from: number): number {
  let end = text.length
  for (const marker of MARKERS) {
    const at = text.indexOf(marker, from)
    if (at >= 0 && at < end) end = at
  }
  return end
}

function skipSpace(text: string, at: number): number {
  let pos = at
  while (pos < text.length && /\s/.test(text[pos] ?? '')) pos++
  return pos
}

function isLineStart(text: string, at: number): boolean {
  let pos = at - 1
  while (pos >= 0 && (text[pos] === ' ' || text[pos] === '\t')) pos--
  return pos < 0 || text[pos] === '\n'
}

/** Prose next to calls loses the blank lines that separated it from the markup. */
function trimAround(segments: TextSegment[]): TextSegment[] {
  return segments
    .map((segment, i): TextSegment => {
      if (segment.kind !== 'text') return segment
      let text = segment.text
      if (segments[i + 1]?.kind === 'call') text = text.trimEnd()
      if (segments[i - 1]?.kind === 'call') text = text.trimStart()
      return { kind: 'text', text }
    })
    .filter((segment) => segment.kind === 'call' || segment.text !== '')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export { MARKERS as TEXT_CALL_MARKERS }
