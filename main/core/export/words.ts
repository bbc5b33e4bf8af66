/**
 * The words both renderers share: dates, token counts, the header's facts, a call's status and
 * the redaction notice, so the HTML and the Markdown export say the same things.
 */
import type { ToolItem, TranscriptHeader } from './transcript.js'
import { plural } from './transcript.js'

export const REDACTION_NOTE =
  'Secrets were redacted before export (API keys Bridle knows, common token shapes, ' +
  'KEY=/TOKEN=/SECRET=/PASSWORD= values, private keys) and the home folder is shown as ~. ' +
  'Redaction is best-effort: read the transcript before you share it.'

/** `2026-12-06 19:13 UTC`: the same on every machine, whatever its locale or zone. */
export function formatDate(at: number): string {
  const iso = new Date(at).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens)
  return `${(tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0)}k`
}

/** The header's facts as name and value, in the order they are shown. */
export function headerFacts(header: TranscriptHeader): [string, string][] {
  const facts: [string, string][] = [
    ['Project', header.project],
    ['Model', header.models.length === 0 ? 'none recorded' : header.models.join(', ')],
    ['Started', formatDate(header.createdAt)],
    ['Last activity', formatDate(header.updatedAt)],
    ['Turns', String(header.turns)],
    ['Session', header.sessionId],
  ]
  for (const fork of header.forkedFrom) {
    facts.push(['Forked from', `${fork.sessionId} at event ${fork.atSeq}`])
  }
  if (header.spawnedBy !== undefined) {
    facts.push(['Subagent of', `${header.spawnedBy.sessionId}: ${header.spawnedBy.description}`])
  }
  return facts
}

/** `ok · exit 0`, `failed: NOT_FOUND`, `no result`; with the count of inner calls. */
export function statusText(call: ToolItem): string {
  const inner = call.children.length === 0 ? '' : ` · ${plural(call.children.length, 'inner call')}`
  const exit = call.exitCode === undefined ? '' : ` · exit ${call.exitCode}`
  switch (call.status) {
    case 'ok':
      return `ok${exit}${inner}`
    case 'failed':
      return `failed: ${call.error?.code ?? 'error'}${exit}${inner}`
    case 'running':
      return `no result${inner}`
  }
}
