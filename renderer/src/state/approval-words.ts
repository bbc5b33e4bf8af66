/**
 * Approvals in words: who decided a call (the user, the approval mode, a rule, what the call would
 * do, a guard, nobody to ask), the grants "always allow" may keep, and the `approval/respond`
 * params an answer sends. Pure, so the chat, the timeline and the tests share one wording.
 */
import type { ApprovalRequest, ParamsOf } from '../../../protocol/contract'

/** Who made an `approval/decided` (protocol/events.ts); absent in older logs: the user. */
export type DecidedBy = 'user' | 'mode' | 'rule' | 'assessment' | 'guard' | 'no-channel'

const DECIDERS = new Set<string>([
  'user',
  'mode',
  'rule',
  'assessment',
  'guard',
  'no-channel',
] satisfies DecidedBy[])

/** `by` as the log holds it, or undefined when absent or unknown (read as the user's). */
export function decidedBy(value: unknown): DecidedBy | undefined {
  return typeof value === 'string' && DECIDERS.has(value) ? (value as DecidedBy) : undefined
}

export interface Decision {
  readonly decision: 'allow' | 'deny' | 'cancelled'
  readonly by?: DecidedBy | undefined
  /** The mode in force, or the rule that decided (`bash: npm test *`). */
  readonly detail?: string | undefined
  readonly reason?: string | undefined
  readonly remember?: boolean | undefined
  /** The grant "always allow" kept (`npm test *`); several lines for a line of several commands. */
  readonly grant?: string | undefined
}

/** The approval modes, which `detail` names when a mode decided (else it says why, in words). */
const MODES = new Set(['ask', 'auto-edit', 'full-auto'])

/** How a pattern is written in a phrase: as it is (the timeline), or in backticks (a card). */
export type Quote = (pattern: string) => string

const asIs: Quote = (pattern) => pattern
export const inBackticks: Quote = (pattern) => `\`${pattern}\``

/**
 * A grant in one line: the patterns of a multi-command grant joined with ` · ` (not `; `, which
 * would read as one shell line).
 */
const patternWords = (text: string, quote: Quote): string => grantLines(text).map(quote).join(' · ')

/**
 * A rule's text as the core writes it (`bash: npm test *`; several rules joined with `; `), its
 * patterns quoted.
 */
function ruleWords(detail: string, quote: Quote): string {
  return detail
    .split(/; (?=[\w./-]+: )/)
    .map((rule) => {
      const match = /^([\w./-]+): ([\s\S]+)$/.exec(rule)
      return match ? `${match[1] ?? ''}: ${patternWords(match[2] ?? '', quote)}` : rule
    })
    .join('; ')
}

/**
 * Who decided and how, in a lower-case phrase: "allowed by full-auto", "allowed by rule bash:
 * npm test *", "refused: <reason>", "denied by you". Fits after a call id in the timeline;
 * `quote` marks the patterns (a card shows them as code).
 */
export function decisionText(d: Decision, quote: Quote = asIs): string {
  const why = d.reason === undefined || d.reason.trim() === '' ? '' : `: ${d.reason.trim()}`
  if (d.decision === 'cancelled') return 'not answered: the turn was stopped while it waited'
  const by = d.by ?? 'user'
  if (d.decision === 'allow') {
    switch (by) {
      case 'user':
        return d.remember === true
          ? `allowed by you, and remembered${d.grant ? `: ${patternWords(d.grant, quote)}` : ' for this project'}`
          : 'allowed once by you'
      case 'mode':
        if (d.detail === undefined) return 'allowed by the approval mode'
        return MODES.has(d.detail) ? `allowed by ${d.detail}` : `allowed: ${d.detail}`
      case 'rule':
        return d.detail === undefined
          ? 'allowed by a rule'
          : `allowed by rule ${ruleWords(d.detail, quote)}`
      case 'assessment':
      case 'guard':
      case 'no-channel':
        return 'allowed'
    }
  }
  switch (by) {
    case 'user':
      return d.reason === undefined || d.reason.trim() === ''
        ? 'denied by you'
        : `denied by you: “${d.reason.trim()}”`
    case 'rule':
      return d.detail === undefined
        ? 'refused by a rule'
        : `refused by rule ${ruleWords(d.detail, quote)}`
    case 'assessment':
      // `detail` is the mode when it is full-auto that never runs such a call unasked.
      return d.detail === undefined ? `refused${why}` : `refused in ${d.detail}${why}`
    case 'guard':
      return `refused${why}`
    case 'no-channel':
      return d.reason === undefined ? 'not run: nobody could be asked' : `not run${why}`
    case 'mode':
      return d.detail === undefined
        ? `refused by the approval mode${why}`
        : `refused by ${d.detail}${why}`
  }
}

/**
 * Who decided a call, for its card, when that is worth a line: any refusal, an allow by a rule
 * (why nobody was asked), a grant the user kept, a call the user allowed despite warnings. An
 * allow by the mode, or once by the user, is what the user expects and says nothing new. A grant
 * in an older log (no `grant`) was the request's approval key. Patterns are in backticks, for
 * `codeSpans`; no full stop is added, as the line may end in a pattern.
 */
export function decisionNote(
  approval:
    | (Partial<Decision> & {
        readonly approvalKey?: string | undefined
        readonly warnings?: readonly string[] | undefined
      })
    | undefined,
): string | undefined {
  const decision = approval?.decision
  if (approval === undefined || decision === undefined) return undefined
  const isPlainAllow =
    decision === 'allow' &&
    approval.by !== 'rule' &&
    approval.remember !== true &&
    (approval.warnings ?? []).length === 0
  if (isPlainAllow) return undefined
  const grant = approval.grant ?? approval.approvalKey
  const text = decisionText({ ...approval, decision, grant }, inBackticks)
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** The patterns of one grant option: one per line (a line of several commands has several). */
export function grantLines(option: string): string[] {
  return option.split('\n').filter((line) => line.trim() !== '')
}

/**
 * What "always allow" may keep for this request: its grant options, each as its lines, the
 * suggested one first. Empty when only "allow once" is possible (no options offered).
 */
export function grantChoices(request: Pick<ApprovalRequest, 'grantOptions'>): GrantChoice[] {
  const options = request.grantOptions ?? []
  return options.map((option, index) => ({
    option,
    lines: grantLines(option),
    label:
      index === 0 ? 'suggested' : index === options.length - 1 ? 'only this exact command' : '',
  }))
}

export interface GrantChoice {
  /** Exactly what is sent as `grant` and kept in the rule. */
  readonly option: string
  readonly lines: readonly string[]
  /** `suggested` for the first, `only this exact command` for the last of several. */
  readonly label: string
}

/** An answer to an approval prompt. `grant`: one of the request's grantOptions ("always"). */
export type ApprovalAnswer =
  | { readonly decision: 'allow'; readonly grant?: string | undefined }
  | { readonly decision: 'deny'; readonly reason: string }

/**
 * The `approval/respond` params for an answer. "Always" sends `remember` with the grant picked,
 * and only a grant the request offered (the host ignores others anyway): an answer never keeps
 * more than the user was shown.
 */
export function respondParams(
  request: Pick<ApprovalRequest, 'sessionId' | 'callId' | 'grantOptions'>,
  answer: ApprovalAnswer,
): ParamsOf<'approval/respond'> {
  const call = { sessionId: request.sessionId, callId: request.callId }
  if (answer.decision === 'deny') {
    const reason = answer.reason.trim()
    return { ...call, decision: 'deny', ...(reason === '' ? {} : { reason }) }
  }
  const { grant } = answer
  if (grant !== undefined && (request.grantOptions ?? []).includes(grant)) {
    return { ...call, decision: 'allow', remember: true, grant }
  }
  return { ...call, decision: 'allow', remember: false }
}

/** Splits text at `code` spans (the core quotes commands in backticks) for display. */
export function codeSpans(text: string): { readonly text: string; readonly isCode: boolean }[] {
  const parts: { text: string; isCode: boolean }[] = []
  const pattern = /`([^`]+)`/g
  let at = 0
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match.index > at) parts.push({ text: text.slice(at, match.index), isCode: false })
    parts.push({ text: match[1] ?? '', isCode: true })
    at = match.index + match[0].length
  }
  if (at < text.length) parts.push({ text: text.slice(at), isCode: false })
  return parts
}
