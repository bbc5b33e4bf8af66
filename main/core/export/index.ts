/**
 * Transcripts for people (`bridle export --format html|md`): a session's whole history read from
 * the log, folded into a transcript, redacted, and drawn as one HTML page or one Markdown file.
 */
import type { Store } from '../store/types.js'
import { readSessionHistory } from '../log/export.js'
import { renderHtml } from './html.js'
import { renderMarkdown } from './markdown.js'
import { buildTranscript } from './transcript.js'
import type { TranscriptOptions } from './transcript.js'

export { createRedactor, REDACTED, secretsFromEnv } from './redact.js'
export type { Redactor, RedactorOptions } from './redact.js'
export type { Transcript, TranscriptItem, ToolItem, FileItem } from './transcript.js'
export { buildTranscript, renderHtml, renderMarkdown }

export const TRANSCRIPT_FORMATS = ['html', 'md'] as const
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number]

/** A transcript's text, and a name to save it under. */
export interface ExportedTranscript {
  readonly text: string
  /** `<the title's words>.html` (redacted, plain letters, digits and dashes), or `session-<id>`. */
  readonly fileName: string
}

/**
 * The transcript of session `sessionId` (forks flattened) in `format`, as one string. Throws
 * NO_SUCH_SESSION, or CORRUPT_LOG for a row that does not parse (see `readSessionHistory`).
 */
export function exportTranscript(
  store: Store,
  sessionId: string,
  format: TranscriptFormat,
  opts: TranscriptOptions,
): ExportedTranscript {
  const { header, events } = readSessionHistory(store, sessionId)
  const transcript = buildTranscript(header, events, opts)
  const text = format === 'html' ? renderHtml(transcript) : renderMarkdown(transcript)
  return { text, fileName: `${fileStem(header.session.title, opts, sessionId)}.${format}` }
}

/** At most this many characters of the title name the file. */
const MAX_STEM = 60

function fileStem(title: string | null, opts: TranscriptOptions, sessionId: string): string {
  const words = opts
    .redact(title ?? '')
    .replace(/\[redacted\]/g, ' ')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_STEM)
    .replace(/-+$/, '')
    .toLowerCase()
  return words === '' ? `session-${sessionId.slice(0, 8)}` : words
}
