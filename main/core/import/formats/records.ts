/**
 * A session file as records: one per non-empty line, parsed as JSON. A line that is not JSON
 * keeps its text, so a reader can keep it as a note (a tool that was killed mid-write leaves a
 * cut last line) rather than drop it.
 */
import type { ImportSource, Transcript } from '../transcript.js'

export interface SourceRecord {
  /** 1-based line number in the file. */
  readonly line: number
  /** The parsed line; undefined when the line is not JSON. */
  readonly value: unknown
  readonly text: string
}

export function parseRecords(text: string): SourceRecord[] {
  const records: SourceRecord[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    let value: unknown
    try {
      value = JSON.parse(line) as unknown
    } catch {
      // Not JSON: `value` stays undefined and the reader decides what the line becomes.
    }
    records.push({ line: i + 1, value, text: line })
  })
  return records
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
  read(records: readonly SourceRecord[]): Transcript
  /** Where under the home folder this tool keeps its sessions, and how deep its files lie. */
  readonly folder: readonly string[]
  /** Whether a file found under `folder` (its path relative to it, `/`-separated) is a session. */
  isSessionFile(relative: string): boolean
  describe(head: readonly SourceRecord[]): SessionSummary
}
