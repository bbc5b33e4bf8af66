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
      readonly code:
        'APPROVAL_DENIED' | 'NO_APPROVAL_CHANNEL' | 'POLICY_DENIED' | 'ABORTED_BEFORE_DISPATCH'
      readonly message: string
    }

/** What was asked and what was answered, logged before the answer is acted on. */
export interface ApprovalAudit {
  asked(request: ApprovalRequest): Promise<void>
  decided(
    request: ApprovalRequest,
    answer: {
      readonly decision: 'allow' | 'deny' | 'cancelled'
      readonly remember?: boolean
      readonly reason?: string
    },
  ): Promise<void>
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

  /** The prefixes of this tool's allow rules (the destructive-command guard checks them). */
  allowedPrefixes(tool: string): string[] {
    return this.rules.flatMap((rule) =>
      rule.tool === tool && rule.effect === 'allow' && rule.prefix !== undefined
        ? [rule.prefix.replace(/\s+/g, ' ').trim()]
        : [],
    )
  }

  async decide(
    tool: Tool,
    args: unknown,
    callId: string,
    signal: AbortSignal,
    audit?: ApprovalAudit,
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
    const request: ApprovalRequest = {
      callId,
      tool: tool.name,
      description: tool.describe?.(args) ?? `${tool.name} ${JSON.stringify(args)}`,
      approvalKey: key,
    }
    // A decision that could not be logged is not acted on: audit failures propagate.
    await audit?.asked(request)
    let answer: ApprovalDecision
    try {
      answer = await untilAborted(this.channel(request, signal), signal)
    } catch (error) {
      if (signal.aborted) {
        await audit?.decided(request, { decision: 'cancelled' })
        return {
          allowed: false,
          code: 'ABORTED_BEFORE_DISPATCH',
          message: `The user stopped the turn while ${tool.name} waited for approval; it did not run.`,
        }
      }
      // A channel that fails cannot grant anything (fail closed).
      const why = error instanceof Error ? error.message : String(error)
      await audit?.decided(request, { decision: 'deny', reason: `asking failed: ${why}` })
      return {
        allowed: false,
        code: 'NO_APPROVAL_CHANNEL',
        message: `${tool.name} needs the user's approval, and asking failed (${why}). It did not run.`,
      }
    }
    if (answer.decision === 'deny') {
      await audit?.decided(request, {
        decision: 'deny',
        ...(answer.reason ? { reason: answer.reason } : {}),
      })
      return {
        allowed: false,
        code: 'APPROVAL_DENIED',
        message: `The user declined ${tool.name}${answer.reason ? `: ${answer.reason}` : '.'}`,
      }
    }
    await audit?.decided(request, {
      decision: 'allow',
      ...(answer.remember ? { remember: true } : {}),
    })
    // A tool with approval keys that gives none for this call (a compound shell command) cannot
    // be covered by a standing rule: "always" then means nothing beyond this once.
    if (answer.remember && (key !== undefined || tool.approvalKey === undefined)) {
      const rule: ApprovalRule =
        key === undefined
          ? { tool: tool.name, effect: 'allow' }
          : { tool: tool.name, prefix: key, effect: 'allow' }
      this.rules.push(rule)
      this.onRemember?.(rule)
    }
    return { allowed: true, how: 'user' }
  }

  /** The remembered and configured rules, for settings views. */
  listRules(): readonly ApprovalRule[] {
    return [...this.rules]
  }

  private matching(tool: string, key: string | undefined): ApprovalRule[] {
    return this.rules.filter(
      (rule) =>
        rule.tool === tool &&
        (rule.prefix === undefined || (key !== undefined && coversKey(rule.prefix, key))),
    )
  }
}

/**
 * A remembered prefix covers a key on a word boundary: `npm test` covers `npm test -- -u` but not
 * `npm testx`; `src/` covers everything under src.
 */
function coversKey(prefix: string, key: string): boolean {
  return (
    key === prefix ||
    key.startsWith(`${prefix} `) ||
    (prefix.endsWith('/') && key.startsWith(prefix))
  )
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a late answer is dropped). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'))
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(new Error('aborted'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error instanceof Error ? error : new Error(String(error)))
      },
    )
  })
}
