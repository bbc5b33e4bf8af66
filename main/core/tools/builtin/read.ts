import { createHash } from 'node:crypto'
import type { Hash } from 'node:crypto'
import type { FileHandle } from 'node:fs/promises'
import { z } from 'zod'
import { resolveInsideProject } from '../../workspace/paths.js'
import { readStable } from '../file-ledger.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import {
  assessRead,
  handleStamp,
  looksBinary,
  openRegularFile,
  projectRelative,
  SNIFF_BYTES,
} from './file-helpers.js'

export const DEFAULT_READ_LIMIT = 2000
/** Longer lines (minified code, data) are cut: they cost context and rarely help. */
const MAX_LINE_CHARS = 2000
/** Enough bytes to hold MAX_LINE_CHARS characters of any UTF-8 text. */
const MAX_LINE_KEEP_BYTES = MAX_LINE_CHARS * 4
/** One read stays under the pipeline's output cap, so the "read again" hint is always right. */
const MAX_OUTPUT_BYTES = 48 * 1024
const CHUNK_BYTES = 64 * 1024
/** Past the scan, the rest of the file is only hashed, in bigger chunks. */
const HASH_CHUNK_BYTES = 1024 * 1024
/** Past the shown lines, lines are only counted for the hint, and only this far into a huge file. */
const MAX_COUNT_BYTES = 32 * 1024 * 1024

const ReadArgs = z.object({
  path: z.string().min(1).describe('The file, relative to the project folder'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('First line to show (1-based); default 1. Use it to page through a long file'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(DEFAULT_READ_LIMIT)
    .optional()
    .describe(`How many lines to show; default and maximum ${DEFAULT_READ_LIMIT}`),
})

/** What one scan of the file found: the numbered lines to show and how far the file goes. */
interface Scan {
  readonly shown: string[]
  /** The file's line count, or undefined when counting stopped early (a huge file). */
  readonly totalLines: number | undefined
  /** Lines seen before counting stopped (a lower bound when totalLines is undefined). */
  readonly linesSeen: number
  /** The window ended early because the output grew past MAX_OUTPUT_BYTES. */
  readonly isCutByBytes: boolean
  /** How many bytes from the start the scan read (and hashed). */
  readonly position: number
  /** The scan read to the end of the file, so nothing is left to hash. */
  readonly isAtEnd: boolean
}

/**
 * Reads a text file with numbered lines, streaming only as far as the window and the count need
 * for what it shows. The whole file is hashed (streamed, however big) for the file ledger, even
 * for a line range: the agent saw that version of the file, and writes are checked against it.
 */
export function readTool(): Tool {
  return defineTool({
    name: 'read',
    brief: 'Read a file with line numbers; offset is the first line (1-based), limit how many.',
    description: [
      'Read a text file of the project, with line numbers (number, tab, line).',
      'Use it before editing a file, to see its exact text.',
      `Shows up to ${DEFAULT_READ_LIMIT} lines from offset (default 1) and about 48 KB at most; when there is more, the output ends with the offset to read next.`,
      `Lines longer than ${MAX_LINE_CHARS} characters are cut with a marker. Binary files are refused; folders are listed with list, not read.`,
    ].join(' '),
    schema: ReadArgs,
    kind: 'read',
    isConcurrencySafe: () => true,
    describe: ({ path }) => `read ${path}`,
    assess: ({ path }, { projectDir }) => assessRead(projectDir, path),
    async run({ path, offset = 1, limit = DEFAULT_READ_LIMIT }, ctx) {
      const file = resolveInsideProject(ctx.projectDir, path)
      const shown = projectRelative(ctx.projectDir, file)
      // Opened once and verified inside the project; every byte comes through this handle.
      const info = await openRegularFile(ctx.projectDir, file, shown)
      const { handle } = info
      const { value, stamp } = await readStable(
        () => handleStamp(handle),
        () => scanFile(handle, info.size, shown, offset, limit, ctx.signal),
        info.stamp,
      ).finally(() => handle.close())
      const { scan, sha256 } = value
      // A file that changed on every attempt (a growing log) has no one version the agent saw.
      const seen: Record<string, string> = stamp === undefined ? {} : { sha256 }
      const { totalLines, linesSeen } = scan
      if (totalLines !== 0 && scan.shown.length === 0) {
        throw new ToolError(
          'OFFSET_PAST_END',
          `${shown} has ${totalLines ?? linesSeen} lines; offset ${offset} is past its end.`,
        )
      }
      // Only here, as only an ok result carries the hash into the log the ledger is rebuilt from.
      if (stamp !== undefined) ctx.files?.saw(file, sha256)
      if (totalLines === 0) {
        return { output: `(${shown} is empty)`, metadata: { path: shown, totalLines, ...seen } }
      }
      const last = offset + scan.shown.length - 1
      const hasMore = totalLines === undefined || last < totalLines
      let output = scan.shown.join('\n')
      if (hasMore) {
        const size =
          totalLines === undefined
            ? `is ${info.size} bytes with more than ${linesSeen} lines`
            : `has ${totalLines} lines`
        const why = scan.isCutByBytes ? ` (output limit of ${MAX_OUTPUT_BYTES / 1024} KB)` : ''
        output += `\n\n[${shown} ${size}; showing ${offset}-${last}${why}; read again with offset=${last + 1} for more]`
      }
      return {
        output,
        metadata: {
          path: shown,
          ...seen,
          firstLine: offset,
          lastLine: last,
          ...(totalLines === undefined ? {} : { totalLines }),
        },
      }
    },
  })
}

/** Sniffs, scans and hashes the file through its handle: what it shows and its whole hash. */
async function scanFile(
  handle: FileHandle,
  size: number,
  shown: string,
  offset: number,
  limit: number,
  signal: AbortSignal,
): Promise<{ scan: Scan; sha256: string }> {
  const hash = createHash('sha256')
  const scan = await scanLines(handle, { size, offset, limit }, hash, signal, (head) => {
    if (looksBinary(head)) {
      throw new ToolError(
        'BINARY_FILE',
        `${shown} is a binary file (${size} bytes); read shows text files only.`,
      )
    }
  })
  // Not zeroed: only the bytes read are used, and zeroing a megabyte cost more than reading a
  // small file.
  const buffer = scan.isAtEnd ? undefined : Buffer.allocUnsafe(HASH_CHUNK_BYTES)
  for (let position = scan.position; buffer;) {
    signal.throwIfAborted()
    const { bytesRead: got } = await handle.read(buffer, 0, buffer.length, position)
    if (got === 0) break
    hash.update(buffer.subarray(0, got))
    position += got
  }
  return { scan, sha256: hash.digest('hex') }
}

/**
 * One pass over the file: numbers and keeps the lines of the window (each cut to MAX_LINE_CHARS),
 * then only counts newlines up to MAX_COUNT_BYTES further, feeding every byte read to `hash` in
 * order. `checkHead` sees the first SNIFF_BYTES before anything else and may throw. Stops with the
 * signal. A short read at or past the size `stat` gave is the end: no read is spent to see 0
 * bytes (a file that grew meanwhile has a new stamp, and readStable reads it again).
 */
async function scanLines(
  handle: FileHandle,
  { size, offset, limit }: { size: number; offset: number; limit: number },
  hash: Hash,
  signal: AbortSignal,
  checkHead: (head: Buffer) => void,
): Promise<Scan> {
  const shown: string[] = []
  // Not zeroed: only the bytes read are used.
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  let position = 0
  let line = 1
  let isAtLineStart = true
  // Changed inside finishLine; an object so the loop does not narrow them to their start values.
  const state = { isCollecting: true, isCutByBytes: false, endByte: 0 }
  let outputBytes = 0
  // The current line, when it is in the window: its first bytes and its full length.
  let parts: Buffer[] = []
  let keptBytes = 0
  let lineBytes = 0

  const finishLine = () => {
    if (state.isCollecting && line >= offset) {
      const text = formatLine(line, Buffer.concat(parts).toString('utf8'), lineBytes > keptBytes)
      const size = Buffer.byteLength(text) + 1
      if (shown.length > 0 && outputBytes + size > MAX_OUTPUT_BYTES) {
        state.isCollecting = false
        state.isCutByBytes = true
      } else {
        shown.push(text)
        outputBytes += size
        if (shown.length >= limit) state.isCollecting = false
      }
      if (!state.isCollecting) state.endByte = position
    }
    parts = []
    keptBytes = 0
    lineBytes = 0
  }

  for (;;) {
    signal.throwIfAborted()
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position)
    if (position === 0) checkHead(buffer.subarray(0, Math.min(SNIFF_BYTES, bytesRead)))
    if (bytesRead === 0) break
    const chunk = buffer.subarray(0, bytesRead)
    hash.update(chunk)
    position += bytesRead
    let start = 0
    while (start < bytesRead) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? bytesRead : newline
      if (state.isCollecting && line >= offset) {
        const room = Math.min(MAX_LINE_KEEP_BYTES - keptBytes, end - start)
        if (room > 0) {
          parts.push(Buffer.from(chunk.subarray(start, start + room)))
          keptBytes += room
        }
        lineBytes += end - start
      }
      if (newline === -1) break
      finishLine()
      line++
      start = newline + 1
    }
    isAtLineStart = chunk[bytesRead - 1] === 10
    if (bytesRead < CHUNK_BYTES && position >= size) break
    if (!state.isCollecting && position - state.endByte > MAX_COUNT_BYTES) {
      const { isCutByBytes } = state
      return {
        shown,
        totalLines: undefined,
        linesSeen: line,
        isCutByBytes,
        position,
        isAtEnd: false,
      }
    }
  }
  if (!isAtLineStart) finishLine()
  const totalLines = isAtLineStart ? line - 1 : line
  const { isCutByBytes } = state
  return { shown, totalLines, linesSeen: totalLines, isCutByBytes, position, isAtEnd: true }
}

/** `number<TAB>text`, with a Windows line end dropped and an overlong line cut with a marker. */
function formatLine(line: number, raw: string, isTruncated: boolean): string {
  let text = raw.endsWith('\r') && !isTruncated ? raw.slice(0, -1) : raw
  if (isTruncated || text.length > MAX_LINE_CHARS) {
    let cut = MAX_LINE_CHARS
    // Do not split a surrogate pair.
    const code = text.charCodeAt(cut - 1)
    if (code >= 0xd800 && code <= 0xdbff) cut--
    text = `${text.slice(0, cut)} [… line cut at ${MAX_LINE_CHARS} characters]`
  }
  return `${String(line).padStart(6)}\t${text}`
}
