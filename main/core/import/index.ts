/**
 * `bridle import`: a session file of Bridle's own export or of another tool becomes Bridle
 * sessions. `readImport` detects the format and reads the file without touching the store (so a
 * caller can ask where the project folder is first); `importRead` writes it, all in one
 * transaction. A file in no known format is refused before anything is written. See README.md.
 */
import type { Store } from '../store/types.js'
import { EXPORT_FORMAT, ImportError, importSession } from '../log/export.js'
import type { SessionId } from '../../../protocol/events.js'
import { bufferLines, fileLines, IMPORT_LIMITS } from './bounded-read.js'
import type { ImportLimits, SourceLine } from './bounded-read.js'
import { FORMATS, toRecords } from './formats/index.js'
import type { SourceRecord } from './formats/index.js'
import type { ImportSource, Transcript } from './transcript.js'
import { isRecord } from './transcript.js'
import { writeTranscript } from './write.js'

export { IMPORT_LIMITS, ImportRefused } from './bounded-read.js'
export type { ImportLimits } from './bounded-read.js'
export { chooseProjectDir } from './project-dir.js'
export type { ProjectChoice, ProjectChoiceOptions } from './project-dir.js'
export { scanSessions } from './scan.js'
export type { ScannedSession } from './scan.js'
export { IMPORT_NO_RESULT, IMPORT_SKIPPED, IMPORT_UNMAPPED, TOOL_FAILED } from './write.js'
export type { ImportSource } from './transcript.js'

export type ImportFormat = 'bridle' | ImportSource

/** How many records detection looks at: a tool may open its file with bookkeeping lines. */
const DETECT_RECORDS = 50

/** A file read and understood, not yet written. */
export type ReadImport =
  | {
      readonly format: 'bridle'
      readonly label: string
      readonly recordedProjectDir?: string
      /** The export's lines, read again from the file when written (never held whole). */
      readonly lines: Iterable<string>
    }
  | {
      readonly format: ImportSource
      readonly label: string
      readonly recordedProjectDir?: string
      readonly transcript: Transcript
    }

/**
 * Detects the format of the session file at `path` and reads it, under IMPORT_LIMITS
 * (`bounded-read.ts`): a device, pipe or socket, a file too large, a line too long or too many
 * records are refused (ImportRefused, naming the limit). Otherwise as `readImport`.
 */
export function readImportFile(path: string, limits: ImportLimits = IMPORT_LIMITS): ReadImport {
  return readLines(fileLines(path, limits))
}

/**
 * Detects the format of a session file's bytes and reads it. Throws ImportError (line 1) for an
 * empty file, a compressed one, or one in no format Bridle knows, naming the formats it reads;
 * the limits of `readImportFile` apply to the lines.
 */
export function readImport(bytes: Buffer, limits: ImportLimits = IMPORT_LIMITS): ReadImport {
  return readLines(bufferLines(bytes, 'the file', limits))
}

/** Detection reads the first records; a format then reads on from where detection stopped. */
function readLines(source: Iterable<SourceLine>): ReadImport {
  const records = toRecords(source)
  const head: SourceRecord[] = []
  // Not a for-of: breaking out of one would close the generator the format reads on from.
  while (head.length < DETECT_RECORDS) {
    const next = records.next()
    if (next.done === true) break
    head.push(next.value)
  }
  const first = head[0]
  if (first === undefined) throw new ImportError(1, 'the file is empty')
  if (isRecord(first.value) && first.value.format === EXPORT_FORMAT) {
    records.return()
    const session = isRecord(first.value.session) ? first.value.session : {}
    return {
      format: 'bridle',
      label: 'Bridle export',
      ...(typeof session.projectDir === 'string' ? { recordedProjectDir: session.projectDir } : {}),
      lines: textsOf(source),
    }
  }
  const format = FORMATS.find((candidate) => candidate.matches(head))
  if (!format) {
    records.return()
    throw new ImportError(
      1,
      `not a session file Bridle can import: expected a Bridle export (bridle export), or a session log of ${FORMATS.map((f) => f.label).join(', ')}`,
    )
  }
  const transcript = format.read(concat(head, records))
  return {
    format: format.source,
    label: format.label,
    ...(transcript.recordedProjectDir === undefined
      ? {}
      : { recordedProjectDir: transcript.recordedProjectDir }),
    transcript,
  }
}

function* concat<T>(head: readonly T[], rest: Iterator<T>): Generator<T, void, undefined> {
  yield* head
  for (let next = rest.next(); next.done !== true; next = rest.next()) yield next.value
}

/** The lines' texts, read from the start each time they are iterated. */
function textsOf(source: Iterable<SourceLine>): Iterable<string> {
  return {
    *[Symbol.iterator]() {
      for (const { text } of source) yield text
    },
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
