import type { Tool } from './types.js'

export const APPROVAL_MODES = ['ask', 'auto-edit', 'full-auto'] as const
export type ApprovalMode = (typeof APPROVAL_MODES)[number]
export const isApprovalMode = (text: string): text is ApprovalMode =>
  (APPROVAL_MODES as readonly string[]).includes(text)

/** A remembered rule: "always allow `npm test`", or "never run `git push`". */
export interface ApprovalRule {
  readonly tool: string
  /** Matches when the call's approval key starts with it (bash: the command). Absent: any call. */
  readonly prefix?: string
  readonly effect: 'allow' | 'deny'
}

export interface ApprovalRequest {
  readonly callId: string
  readonly tool: string
  /** Exactly what will run, as the user should see it. */
  readonly description: string
  readonly approvalKey: string | undefined
}

export interface ApprovalDecision {
  readonly decision: 'allow' | 'deny'
  /** Keep an allow rule for this tool (and approval key prefix) from now on. */
  readonly remember?: boolean
  /** Passed to the model with a denial. */
  readonly reason?: string
}

/** Asks a person. Absent in headless runs: then `ask` cannot be satisfied (NO_APPROVAL_CHANNEL). */
export type ApprovalChannel = (
  request: ApprovalRequest,
  signal: AbortSignal,
) => Promise<ApprovalDecision>

export type ApprovalOutcome =
  | { readonly allowed: true; readonly how: 'policy' | 'rule' | 'user' }
  | {
      readonly allowed: false
      readonly code: 'APPROVAL_DENIED' | 'NO_APPROVAL_CHANNEL' | 'POLICY_DENIED'
      readonly message: string
    }

/**
 * Decides whether a call may run: deny rules first (POLICY_DENIED), then allow rules, then the
 * mode (reads always; edits in auto-edit and full-auto; anything in full-auto), then the user.
 * "The user said no", "nobody could be asked" and "a policy forbids it" stay distinct codes.
 */
export class ApprovalPolicy {
  private readonly rules: ApprovalRule[]

  constructor(
    readonly mode: ApprovalMode,
    rules: readonly ApprovalRule[] = [],
    private readonly channel?: ApprovalChannel,
    /** Called when the user asks to remember an allow rule, so it can be persisted. */
    private readonly onRemember?: (rule: ApprovalRule) => void,
  ) {
    this.rules = [...rules]
  }

  /** Whether an explicit allow rule covers this call (guards let such calls through). */
  isExplicitlyAllowed(tool: string, key: string | undefined): boolean {
    return this.matching(tool, key).some((rule) => rule.effect === 'allow')
  }

  async decide(
    tool: Tool,
    args: unknown,
    callId: string,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    const key = tool.approvalKey?.(args)
    const rules = this.matching(tool.name, key)
    if (rules.some((rule) => rule.effect === 'deny')) {
      return {
        allowed: false,
        code: 'POLICY_DENIED',
        message: `A rule forbids ${tool.name}${key ? ` "${key}"` : ''}. Do not retry it; find another way or ask the user.`,
      }
    }
    if (rules.some((rule) => rule.effect === 'allow')) return { allowed: true, how: 'rule' }
    if (tool.kind === 'read') return { allowed: true, how: 'policy' }
    if (this.mode === 'full-auto') return { allowed: true, how: 'policy' }
    if (this.mode === 'auto-edit' && tool.kind === 'edit') return { allowed: true, how: 'policy' }
    if (!this.channel) {
      return {
        allowed: false,
        code: 'NO_APPROVAL_CHANNEL',
        message: `${tool.name} needs the user's approval, and nobody can be asked in this session (approval mode "${this.mode}" without a user). It did not run.`,
      }
    }
    const description = tool.describe?.(args) ?? `${tool.name} ${JSON.stringify(args)}`
    const answer = await this.channel(
      { callId, tool: tool.name, description, approvalKey: key },
      signal,
    )
    if (answer.decision === 'deny') {
      return {
        allowed: false,
        code: 'APPROVAL_DENIED',
        message: `The user declined ${tool.name}${answer.reason ? `: ${answer.reason}` : '.'}`,
      }
    }
    if (answer.remember) {
      const rule: ApprovalRule =
        key === undefined
          ? { tool: tool.name, effect: 'allow' }
          : { tool: tool.name, prefix: key, effect: 'allow' }
      this.rules.push(rule)
      this.onRemember?.(rule)
    }
    return { allowed: true, how: 'user' }
  }

  private matching(tool: string, key: string | undefined): ApprovalRule[] {
    return this.rules.filter(
      (rule) =>
        rule.tool === tool &&
        (rule.prefix === undefined || (key !== undefined && key.startsWith(rule.prefix))),
    )
  }
}
