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

/**
 * The transcript of session `sessionId` (forks flattened) in `format`, as one string. Throws
 * NO_SUCH_SESSION, or CORRUPT_LOG for a row that does not parse (see `readSessionHistory`).
 */
export function exportTranscript(
  store: Store,
  sessionId: string,
  format: TranscriptFormat,
  opts: TranscriptOptions,
): string {
  const { header, events } = readSessionHistory(store, sessionId)
  const transcript = buildTranscript(header, events, opts)
  return format === 'html' ? renderHtml(transcript) : renderMarkdown(transcript)
}
