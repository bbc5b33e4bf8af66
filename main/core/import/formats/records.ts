/**
 * A session file as records: one per non-empty line, parsed as JSON. A line that is not JSON
 * keeps its text, so a reader can keep it as a note (a tool that was killed mid-write leaves a
 * cut last line) rather than drop it.
 */
import type { SourceLine } from '../bounded-read.js'
import type { ImportSource, Transcript } from '../transcript.js'

export interface SourceRecord {
  /** 1-based line number in the file. */
  readonly line: number
  /** The parsed line; undefined when the line is not JSON. */
  readonly value: unknown
  readonly text: string
}

/** The records of text held whole (a scan's head of a file). */
export function parseRecords(text: string): SourceRecord[] {
  return [...toRecords(text.split('\n').map((raw, i) => ({ line: i + 1, text: raw })))]
}

/** The records of lines as they are read (see `../bounded-read.ts`); empty lines are skipped. */
export function* toRecords(lines: Iterable<SourceLine>): Generator<SourceRecord, void, undefined> {
  for (const { line, text: raw } of lines) {
    const text = raw.trim()
    if (text === '') continue
    let value: unknown
    try {
      value = JSON.parse(text) as unknown
    } catch {
      // Not JSON: `value` stays undefined and the reader decides what the line becomes.
    }
    yield { line, value, text }
  }
}

/**
 * The first record and the rest, for a reader whose file opens with a header. The rest shares
 * the iterator: it is read once, as it is consumed.
 */
export function firstAndRest(
  records: Iterable<SourceRecord>,
): readonly [SourceRecord | undefined, Iterable<SourceRecord>] {
  const iterator = records[Symbol.iterator]()
  const first = iterator.next()
  return [first.done ? undefined : first.value, { [Symbol.iterator]: () => iterator }]
}

/** What a scan lists of one session file, read from its first records. */
export interface SessionSummary {
  readonly sourceSessionId?: string
  readonly projectDir?: string
  readonly title?: string
}

/** One format Bridle can import: how to recognise it, read it, and find its files. */
export interface SourceFormat {
  readonly source: ImportSource
  /** A name for people ("Claude Code"). */
  readonly label: string
  /** Whether the first records (up to 50) are this format's. */
  matches(head: readonly SourceRecord[]): boolean
  /** Reads the records as they come (read once, never held whole); the first is line 1's. */
  read(records: Iterable<SourceRecord>): Transcript
  /** Where under the home folder this tool keeps its sessions, and how deep its files lie. */
  readonly folder: readonly string[]
  /** Whether a file found under `folder` (its path relative to it, `/`-separated) is a session. */
  isSessionFile(relative: string): boolean
  describe(head: readonly SourceRecord[]): SessionSummary
}
