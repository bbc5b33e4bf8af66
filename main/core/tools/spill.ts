import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs'
import { join, normalize, sep } from 'node:path'
import { ToolError } from './types.js'

/** What the model sees of one tool's output at most (DESIGN.md 4: ~50 KB, the rest spilled). */
export const DEFAULT_OUTPUT_CAP_BYTES = 50 * 1024
/** The smallest cap, whatever the window: below it a single read says too little. */
export const MIN_OUTPUT_CAP_BYTES = 4 * 1024

/**
 * The cap for a window of `tokens`: about a quarter of it (a token is ~4 bytes, so one byte per
 * token), between MIN and DEFAULT. One output can then never fill a small window on its own.
 */
export function outputCapForWindow(tokens: number | undefined): number {
  if (tokens === undefined) return DEFAULT_OUTPUT_CAP_BYTES
  return Math.min(DEFAULT_OUTPUT_CAP_BYTES, Math.max(MIN_OUTPUT_CAP_BYTES, Math.floor(tokens)))
}

/**
 * Caps tool output for the model and keeps the whole of it in a file under the data folder,
 * named by an `outputRef` the UI and the `read_output` tool can read back.
 */
export class OutputSpill {
  /** `capBytes`: a number, or read at every call (a window that may shrink). */
  constructor(
    private readonly dir: string,
    private readonly capOf: number | (() => number) = DEFAULT_OUTPUT_CAP_BYTES,
  ) {}

  private get capBytes(): number {
    return typeof this.capOf === 'number' ? this.capOf : this.capOf()
  }

  /** Returns the output as the model should see it, and the ref when the full text was spilled. */
  cap(sessionId: string, callId: string, output: string): { output: string; outputRef?: string } {
    const bytes = Buffer.byteLength(output)
    if (bytes <= this.capBytes) return { output }
    const ref = `${safeName(sessionId)}/${safeName(callId)}.txt`
    try {
      this.write(ref, output)
    } catch (error) {
      // Best effort: the model still gets a bounded preview, and is told the rest is lost.
      const head = truncateBytes(output, this.capBytes)
      return {
        output: `${head}\n[… output cut at ${this.capBytes} of ${bytes} bytes; the rest could not be saved: ${error instanceof Error ? error.message : String(error)}]`,
      }
    }
    const head = truncateBytes(output, this.capBytes)
    return {
      output: `${head}\n[… output cut at ${this.capBytes} of ${bytes} bytes. The full output is saved as ${ref}; read more with read_output {"ref":"${ref}","offset":${Buffer.byteLength(head)}}]`,
      outputRef: ref,
    }
  }

  /** Bytes [offset, offset+length) of a spilled output, as text. */
  read(ref: string, offset = 0, length = this.capBytes): string {
    const file = this.resolve(ref)
    const whole = readFileSync(file)
    return whole.subarray(offset, offset + length).toString('utf8')
  }

  private write(ref: string, text: string): void {
    const file = this.resolve(ref)
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 })
    const temp = `${file}.${process.pid}.tmp`
    const fd = openSync(temp, 'w', 0o600)
    try {
      writeSync(fd, text)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, file)
  }

  private resolve(ref: string): string {
    const file = normalize(join(this.dir, ref))
    if (!file.startsWith(this.dir + sep))
      throw new ToolError('INVALID_OUTPUT_REF', `${ref} is not an output reference`)
    return file
  }
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120)
}

/** The longest prefix of `text` that fits in `bytes` of UTF-8, never splitting a character. */
function truncateBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text)
  if (buffer.length <= bytes) return text
  let end = bytes
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--
  return buffer.subarray(0, end).toString('utf8')
}
