import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { join, normalize, sep } from 'node:path'
import { ToolError } from './types.js'

/** What the model sees of one tool's output at most (~50 KB, the rest spilled: docs/ARCHITECTURE.md 5). */
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

/** Spilled bytes of a binary output end in this; `read` shows them as a hex dump. */
const BINARY_SUFFIX = '.bin'
/** A hex dump line (`hexdump -C`) of 16 bytes costs at most this much JSON (quotes and `\\` doubled). */
const HEX_LINE_JSON_BYTES = 96
/** Room kept in the cap for the note after a summary or a hex dump (where the bytes are, where to read on). */
const NOTE_ROOM_BYTES = 300

/**
 * Caps tool output for the model and keeps the whole of it in a file under the data folder (0600,
 * in a 0700 folder per session), named by an `outputRef` the UI and the `read_output` tool can
 * read back. The cap counts what is stored and sent: the output as a JSON string in UTF-8, where
 * a quote or backslash is 2 bytes and a control character up to 6.
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

  /**
   * What the model sees of a tool's output, and the ref of the file that keeps it. With `raw`
   * (binary output, `output` its summary) the bytes are always saved as they are, in
   * `<session>/<call>.bin`, and the summary names the ref; without, this is `cap`. `callId`
   * names the call's files, so it must be unique in the session (the pipeline gives
   * `turn.step.callId`).
   */
  keep(
    sessionId: string,
    callId: string,
    output: { readonly output: string; readonly raw?: Uint8Array },
  ): { output: string; outputRef?: string } {
    const { raw } = output
    if (raw === undefined) return this.cap(sessionId, callId, output.output)
    const ref = `${safeName(sessionId)}/${safeName(callId)}${BINARY_SUFFIX}`
    // The summary is short; cut it anyway so a tool's long text beside its bytes cannot pass the cap.
    const room = Math.max(0, this.capBytes - NOTE_ROOM_BYTES)
    const end = jsonPrefixLength(output.output, room)
    const summary =
      end === output.output.length ? output.output : `${output.output.slice(0, end)}\n[…]`
    try {
      this.write(ref, raw)
    } catch (error) {
      return {
        output: `${summary}\n[the exact ${raw.length} bytes could not be saved: ${error instanceof Error ? error.message : String(error)}]`,
      }
    }
    return {
      output: `${summary}\n[the exact ${raw.length} bytes are saved as ${ref}; read_output {"ref":"${ref}","offset":0} shows them as a hex dump]`,
      outputRef: ref,
    }
  }

  /**
   * Returns the output as the model should see it, and the ref when the full text was spilled:
   * the longest prefix, cut between characters, whose JSON form fits the cap, then a marker.
   */
  cap(sessionId: string, callId: string, output: string): { output: string; outputRef?: string } {
    const end = jsonPrefixLength(output, this.capBytes)
    if (end === output.length) return { output }
    const head = output.slice(0, end)
    const headBytes = Buffer.byteLength(head)
    const bytes = Buffer.byteLength(output)
    const ref = `${safeName(sessionId)}/${safeName(callId)}.txt`
    try {
      this.write(ref, output)
    } catch (error) {
      // Best effort: the model still gets a bounded preview, and is told the rest is lost.
      return {
        output: `${head}\n[… output cut at ${headBytes} of ${bytes} bytes; the rest could not be saved: ${error instanceof Error ? error.message : String(error)}]`,
      }
    }
    return {
      output: `${head}\n[… output cut at ${headBytes} of ${bytes} bytes. The full output is saved as ${ref}; read more with read_output {"ref":"${ref}","offset":${headBytes}}]`,
      outputRef: ref,
    }
  }

  /**
   * Bytes [offset, offset+length) of a spilled output: text as text; binary as a hex dump of at
   * most as many bytes as fit the cap, ending with where to read on.
   */
  read(ref: string, offset = 0, length = this.capBytes): string {
    const file = this.resolve(ref)
    if (!ref.endsWith(BINARY_SUFFIX)) return readRange(file, offset, length).bytes.toString('utf8')
    const lines = Math.max(1, Math.floor((this.capBytes - NOTE_ROOM_BYTES) / HEX_LINE_JSON_BYTES))
    const { bytes, size } = readRange(file, offset, Math.min(length, lines * 16))
    const end = offset + bytes.length
    if (bytes.length === 0) return `[offset ${offset} is past the end: ${ref} holds ${size} bytes]`
    const more =
      end < size ? `; read on with read_output {"ref":"${ref}","offset":${end}}` : ' (the end)'
    return `${hexDump(bytes, offset)}[bytes ${offset} to ${end} of ${size}${more}]`
  }

  private write(ref: string, data: string | Uint8Array): void {
    const file = this.resolve(ref)
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 })
    const temp = `${file}.${process.pid}.tmp`
    const fd = openSync(temp, 'w', 0o600)
    try {
      // Loops over partial writes, which a bare writeSync of a large buffer may leave.
      writeFileSync(fd, data)
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

/**
 * How many UTF-16 units of `text` make the longest prefix whose JSON string form (as
 * JSON.stringify writes it, without the quotes) fits in `budget` bytes of UTF-8. Never ends
 * between the halves of a surrogate pair. Stops scanning at the budget, so a huge text is cheap.
 */
export function jsonPrefixLength(text: string, budget: number): number {
  let used = 0
  let i = 0
  while (i < text.length) {
    const code = text.charCodeAt(i)
    const isPair = code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))
    const size = isPair ? 4 : jsonUnitBytes(code)
    if (used + size > budget) break
    used += size
    i += isPair ? 2 : 1
  }
  return i
}

/** The JSON size of one UTF-16 unit that is not part of a surrogate pair. */
function jsonUnitBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2 // \" and \\
  if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2
  if (code < 0x20) return 6 // \u00XX
  if (code < 0x80) return 1
  if (code < 0x800) return 2
  if (code >= 0xd800 && code <= 0xdfff) return 6 // a lone surrogate is written \uDXXX
  return 3
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** Up to `length` bytes of `file` from `offset`, without reading the rest, and the file's size. */
function readRange(file: string, offset: number, length: number): { bytes: Buffer; size: number } {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    const bytes = Buffer.alloc(Math.max(0, Math.min(length, size - offset)))
    let done = 0
    while (done < bytes.length) {
      const read = readSync(fd, bytes, done, bytes.length - done, offset + done)
      if (read === 0) break
      done += read
    }
    return { bytes: bytes.subarray(0, done), size }
  } finally {
    closeSync(fd)
  }
}

/** `hexdump -C` lines: offset, 16 bytes in hex, the printable ASCII among them. */
function hexDump(bytes: Uint8Array, offset: number): string {
  let out = ''
  for (let line = 0; line < bytes.length; line += 16) {
    const row = bytes.subarray(line, line + 16)
    const hex = Array.from({ length: 16 }, (_, k) => {
      const byte = row[k]
      return byte === undefined ? '  ' : byte.toString(16).padStart(2, '0')
    })
    const ascii = Array.from(row, (byte) =>
      byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.',
    ).join('')
    out += `${(offset + line).toString(16).padStart(8, '0')}  ${hex.slice(0, 8).join(' ')}  ${hex.slice(8).join(' ')}  |${ascii}|\n`
  }
  return out
}
