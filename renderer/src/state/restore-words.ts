/**
 * The restore dialog's and row's sentences, from what `workspace/restore` planned or did. Pure
 * (no React), so unit-tested as is (test/renderer/restore-words.test.ts).
 */
import type { EventDto, RestoreOutcome } from '../../../protocol/contract'

export interface RestorePlan {
  readonly written: readonly string[]
  readonly removed: readonly string[]
  readonly skipped: readonly { readonly path: string; readonly reason: string }[]
  readonly drifted: readonly string[]
}

/** One file of the plan as the dialog lists it. */
export interface PlanLine {
  readonly path: string
  readonly verb: 'put back' | 'removed' | 'left alone'
  /** Why a file is left alone. */
  readonly reason?: string
  /** Changed outside Bridle since the session last saw it: the restore overwrites that change. */
  readonly isDrifted: boolean
}

/** The plan's files in path order, each with what happens to it. */
export function planLines(plan: RestorePlan): PlanLine[] {
  const drifted = new Set(plan.drifted)
  const lines: PlanLine[] = [
    ...plan.written.map((path) => ({ path, verb: 'put back' as const })),
    ...plan.removed.map((path) => ({ path, verb: 'removed' as const })),
    ...plan.skipped.map(({ path, reason }) => ({ path, verb: 'left alone' as const, reason })),
  ].map((line) => ({ ...line, isDrifted: drifted.has(line.path) }))
  return lines.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/** Whether the plan changes any file (else the folder already matches the point). */
export function changesFiles(plan: RestorePlan): boolean {
  return plan.written.length + plan.removed.length > 0
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** "2 files put back, 1 removed" (what a restore changes), or "no file changes". */
export function planSummary(plan: RestorePlan): string {
  const parts: string[] = []
  if (plan.written.length > 0) parts.push(`${count(plan.written.length, 'file')} put back`)
  if (plan.removed.length > 0) {
    parts.push(
      parts.length === 0
        ? `${count(plan.removed.length, 'file')} removed`
        : `${plan.removed.length} removed`,
    )
  }
  if (plan.skipped.length > 0) parts.push(`${plan.skipped.length} left alone`)
  return parts.length === 0 ? 'no file changes' : parts.join(', ')
}

/** What a finished restore or undo did, for the dialog's last screen. */
export function doneSentence(kind: 'restore' | 'undo', outcome: RestoreOutcome): string {
  if (outcome.status !== 'restored') return ''
  const what = planSummary(outcome)
  const overwritten =
    outcome.drifted.length > 0
      ? ` Overwrote ${count(outcome.drifted.length, 'change')} made outside Bridle.`
      : ''
  return kind === 'restore'
    ? `Files restored: ${what}.${overwritten}`
    : `Restore undone: ${what}.${overwritten}`
}

/** Event types as the dialog names them: "right after event 12 (the end of turn 2)". */
export function eventWhere(event: Pick<EventDto, 'seq' | 'type' | 'turn'>): string {
  const what = EVENT_WORDS[event.type]
  const named = what === undefined ? event.type : what(event.turn)
  return `right after event ${event.seq} (${named})`
}

const EVENT_WORDS: Readonly<Record<string, (turn: number) => string>> = {
  'turn/end': (turn) => `the end of turn ${turn}`,
  'turn/start': (turn) => `the start of turn ${turn}`,
  'user/message': (turn) => `your message in turn ${turn}`,
  'assistant/message': (turn) => `a reply in turn ${turn}`,
  'tool/result': (turn) => `a tool's result in turn ${turn}`,
  'tool/call': (turn) => `a tool call in turn ${turn}, before it ran`,
  'workspace/diff': (turn) => `the file changes of turn ${turn}`,
}
