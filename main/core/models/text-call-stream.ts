/**
 * Finds tool calls written as text while the reply streams (see text-calls.ts for the formats).
 * Prose streams through at once; from the first place where a call may start, the text is held
 * back, so that call markup never shows as answer text. What is held is released as soon as it
 * is clearly not a call (a JSON object whose first key is not one calls use, a fence in another
 * language), or parsed at the end of the reply into prose and calls.
 *
 * Holding is cheap for prose: a candidate must be a marker (`<tool_call>`, `[TOOL_CALLS]`, ...),
 * or `{`, `[` or a fence at the start of a line; anything else passes through, keeping back at
 * most a possible partial marker. JSON or a fence found to be data is passed through whole,
 * without looking for calls inside it, as `parseTextCalls` keeps it whole: what is shown never
 * depends on how the stream was split.
 */
import {
  JsonValueScan,
  TEXT_CALL_MARKERS,
  checkCallOpening,
  isJsonFenceInfo,
  parseTextCalls,
  readFence,
} from './text-calls.js'
import type { TextSegment } from './text-calls.js'

export class TextCallStream {
  /** Text received and not emitted: a possible partial marker, or everything since a candidate. */
  private held = ''
  /** Whether `held` starts at a candidate (and stays held to the end or until refuted). */
  private isHolding = false
  /** Whether the next character received starts a line (nothing emitted yet counts). */
  private atLineStart = true
  /** A call was found: everything from it on is held to the end, without judging it again. */
  private isConfirmed = false
  /** The scan of a JSON value that opened like a call, carried from one piece to the next. */
  private valueScan: { scan: JsonValueScan; from: number } | undefined
  /** Data being passed through whole: a JSON value, or a fence (its info line, then its body). */
  private skip:
    { kind: 'json'; scan: JsonValueScan } | { kind: 'fence'; isInBody: boolean } | undefined

  constructor(private readonly toolNames: ReadonlySet<string>) {}

  /** Takes a streamed fragment; returns the text that can be shown now. */
  push(fragment: string): string {
    this.held += fragment
    if (this.isConfirmed) return ''
    let out = ''
    for (;;) {
      if (this.skip !== undefined) {
        const passed = this.passData()
        out += passed.text
        if (!passed.isDone) return out
        continue
      }
      if (this.isHolding) {
        const verdict = this.judgeHeld()
        if (verdict === 'hold') return out
        this.isHolding = false
        this.valueScan = undefined
        if (typeof verdict === 'number') {
          // Refuted: the candidate's text up to `verdict` is prose; look again after it.
          out += this.release(verdict)
        } else {
          // Data from `at` on: passed through whole.
          out += this.release(verdict.at)
          this.skip =
            verdict.data === 'json'
              ? { kind: 'json', scan: new JsonValueScan() }
              : { kind: 'fence', isInBody: false }
        }
        continue
      }
      const found = this.findCandidate()
      if (found === undefined) {
        const keep = this.partialTail()
        out += this.release(this.held.length - keep)
        return out
      }
      out += this.release(found)
      this.isHolding = true
    }
  }

  /**
   * The reply ended: what was held, as prose and calls in their order. Without a call in it,
   * one text segment (or none).
   */
  finish(): TextSegment[] {
    const held = this.reset()
    if (held === '') return []
    return parseTextCalls(held, this.toolNames) ?? [{ kind: 'text', text: held }]
  }

  /** The reply failed: whatever was held, as text. */
  flush(): string {
    return this.reset()
  }

  /** Starts afresh; returns what was held. */
  private reset(): string {
    const held = this.held
    this.held = ''
    this.isHolding = false
    this.isConfirmed = false
    this.valueScan = undefined
    this.skip = undefined
    return held
  }

  /** Emits `count` characters of what is held. */
  private release(count: number): string {
    if (count <= 0) return ''
    const text = this.held.slice(0, count)
    this.held = this.held.slice(count)
    this.atLineStart = text.endsWith('\n') || (this.atLineStart && text.trim() === '')
    return text
  }

  /** Where in `held` the first candidate starts, if one does. */
  private findCandidate(): number | undefined {
    const text = this.held
    let best: number | undefined
    for (const marker of TEXT_CALL_MARKERS) {
      const at = text.indexOf(marker)
      if (at >= 0 && (best === undefined || at < best)) best = at
    }
    let lineStart = this.atLineStart ? 0 : text.indexOf('\n') + 1
    while (lineStart > 0 || (lineStart === 0 && this.atLineStart)) {
      if (best !== undefined && lineStart >= best) break
      let at = lineStart
      while (text[at] === ' ' || text[at] === '\t') at++
      const char = text[at]
      if (char === '{' || char === '[' || text.startsWith('```', at)) {
        if (best === undefined || at < best) best = at
        break
      }
      const next = text.indexOf('\n', lineStart)
      if (next < 0) break
      lineStart = next + 1
    }
    return best
  }

  /**
   * How much at the end of `held` must wait for more text: a partial marker, or the beginning
   * of a line that may still become `{`, `[` or a fence.
   */
  private partialTail(): number {
    const text = this.held
    let keep = 0
    for (const marker of TEXT_CALL_MARKERS) {
      for (let length = Math.min(marker.length - 1, text.length); length > keep; length--) {
        if (text.endsWith(marker.slice(0, length))) {
          keep = length
          break
        }
      }
    }
    const lineStart = text.lastIndexOf('\n') + 1
    const lastLine = text.slice(lineStart)
    const couldOpen =
      (lineStart > 0 || this.atLineStart) &&
      (lastLine.trim() === '' || '```'.startsWith(lastLine.trim()))
    if (couldOpen) keep = Math.max(keep, lastLine.length)
    return keep
  }

  /** Passes data through; `isDone` when it ended (what follows is looked at again). */
  private passData(): { text: string; isDone: boolean } {
    const skip = this.skip
    if (skip === undefined) return { text: '', isDone: true }
    if (skip.kind === 'json') {
      const end = skip.scan.feed(this.held)
      if (end === undefined) return { text: this.release(this.held.length), isDone: false }
      this.skip = undefined
      return { text: this.release(end), isDone: true }
    }
    if (!skip.isInBody) {
      // The fence's info line: to its end.
      const newline = this.held.indexOf('\n')
      if (newline < 0) return { text: this.release(this.held.length), isDone: false }
      skip.isInBody = true
      return { text: this.release(newline + 1), isDone: true }
    }
    const close = this.held.indexOf('```')
    if (close >= 0) {
      this.skip = undefined
      return { text: this.release(close + 3), isDone: true }
    }
    // Keep back a possible start of the closing fence.
    const keep = this.held.endsWith('``') ? 2 : this.held.endsWith('`') ? 1 : 0
    return { text: this.release(this.held.length - keep), isDone: false }
  }

  /**
   * `hold`; how many characters of `held` turned out to be prose; or where data starts that is
   * passed through whole.
   */
  private judgeHeld(): 'hold' | number | { at: number; data: 'json' | 'fence' } {
    const text = this.held
    const start = text.search(/\S/)
    if (start < 0) return 'hold'
    if (TEXT_CALL_MARKERS.some((marker) => text.startsWith(marker, start))) {
      if (text.startsWith('<function=', start)) return this.judgeFunctionTag(start)
      this.isConfirmed = true
      return 'hold'
    }
    if (TEXT_CALL_MARKERS.some((marker) => marker.startsWith(text.slice(start)))) return 'hold'
    if (text.startsWith('```', start)) return this.judgeFence(start)
    if ('```'.startsWith(text.slice(start))) return 'hold'
    const opening = checkCallOpening(text, start)
    if (opening === 'more') return 'hold'
    if (opening === 'no') return { at: start, data: 'json' }
    // Opens like a call: wait for the value to close (scanning each piece once), then decide on
    // the whole of it.
    this.valueScan ??= { scan: new JsonValueScan(), from: start }
    const end = this.valueScan.scan.feed(text, this.valueScan.from)
    if (end === undefined) {
      this.valueScan.from = text.length
      return 'hold'
    }
    this.valueScan = undefined
    if (parseTextCalls(text.slice(0, end), this.toolNames) === undefined) return end
    this.isConfirmed = true
    return 'hold'
  }

  private judgeFence(start: number): 'hold' | number | { at: number; data: 'fence' } {
    const fence = readFence(this.held, start)
    if (fence === undefined) return 'hold'
    if (!isJsonFenceInfo(fence.info))
      return fence.isClosed ? fence.end : { at: start, data: 'fence' }
    const opening = checkCallOpening(fence.body, 0)
    if (opening === 'more' && !fence.isClosed) return 'hold'
    if (opening !== 'yes') return fence.isClosed ? fence.end : { at: start, data: 'fence' }
    if (!fence.isClosed) return 'hold'
    if (parseTextCalls(this.held.slice(0, fence.end), this.toolNames) === undefined)
      return fence.end
    this.isConfirmed = true
    return 'hold'
  }

  /** `<function=NAME>` is a call only when NAME is an offered tool. */
  private judgeFunctionTag(start: number): 'hold' | number {
    const nameAt = start + '<function='.length
    const close = this.held.indexOf('>', nameAt)
    if (close < 0) return this.held.length - nameAt > 64 ? start + 1 : 'hold'
    if (!this.toolNames.has(this.held.slice(nameAt, close).trim())) return start + 1
    this.isConfirmed = true
    return 'hold'
  }
}
