/**
 * `bridle import`: a session file of Bridle's own export or of another tool becomes Bridle
 * sessions. `readImport` detects the format and reads the file without touching the store (so a
 * caller can ask where the project folder is first); `importRead` writes it, all in one
 * transaction. A file in no known format is refused before anything is written. See README.md.
 */
import type { Store } from '../store/types.js'
import { EXPORT_FORMAT, ImportError, importSession } from '../log/export.js'
import type { SessionId } from '../../../protocol/events.js'
import { FORMATS, parseRecords } from './formats/index.js'
import type { ImportSource, Transcript } from './transcript.js'
import { isRecord } from './transcript.js'
import { writeTranscript } from './write.js'

export { chooseProjectDir } from './project-dir.js'
export type { ProjectChoice, ProjectChoiceOptions } from './project-dir.js'
export { scanSessions } from './scan.js'
export type { ScannedSession } from './scan.js'
export { IMPORT_NO_RESULT, IMPORT_SKIPPED, IMPORT_UNMAPPED, TOOL_FAILED } from './write.js'
export type { ImportSource } from './transcript.js'

export type ImportFormat = 'bridle' | ImportSource

/** How many records detection looks at: a tool may open its file with bookkeeping lines. */
const DETECT_RECORDS = 50
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd])

/** A file read and understood, not yet written. */
export type ReadImport =
  | {
      readonly format: 'bridle'
      readonly label: string
      readonly recordedProjectDir?: string
      readonly lines: readonly string[]
    }
  | {
      readonly format: ImportSource
      readonly label: string
      readonly recordedProjectDir?: string
      readonly transcript: Transcript
    }

/**
 * Detects the format of a session file's bytes and reads it. Throws ImportError (line 1) for an
 * empty file, a compressed one, or one in no format Bridle knows, naming the formats it reads.
 */
export function readImport(bytes: Buffer): ReadImport {
  if (bytes.subarray(0, 4).equals(ZSTD_MAGIC)) {
    throw new ImportError(
      1,
      'the file is compressed with Zstandard (DeepSeek Harness compresses its logs by default); decompress it first (zstd -d FILE) and import the .jsonl',
    )
  }
  const text = bytes.toString('utf8')
  const lines = text.split('\n')
  const first = lines.find((line) => line.trim() !== '')
  if (first === undefined) throw new ImportError(1, 'the file is empty')
  const header = parseJson(first)
  if (isRecord(header) && header.format === EXPORT_FORMAT) {
    const session = isRecord(header.session) ? header.session : {}
    return {
      format: 'bridle',
      label: 'Bridle export',
      ...(typeof session.projectDir === 'string' ? { recordedProjectDir: session.projectDir } : {}),
      lines,
    }
  }
  const records = parseRecords(text)
  const head = records.slice(0, DETECT_RECORDS)
  const format = FORMATS.find((candidate) => candidate.matches(head))
  if (!format) {
    throw new ImportError(
      1,
      `not a session file Bridle can import: expected a Bridle export (bridle export), or a session log of ${FORMATS.map((f) => f.label).join(', ')}`,
    )
  }
  const transcript = format.read(records)
  return {
    format: format.source,
    label: format.label,
    ...(transcript.recordedProjectDir === undefined
      ? {}
      : { recordedProjectDir: transcript.recordedProjectDir }),
    transcript,
  }
}

export interface ImportOptions {
  /** The new session's project folder (see `chooseProjectDir`). */
  readonly projectDir: string
  /** The file's name, without its folder: recorded on `session/imported`. */
  readonly file: string
  readonly clock?: () => number
}

export interface ImportResult {
  readonly format: ImportFormat
  readonly sessionId: SessionId
  /** The forks made for the source's other branches (pi). */
  readonly forks: readonly SessionId[]
}

/** Writes what `readImport` read as new sessions, in one transaction: all of it or nothing. */
export function importRead(store: Store, read: ReadImport, opts: ImportOptions): ImportResult {
  const clock = opts.clock ?? Date.now
  if (read.format === 'bridle') {
    const sessionId = importSession(store, read.lines, { clock, projectDir: opts.projectDir })
    return { format: 'bridle', sessionId, forks: [] }
  }
  const { transcript } = read
  const written = store.write(() =>
    writeTranscript(store, transcript, { projectDir: opts.projectDir, file: opts.file, clock }),
  )
  return { format: read.format, ...written }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    // Not JSON: no format's first line; detection then refuses the file.
    return undefined
  }
}
