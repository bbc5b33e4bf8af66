/**
 * A capability report as the card shows it: the rows `probeRows` words (the same the CLI prints),
 * each marked when it is a warning, and when the test ran. Pure, so tests pin the words.
 */
import type { ProbeReport } from '../../../../protocol/probe-report'
import { probeRows } from '../../../../protocol/probe-words'

export interface CapabilityRow {
  readonly label: string
  readonly text: string
  /** Why this row needs the user's attention, in a few words; absent for a plain fact. */
  readonly warning?: string
}

/**
 * The card's rows. Two findings are warnings: a server that cut the long prompt without a word
 * (the model silently loses the start of every long conversation), and one that refused tools
 * (Bridle works around it, but the user may want to fix the server).
 */
export function capabilityRows(report: ProbeReport, endpointId: string): CapabilityRow[] {
  return probeRows(report, endpointId).map((row) => {
    const warning = warningOf(report, row.label)
    return warning === undefined ? row : { ...row, warning }
  })
}

function warningOf(report: ProbeReport, label: string): string | undefined {
  if (label === 'Context' && report.context.verdict === 'cut') return 'prompts are cut silently'
  if (label === 'Tool calls' && report.toolCalls.streamed === 'refused')
    return 'the server refuses tools'
  return undefined
}

/** Whether any row of the report is a warning (the card's border says so too). */
export function hasWarnings(report: ProbeReport): boolean {
  return report.context.verdict === 'cut' || report.toolCalls.streamed === 'refused'
}

/** `just now`, `5 min ago`, `3 h ago`, `yesterday`, `4 days ago`, then the date. */
export function sinceText(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000))
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  const days = Math.round(hours / 24)
  if (days === 1) return 'yesterday'
  if (days < 30) return `${days} days ago`
  return `on ${new Date(at).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' })}`
}

/** How long the test took: `78 ms`, `4.2 s`, `2 min 5 s`. */
export function tookText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}
