/**
 * Reading a file to import without trusting it: the one place every import reads lines from
 * (Bridle's export, every format of `formats/`), and where the scan reads a file's head.
 *
 * Contracts:
 * - Only a regular file is read. The file is opened with O_NONBLOCK and O_NOCTTY and checked with
 *   fstat before a byte is read, so a device (`/dev/zero`, `/dev/urandom`, a terminal), a pipe
 *   (a FIFO with no writer would block forever) or a socket is refused at once, whatever the name
 *   or a symlink says, and what is checked is what is read.
 * - At most IMPORT_LIMITS.maxFileBytes are read (checked on fstat and again while reading, for a
 *   file that grows or a /proc file that says it is empty), no line longer than `maxLineBytes` is
 *   ever held, and at most `maxRecords` non-empty lines are handed out. A reader that keeps what
 *   it is handed (a transcript) is bounded by these too. Each refusal names the limit in words.
 * - Lines are read in chunks as they are consumed, so the file is never held in memory whole.
 *   A line source can be iterated again (a Bridle export is read once to detect it and once to
 *   import it); a file is then opened again and refused if it is no longer the same file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import type { Stats } from 'node:fs'
import { ImportError } from '../log/export.js'

const MIB = 1024 * 1024

export interface ImportLimits {
  /** The most bytes a file to import may hold. */
  readonly maxFileBytes: number
  /** The most bytes one line may hold, its newline not counted. */
  readonly maxLineBytes: number
  /** The most non-empty lines (records) a file may hold. */
  readonly maxRecords: number
}

/**
 * The limits of every import. The longest line a Bridle export writes is a user message with
 * its attachments (8 images of at most 4 MiB each are under 45 MiB of base64, with 8 text files
 * of 256 KiB); the other tools' longest lines are images and tool outputs of a few MiB. A
 * session of a million events, or half a GiB, is far beyond any session seen; a format's
 * transcript, held until it is written, is at most what the file holds.
 */
export const IMPORT_LIMITS: ImportLimits = {
  maxFileBytes: 512 * MIB,
  maxLineBytes: 64 * MIB,
  maxRecords: 1_000_000,
}

/** What is read from a file per read call. */
const CHUNK_BYTES = MIB
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/**
 * A file refused by a limit; the message is a whole sentence naming the limit. `line` is the line
 * that broke it, or 0 when the file as a whole is refused (its kind, its size).
 */
export class ImportRefused extends ImportError {
  constructor(message: string, line = 0) {
    super(line, message)
    this.message = message
    this.name = 'ImportRefused'
  }
}

/** One line of a file to import, 1-based, without its newline. */
export interface SourceLine {
  readonly line: number
  readonly text: string
}

/** A file opened for reading after fstat proved it a regular file within the size limit. */
export interface OpenedFile {
  readonly fd: number
  readonly stat: Stats
}

/**
 * Opens `path` for reading without blocking and without taking a terminal, and refuses anything
 * but a regular file of at most `maxBytes`. The caller closes the fd. Errors of open itself (no
 * such file, no permission) are thrown as they are.
 */
export function openRegularFile(path: string, maxBytes: number): OpenedFile {
  // (On Windows the last two are undefined, which `|` reads as 0.)
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY
  const fd = openSync(path, flags)
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) {
      throw new ImportRefused(
        `${path} is not a regular file (it is ${kindOf(stat)}); only a session file can be imported`,
      )
    }
    if (stat.size > maxBytes) {
      throw new ImportRefused(
        `${path} holds ${stat.size.toLocaleString('en-US')} bytes, more than the ${mib(maxBytes)} MiB an import reads at most; no session file is that large`,
      )
    }
    return { fd, stat }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/**
 * The lines of the file at `path`, read in chunks under `limits` as they are consumed. Each
 * iteration opens the file again; one that is no longer the file first read is refused.
 */
export function fileLines(
  path: string,
  limits: ImportLimits = IMPORT_LIMITS,
): Iterable<SourceLine> {
  let first: Stats | undefined
  return {
    *[Symbol.iterator]() {
      const { fd, stat } = openRegularFile(path, limits.maxFileBytes)
      try {
        if (first && !sameFile(first, stat)) {
          throw new ImportRefused(`${path} changed while it was being imported; import it again`)
        }
        first ??= stat
        yield* splitLines(chunksOf(fd), path, limits)
      } finally {
        closeSync(fd)
      }
    },
  }
}

/** The lines of bytes already in memory, under the same limits as a file's. */
export function bufferLines(
  bytes: Buffer,
  name = 'the file',
  limits: ImportLimits = IMPORT_LIMITS,
): Iterable<SourceLine> {
  return { [Symbol.iterator]: () => splitLines([bytes], name, limits) }
}

/**
 * The complete lines within the first `maxBytes` of a regular file (the scan's look at a file),
 * with the file's stat; undefined when the file cannot be opened or is not a regular file.
 */
export function readHead(
  path: string,
  maxBytes: number,
): { text: string; stat: Stats } | undefined {
  let opened: OpenedFile
  try {
    opened = openRegularFile(path, Number.MAX_SAFE_INTEGER)
  } catch {
    return undefined // removed while scanning, unreadable, or not a regular file
  }
  try {
    const buffer = Buffer.alloc(maxBytes)
    const length = readSync(opened.fd, buffer, 0, buffer.length, 0)
    const text = buffer.subarray(0, length).toString('utf8')
    return {
      text: length < buffer.length ? text : text.slice(0, text.lastIndexOf('\n') + 1),
      stat: opened.stat,
    }
  } finally {
    closeSync(opened.fd)
  }
}

function* chunksOf(fd: number): Generator<Buffer, void, undefined> {
  for (;;) {
    // A fresh buffer per chunk: the lines being assembled keep views into earlier ones.
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
    const length = readSync(fd, buffer, 0, CHUNK_BYTES, null)
    if (length === 0) return
    yield buffer.subarray(0, length)
  }
}

/**
 * Splits chunks into lines, refusing a Zstandard file, more than `maxFileBytes` in all, a line
 * longer than `maxLineBytes` (before it is assembled) and more than `maxRecords` non-empty lines.
 * A final newline yields no empty last line.
 */
function* splitLines(
  chunks: Iterable<Buffer>,
  name: string,
  limits: ImportLimits,
): Generator<SourceLine, void, undefined> {
  let parts: Buffer[] = []
  let partBytes = 0
  let line = 1
  let records = 0
  let total = 0
  const emit = (): SourceLine => {
    const text = Buffer.concat(parts, partBytes).toString('utf8')
    if (text.trim() !== '' && ++records > limits.maxRecords) {
      throw new ImportRefused(
        `${name} has more than ${limits.maxRecords.toLocaleString('en-US')} records (line ${line.toLocaleString('en-US')}); an import reads at most that many, more than any session holds`,
        line,
      )
    }
    parts = []
    partBytes = 0
    return { line: line++, text }
  }
  for (const chunk of chunks) {
    if (total === 0 && chunk.subarray(0, ZSTD_MAGIC.length).equals(ZSTD_MAGIC)) {
      throw new ImportError(
        1,
        'the file is compressed with Zstandard (DeepSeek Harness compresses its logs by default); decompress it first (zstd -d FILE) and import the .jsonl',
      )
    }
    total += chunk.length
    if (total > limits.maxFileBytes) {
      throw new ImportRefused(
        `${name} grew past ${mib(limits.maxFileBytes)} MiB while it was read; an import reads at most that much`,
      )
    }
    for (let start = 0; ;) {
      const end = chunk.indexOf(0x0a, start)
      const stop = end === -1 ? chunk.length : end
      partBytes += stop - start
      if (partBytes > limits.maxLineBytes) {
        throw new ImportRefused(
          `line ${line.toLocaleString('en-US')} of ${name} is longer than ${mib(limits.maxLineBytes)} MiB, the most an import reads in one line; neither a Bridle export nor the tools it imports from write such a line`,
          line,
        )
      }
      if (stop > start) parts.push(chunk.subarray(start, stop))
      if (end === -1) break
      yield emit()
      start = end + 1
    }
  }
  if (partBytes > 0) yield emit()
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  if (stat.isFIFO()) return 'a pipe'
  if (stat.isSocket()) return 'a socket'
  return 'not a file'
}

const mib = (bytes: number) => Math.round((bytes / MIB) * 10) / 10
