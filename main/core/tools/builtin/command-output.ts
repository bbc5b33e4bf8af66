/**
 * What a command printed, made fit for the model. The bytes of stdout and stderr are kept as they
 * came, interleaved in arrival order and bounded (a head, then a ring of the latest bytes), and
 * only at the end is it decided what they are: binary output becomes a one-paragraph summary and
 * travels on as the exact bytes (`raw`) for the spill to keep; text is decoded as UTF-8 and its
 * terminal control sequences are applied, removed or shown (`terminal-text.ts`), so nothing
 * invisible reaches the model.
 */
import { createHash } from 'node:crypto'
import type { ToolOutput } from '../types.js'
import { binaryFormatOf } from './binary-format.js'
import { terminalText } from './terminal-text.js'

/**
 * A tool result that may carry the exact bytes of an output that is not text. The spill keeps
 * them (`OutputSpill.keep`); the model sees only `output`. Stands in until ToolOutput has `raw`.
 */
export interface CommandOutput extends ToolOutput {
  readonly raw?: Uint8Array
}

export type StreamName = 'stdout' | 'stderr'

/** What the buffer holds once the command is done: what the model reads, and any exact bytes. */
export interface FinishedOutput {
  readonly text: string
  /** The kept bytes (head then tail), when the output is binary and `text` is a summary. */
  readonly raw?: Uint8Array
}

const EMPTY = Buffer.alloc(0)

/**
 * Output bytes kept within a byte budget: the first half as it came, then a ring of the latest
 * bytes; what falls between is dropped and counted, so an endless producer cannot exhaust
 * memory. While running, the tail may exceed its half by one pipe read; `finish()` trims it
 * exactly. Bytes are only decoded in `finish()`, so binary output is never mangled on the way.
 */
export class BoundedOutput {
  private readonly head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailStart = 0
  private tailBytes = 0
  /**
   * The start of a character a pipe read cut in two, per stream, held until the rest of it comes
   * on the same stream: a chunk of the other stream in between must not split it.
   */
  private readonly pending: Record<StreamName, Buffer> = { stdout: EMPTY, stderr: EMPTY }
  /** Bytes not kept: the middle, and (for text) the pieces of characters cut at its edges. */
  droppedBytes = 0
  private readonly headLimit: number
  private readonly tailLimit: number

  constructor(limit: number) {
    this.headLimit = Math.ceil(limit / 2)
    this.tailLimit = Math.floor(limit / 2)
  }

  push(stream: StreamName, chunk: Buffer): void {
    const pending = this.pending[stream]
    const bytes = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    const held = incompleteEnd(bytes)
    // A copy: a subarray would keep the whole pipe read alive for a few bytes.
    this.pending[stream] = held === 0 ? EMPTY : Buffer.from(bytes.subarray(bytes.length - held))
    this.add(bytes.subarray(0, bytes.length - held))
  }

  /** Decides what the output is and renders it for the model. Call once, after the last push. */
  finish(): FinishedOutput {
    this.add(this.pending.stdout)
    this.add(this.pending.stderr)
    this.pending.stdout = this.pending.stderr = EMPTY
    const head = Buffer.concat(this.head)
    let tail = Buffer.concat(this.tail.slice(this.tailStart))
    const excess = this.tailBytes - this.tailLimit
    if (excess > 0) {
      tail = tail.subarray(excess)
      this.droppedBytes += excess
    }
    const format = binaryFormatOf(head, tail)
    if (format !== undefined) {
      const raw = Buffer.concat([head, tail])
      return { text: binarySummary(raw, format, head.length, this.droppedBytes), raw }
    }
    if (this.droppedBytes === 0)
      return { text: terminalText(Buffer.concat([head, tail]).toString()) }
    // Each side of the gap is decoded alone: the pieces of characters cut there are dropped too.
    const headEnd = head.length - incompleteEnd(head)
    const tailStart = leadingContinuations(tail)
    this.droppedBytes += head.length - headEnd + tailStart
    const kept = { head: head.subarray(0, headEnd), tail: tail.subarray(tailStart) }
    const marker = `[… ${this.droppedBytes} bytes of output dropped here to bound memory; the first ${kept.head.length} and the last ${kept.tail.length} bytes are kept …]\n`
    const shownHead = terminalText(kept.head.toString())
    const separator = shownHead === '' || shownHead.endsWith('\n') ? '' : '\n'
    return { text: `${shownHead}${separator}${marker}${terminalText(kept.tail.toString())}` }
  }

  private add(bytes: Buffer): void {
    if (bytes.length === 0) return
    const room = this.headLimit - this.headBytes
    if (room > 0) {
      const fits = bytes.subarray(0, room)
      this.head.push(fits)
      this.headBytes += fits.length
      if (bytes.length <= room) return
      bytes = bytes.subarray(room)
    }
    this.tail.push(bytes)
    this.tailBytes += bytes.length
    for (
      let first = this.tail[this.tailStart];
      first && this.tailBytes - first.length >= this.tailLimit;
      first = this.tail[this.tailStart]
    ) {
      this.tailBytes -= first.length
      this.droppedBytes += first.length
      this.tailStart++
    }
    // Compact now and then, so dropping from the front stays cheap.
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart)
      this.tailStart = 0
    }
  }
}

/**
 * The paragraph the model reads instead of binary bytes. The hash is of the kept bytes, the same
 * bytes the spill saves, so the model (or a person) can tell that a file it writes matches.
 */
function binarySummary(raw: Buffer, format: string, headBytes: number, dropped: number): string {
  const sha256 = createHash('sha256').update(raw).digest('hex')
  const size =
    dropped === 0
      ? `${raw.length} bytes`
      : `${raw.length + dropped} bytes, of which the first ${headBytes} and the last ${raw.length - headBytes} are kept (the ${dropped} between were dropped to bound memory)`
  return `[binary output (${format}), not shown as text: ${size}; sha256 of the kept bytes ${sha256}. To look inside, write it to a file and use a tool such as file, xxd or unzip -l.]`
}

/**
 * How many bytes at the end of `bytes` begin a UTF-8 character that is not complete yet (0 to 3).
 * Bytes that cannot begin a character count as complete: they are invalid whatever follows.
 */
function incompleteEnd(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0
    if ((byte & 0xc0) === 0x80) continue
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return length > back && byte < 0xf8 ? back : 0
  }
  return 0
}

/** How many continuation bytes (the rest of a character cut off before them) `bytes` starts with. */
function leadingContinuations(bytes: Uint8Array): number {
  let count = 0
  while (count < 3 && ((bytes[count] ?? 0) & 0xc0) === 0x80) count++
  return count
}
