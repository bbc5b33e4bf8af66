/**
 * The words of approvals that the pipeline, the hosts and the UI share: the modes, a rule, a
 * request put to a person and the answer, the refusal codes and the audit trail. The decisions
 * themselves are `approvals.ts`.
 */
import type { REPEATED_CALL } from './repeat-guard.js'
import type { CallGrant } from './types.js'

export const APPROVAL_MODES = ['ask', 'auto-edit', 'full-auto'] as const
export type ApprovalMode = (typeof APPROVAL_MODES)[number]
export const isApprovalMode = (text: string): text is ApprovalMode =>
  (APPROVAL_MODES as readonly string[]).includes(text)

/**
 * A remembered rule: "always allow `npm test *`", or "never run `git push`". A tool with grants
 * (bash) matches `pattern` on the parsed call; any other tool matches `prefix` on its approval
 * key (a path). A bash rule written with `prefix` (older config) means that prefix and anything
 * after it: `pattern` "<prefix> *".
 */
export interface ApprovalRule {
  readonly tool: string
  readonly prefix?: string
  readonly pattern?: string
  readonly effect: 'allow' | 'deny'
}

export interface ApprovalRequest {
  readonly callId: string
  readonly tool: string
  /** The call's arguments as the pipeline validated them (schema defaults filled in). */
  readonly args: unknown
  /** Exactly what will run, as the user should see it. */
  readonly description: string
  /** The prefix "always" would keep (file tools); for bash, the first of `grantOptions`. */
  readonly approvalKey: string | undefined
  /** Why this call needs more care than usual, in plain words (shown with the question). */
  readonly warnings?: readonly string[]
  /** The grants "always allow" may keep, most specific first; absent: only "allow once". */
  readonly grantOptions?: readonly string[]
}

export interface ApprovalDecision {
  readonly decision: 'allow' | 'deny'
  /** Keep an allow rule for this tool from now on: `grant` if given, else the first option. */
  readonly remember?: boolean
  /** Which of the request's `grantOptions` to keep. */
  readonly grant?: string
  /** Passed to the model with a denial. */
  readonly reason?: string
}

/** Asks a person. Absent in headless runs: then `ask` cannot be satisfied (NO_APPROVAL_CHANNEL). */
export type ApprovalChannel = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalDecision>

export type ApprovalCode =
  | 'APPROVAL_DENIED'
  | 'NO_APPROVAL_CHANNEL'
  | 'POLICY_DENIED'
  | 'GUARD_DENIED'
  | 'ABORTED_BEFORE_DISPATCH'
  | typeof REPEATED_CALL

export type ApprovalOutcome =
  | { readonly allowed: true; readonly how: 'policy' | 'rule' | 'user'; readonly grant: CallGrant }
  | { readonly allowed: false; readonly code: ApprovalCode; readonly message: string }

/** Who decided, for the log: the user, or which automatic rule. */
export interface DecidedBy {
  readonly by: 'user' | 'mode' | 'rule' | 'assessment' | 'guard' | 'no-channel'
  readonly detail?: string
}

/** What was asked and what was answered, logged before the answer is acted on. */
export interface ApprovalAudit {
  asked(request: ApprovalRequest): Promise<void>
  decided(
    request: Pick<ApprovalRequest, 'callId' | 'tool'>,
    answer: {
      readonly decision: 'allow' | 'deny' | 'cancelled'
      readonly remember?: boolean
      readonly grant?: string
      readonly reason?: string
    } & DecidedBy,
  ): Promise<void>
}
