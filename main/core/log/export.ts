/**
 * Export and import of one session as JSON Lines (docs/ARCHITECTURE.md 3.9: exports are a
 * projection of the log). Line 1 is a header; every further line is one event of the whole
 * history, ancestors' prefix included, numbered from seq 0. An import replays every event through
 * the same rules a live Session enforces and writes nothing unless all of them hold.
 */
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import type { EventRow, Store } from '../store/types.js'
import { StoreError } from '../store/types.js'
import { LogError } from './errors.js'
import { eventEnvelope } from '../../../protocol/events.js'
import type { EventDataInput, EventType, LogEvent, SessionId } from '../../../protocol/events.js'
import { rowToEvent } from './rows.js'
import { Session } from './session.js'

export const EXPORT_FORMAT = 'bridle-session'
export const EXPORT_VERSION = 1
/** Rows read from the store per query while exporting, so a long log is never read at once. */
export const DEFAULT_EXPORT_PAGE = 2000

const Count = z.number().int().nonnegative()

/** Which stored session a stretch of seqs [fromSeq, toSeq) came from (the fork chain, flattened). */
export const ExportSegment = z.object({
  sessionId: z.string().min(1),
  fromSeq: Count,
  toSeq: Count,
})
export type ExportSegment = z.infer<typeof ExportSegment>

export const ExportHeader = z
  .object({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(EXPORT_VERSION),
    session: z.object({
      id: z.string().min(1),
      title: z.string().nullable(),
      projectDir: z.string(),
      createdAt: Count,
      updatedAt: Count,
    }),
    ancestry: z.array(ExportSegment).min(1),
  })
  .superRefine((header, ctx) => {
    let next = 0
    header.ancestry.forEach((segment, i) => {
      if (segment.fromSeq !== next || segment.toSeq < segment.fromSeq) {
        ctx.addIssue({
          code: 'custom',
          path: ['ancestry', i],
          message: `segments must cover the seqs from 0 without gaps; expected one from seq ${next}`,
        })
      }
      next = segment.toSeq
    })
  })
export type ExportHeader = z.infer<typeof ExportHeader>

/** One event line. `data` is checked against its type's schema by `rowToEvent`. */
const EventLine = z.object({
  seq: Count,
  type: z.string().min(1),
  v: z.number().int(),
  turn: Count,
  step: Count,
  at: Count,
  data: z.record(z.string(), z.unknown()),
})

/** A session's whole history: the export's header and its events, read page by page. */
export interface SessionHistory {
  readonly header: ExportHeader
  /** Every event from seq 0, ancestors' prefix included; read lazily, once. */
  readonly events: Generator<LogEvent, void, undefined>
}

/**
 * A session's whole history as of now (forks flattened): what `bridle export` writes, in any
 * format. Reads a snapshot: events appended while it is read are left out, so the result is
 * always a consistent prefix of the log. Throws NO_SUCH_SESSION, or (from `events`) CORRUPT_LOG
 * naming the seq of a stored row that does not parse.
 */
export function readSessionHistory(store: Store, sessionId: string): SessionHistory {
  const row = store.getSession(sessionId)
  if (!row) throw new StoreError('NO_SUCH_SESSION', `there is no session ${sessionId}`)
  const length = row.nextSeq
  const ancestry = store
    .segments(sessionId)
    .map((segment) => ({
      sessionId: segment.sessionId,
      fromSeq: segment.fromSeq,
      toSeq: Math.min(segment.toSeq, length),
    }))
    .filter((segment) => segment.toSeq > segment.fromSeq || segment.sessionId === sessionId)
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    session: {
      id: row.id,
      title: row.title,
      projectDir: row.projectDir,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    },
    ancestry,
  }
  return { header, events: readEvents(store, sessionId, length) }
}

function* readEvents(
  store: Store,
  sessionId: string,
  length: number,
): Generator<LogEvent, void, undefined> {
  for (let fromSeq = 0; fromSeq < length; fromSeq += DEFAULT_EXPORT_PAGE) {
    const toSeq = Math.min(fromSeq + DEFAULT_EXPORT_PAGE, length)
    const rows = store.readEvents(sessionId, { fromSeq, toSeq })
    if (rows.length !== toSeq - fromSeq) {
      throw new LogError(
        'CORRUPT_LOG',
        `session ${sessionId}: seqs ${fromSeq}..${toSeq - 1} should be ${toSeq - fromSeq} events, ${rows.length} were read`,
      )
    }
    for (const [i, stored] of rows.entries()) yield rowToEvent(stored, fromSeq + i)
  }
}

/**
 * The lines of a session's export, without newlines: the header, then one event per line in seq
 * order (see `readSessionHistory`; an export never carries an event it could not import).
 */
export function* exportLines(store: Store, sessionId: string): Generator<string, void, undefined> {
  const { header, events } = readSessionHistory(store, sessionId)
  yield JSON.stringify(header)
  for (const event of events) yield JSON.stringify(eventEnvelope(event))
}

/** The whole export of a session as lines (see `exportLines`). */
export function exportSession(store: Store, sessionId: string): string[] {
  return [...exportLines(store, sessionId)]
}

export interface ImportOptions {
  /** Epoch milliseconds for the new session's `createdAt`; events keep their own `at`. */
  readonly clock?: () => number
  readonly id?: string
  /** The new session's project folder, instead of the one the export recorded. */
  readonly projectDir?: string
}

/** An import refused: `line` is 1-based, the header being line 1; the message starts `line N:`. */
export class ImportError extends Error {
  constructor(
    readonly line: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`line ${line}: ${message}`, options)
    this.name = 'ImportError'
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Imports an export as a new root session (a new id, no parent; the title is kept) and returns
 * its id. The header is checked before anything is written; then each line, as it is read, is
 * checked (JSON, known type, version, data schema, seq contiguous from 0) and replayed through a
 * Session, so the turn/step enclosure, call/result pairing, inbox, header and checkpoint rules all
 * apply, and the turn and step of each event must be the ones the log itself assigns. `lines` is
 * consumed once, one line at a time, never held whole (the import's reader bounds each line and
 * their number). All of this happens in one transaction: on any failure, an ImportError naming the
 * line is thrown and no session and no row is left behind. A trailing empty line (the file's final newline) is ignored. Every
 * `process/started` is marked `imported`, so opening the session never signals what it names.
 */
export function importSession(
  store: Store,
  lines: Iterable<string>,
  opts: ImportOptions = {},
): SessionId {
  const iterator = lines[Symbol.iterator]()
  try {
    const header = parseHeader(iterator)
    const id = (opts.id ?? randomUUID()) as SessionId
    const clock = opts.clock ?? Date.now
    store.write(() => {
      store.createSession({
        id,
        parentId: null,
        forkSeq: null,
        projectDir: opts.projectDir ?? header.session.projectDir,
        title: header.session.title,
        createdAt: clock(),
      })
      // A failed commit is thrown by close() below; reporting it as well would say it twice.
      const session = Session.open(store, id, { mode: 'write', clock, report: () => undefined })
      try {
        let count = 0
        for (const event of parseEvents(iterator, header)) {
          replay(session, markedImported(withProjectDir(event, opts.projectDir)))
          count++
        }
        const declared = header.ancestry.at(-1)?.toSeq ?? 0
        if (declared !== count) {
          throw new ImportError(
            1,
            `the header's ancestry covers ${declared} events but the file has ${count} (truncated or spliced?)`,
          )
        }
        session.close() // commits the replayed rows inside this transaction, releases the lock
      } catch (error) {
        try {
          session.close()
        } catch {
          // Closing commits what was replayed so far into this transaction, which is rolled back
          // anyway; the error worth reporting is the one that stopped the replay.
        }
        throw error
      }
    })
    return id
  } finally {
    iterator.return?.()
  }
}

/** `session/created` naming the folder the importer chose, when it chose one. */
function withProjectDir(event: LogEvent, projectDir: string | undefined): LogEvent {
  if (projectDir === undefined || event.type !== 'session/created') return event
  return { ...event, data: { ...event.data, projectDir } }
}

/**
 * `process/started` marked `imported`: the process it names was started by another installation
 * or an earlier run, and crash repair never signals it (docs/ARCHITECTURE.md 3.7), whatever the
 * file says of its host, boot and start time.
 */
function markedImported(event: LogEvent): LogEvent {
  if (event.type !== 'process/started') return event
  return { ...event, data: { ...event.data, imported: true } }
}

/** Line N of the file holds seq N-2. */
const lineOf = (seq: number) => seq + 2

function replay(session: Session, event: LogEvent): void {
  let appended: { readonly turn: number; readonly step: number }
  try {
    appended = session.append(event.type, event.data as EventDataInput<EventType>, {
      at: event.at,
    })
  } catch (error) {
    const where = `${event.type} (seq ${event.seq})`
    throw new ImportError(lineOf(event.seq), `${where}: ${messageOf(error)}`, { cause: error })
  }
  if (appended.turn !== event.turn || appended.step !== event.step) {
    throw new ImportError(
      lineOf(event.seq),
      `${event.type} (seq ${event.seq}) says turn ${event.turn} step ${event.step}, ` +
        `but the log places it in turn ${appended.turn} step ${appended.step}`,
    )
  }
}

/** Line 1: the header, checked before anything is written. */
function parseHeader(lines: Iterator<string>): ExportHeader {
  const first = lines.next()
  if (first.done === true || (first.value === '' && lines.next().done === true))
    throw new ImportError(1, 'the file is empty; expected a bridle-session header')
  // (A first line that is empty with more after it is refused by parseJson below.)
  const header = ExportHeader.safeParse(parseJson(first.value, 1))
  if (!header.success) {
    const issue = header.error.issues[0]
    throw new ImportError(
      1,
      `not a ${EXPORT_FORMAT} v${EXPORT_VERSION} header: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    )
  }
  return header.data
}

/**
 * The events of lines 2 on, each checked as it is read (JSON, envelope, type, version, data,
 * seq): one line in memory at a time. A last empty line (the final newline) is ignored.
 */
function* parseEvents(
  lines: Iterator<string>,
  header: ExportHeader,
): Generator<LogEvent, void, undefined> {
  let line = 1
  let emptyLine: number | undefined
  for (let next = lines.next(); next.done !== true; next = lines.next()) {
    line++
    if (emptyLine !== undefined) parseJson('', emptyLine) // throws: an empty line before the end
    if (next.value === '') {
      emptyLine = line
      continue
    }
    const parsed = EventLine.safeParse(parseJson(next.value, line))
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new ImportError(
        line,
        `not an event: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      )
    }
    const row: EventRow = {
      ...parsed.data,
      sessionId: header.session.id,
      data: JSON.stringify(parsed.data.data),
    }
    let event: LogEvent
    try {
      event = rowToEvent(row, line - 2)
    } catch (error) {
      throw new ImportError(line, messageOf(error), { cause: error })
    }
    yield event
  }
}

function parseJson(text: string, line: number): unknown {
  if (text.trim() === '') throw new ImportError(line, 'empty line')
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new ImportError(line, `not JSON: ${messageOf(error)}`, { cause: error })
  }
}
