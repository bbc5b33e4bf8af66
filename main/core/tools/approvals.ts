import { REPEATED_CALL, repeatDetail, repeatRefusal, repeatWarning } from './repeat-guard.js'
import type { Repeat } from './repeat-guard.js'
import type { CallAssessment, CallGrant, Tool } from './types.js'

export { APPROVAL_MODES, isApprovalMode } from './approval-types.js'
export type {
  ApprovalMode,
  ApprovalRule,
  ApprovalRequest,
  ApprovalDecision,
  ApprovalChannel,
  ApprovalCode,
  ApprovalOutcome,
  DecidedBy,
  ApprovalAudit,
} from './approval-types.js'
import type {
  ApprovalMode,
  ApprovalRule,
  ApprovalRequest,
  ApprovalDecision,
  ApprovalChannel,
  ApprovalOutcome,
  ApprovalAudit,
} from './approval-types.js'

const MODE_RANK: Readonly<Record<ApprovalMode, number>> = { ask: 0, 'auto-edit': 1, 'full-auto': 2 }

const NORMAL: CallAssessment = { level: 'normal', reasons: [] }

/** What `decided` is told: the answer and who gave it. */
type Answer = Parameters<ApprovalAudit['decided']>[1]

/** One call on its way through `decide`: what each step looks at. */
interface Review {
  readonly tool: Tool
  readonly args: unknown
  readonly call: { readonly callId: string; readonly tool: string }
  readonly signal: AbortSignal
  readonly audit: ApprovalAudit | undefined
  readonly ctx: { readonly projectDir: string }
  readonly assessment: CallAssessment
  /** The call's approval key (a path, a command), and the same quoted for messages. */
  readonly key: string | undefined
  readonly shown: string
  /** The loop guard flagged the call (repeat-guard.ts): the question says so. */
  readonly repeat?: Repeat
}

/**
 * Decides whether a call may run, and logs every decision, automatic ones too:
 * 1. what the call would do (`assess`): `refuse` never runs;
 * 2. deny rules (POLICY_DENIED);
 *    then a call the loop guard flagged (`repeat`) is put to the user whatever the mode and the
 *    rules say; with nobody to ask (full-auto, headless) it is refused with REPEATED_CALL;
 * 3. `confirm` (a protected path, a destructive command): this call's own approval in every
 *    mode, refused in full-auto; only a rule the user wrote for exactly that path lets it pass;
 * 4. allow rules that cover the call (never a `confirm`, never a call asking for the network);
 * 5. the mode: reads always; edits in auto-edit and full-auto; anything in full-auto, except a
 *    call nothing keeps inside the project (`uncontained`: an unsandboxed command the judge
 *    cannot prove stays inside), which goes to the user as in `ask`;
 * 6. the user.
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

  async decide(
    tool: Tool,
    args: unknown,
    callId: string,
    signal: AbortSignal,
    audit?: ApprovalAudit,
    ctx: { readonly projectDir: string } = { projectDir: process.cwd() },
    /** The loop guard flagged this call as the same call again (repeat-guard.ts). */
    repeat?: Repeat,
  ): Promise<ApprovalOutcome> {
    const assessment = await assessCall(tool, args, ctx)
    const key = tool.approvalKey?.(args)
    const review: Review = {
      tool,
      args,
      call: { callId, tool: tool.name },
      signal,
      audit,
      ctx,
      assessment,
      key,
      shown: key ? ` "${key}"` : '',
    }
    if (assessment.level === 'refuse') return refuse(review)
    const denyRule = this.rules.find(
      (rule) => rule.effect === 'deny' && this.ruleCovers(rule, tool, args, key, ctx),
    )
    if (denyRule) return forbid(review, denyRule)
    if (repeat !== undefined) return this.repeated({ ...review, repeat }, repeat)
    if (assessment.level === 'confirm') return this.confirm(review)
    return this.allowOrAsk(review)
  }

  /**
   * Step 3: a `confirm` call needs its own approval, and full-auto refuses it. Only a rule
   * naming exactly this target (a path the user wrote a rule for) passes it.
   */
  private async confirm(review: Review): Promise<ApprovalOutcome> {
    const { tool, key, assessment } = review
    const exact = this.rules.find(
      (rule) =>
        rule.effect === 'allow' &&
        rule.tool === tool.name &&
        rule.prefix !== undefined &&
        key !== undefined &&
        rule.prefix === key,
    )
    if (exact && tool.grants === undefined) {
      await record(review, { decision: 'allow', by: 'rule', detail: ruleText(exact) })
      return { allowed: true, how: 'rule', grant: this.grant(review, 'rule', true) }
    }
    if (this.mode === 'full-auto') {
      const why = assessment.reasons.join('; ')
      await record(review, { decision: 'deny', by: 'assessment', detail: this.mode, reason: why })
      return {
        allowed: false,
        code: 'POLICY_DENIED',
        message: `${tool.name}${review.shown} was not run: ${why}. full-auto never does this without the user's approval of the very call; do not retry it. Find another way, or ask the user to approve it in ask mode.`,
      }
    }
    return this.ask(review, undefined)
  }

  /**
   * The same call again (the loop guard): the user decides, in every mode short of full-auto; an
   * allow covers the call as a whole (its `confirm` and its network too, which the question
   * shows). Full-auto, or nobody to ask: it does not run, and the pipeline stops the turn.
   */
  private async repeated(review: Review, repeat: Repeat): Promise<ApprovalOutcome> {
    if (this.mode !== 'full-auto' && this.channel) return this.ask(review, undefined)
    await record(review, {
      decision: 'deny',
      by: 'guard',
      detail: repeatDetail(repeat),
      reason: `a likely loop, and ${this.mode === 'full-auto' ? 'full-auto asks nobody' : 'nobody can be asked in this session'}: the turn is stopped`,
    })
    return { allowed: false, code: REPEATED_CALL, message: repeatRefusal(review.tool.name, repeat) }
  }

  /**
   * Steps 4 to 6: allow rules that cover the call, then the mode, then the user. A call that
   * asks for the network, or whose assessment says it cannot be granted, passes no rule and is
   * offered no grant to keep.
   */
  private async allowOrAsk(review: Review): Promise<ApprovalOutcome> {
    const { tool, args, key, ctx, assessment } = review
    const network = assessment.network === true
    const allowedBy = this.allowingRules(tool, args, key, ctx)
    if (allowedBy.length > 0 && assessment.grantable !== false && !network) {
      await record(review, {
        decision: 'allow',
        by: 'rule',
        detail: allowedBy.map(ruleText).join('; '),
      })
      return { allowed: true, how: 'rule', grant: this.grant(review, 'rule') }
    }
    if (this.modeAllows(tool) && (assessment.uncontained ?? []).length === 0) {
      await record(review, {
        decision: 'allow',
        by: 'mode',
        detail:
          tool.kind === 'read' && tool.runsUnaskedFrom === undefined
            ? 'reads are always allowed'
            : this.mode,
      })
      return { allowed: true, how: 'policy', grant: this.grant(review, 'mode') }
    }
    const options =
      assessment.grantable === false || network
        ? undefined
        : this.grantOptions(tool, args, key, ctx)
    return this.ask(review, options)
  }

  /**
   * Reads always; edits in auto-edit and full-auto; anything in full-auto; a tool that says from
   * which mode it runs unasked (an MCP tool), from that mode on.
   */
  private modeAllows(tool: Tool): boolean {
    const from =
      tool.runsUnaskedFrom ??
      (tool.kind === 'read' ? 'ask' : tool.kind === 'edit' ? 'auto-edit' : 'full-auto')
    return MODE_RANK[this.mode] >= MODE_RANK[from]
  }

  /** What an allowed call may do: the network only when the user (or full-auto) allowed it. */
  private grant(review: Review, by: CallGrant['by'], protectedPaths = false): CallGrant {
    return {
      by,
      network: review.assessment.network === true && (by === 'user' || this.mode === 'full-auto'),
      protectedPaths,
    }
  }

  /** Asks the user; keeps a rule when they say "always" and a grant was offered. */
  private async ask(
    review: Review,
    options: readonly string[] | undefined,
  ): Promise<ApprovalOutcome> {
    const channel = this.channel
    if (!channel) return this.nobodyToAsk(review)
    const request = approvalRequest(review, options)
    // A decision that could not be logged is not acted on: audit failures propagate.
    await review.audit?.asked(request)
    let answer: ApprovalDecision
    try {
      answer = await untilAborted(channel(request, review.signal), review.signal)
    } catch (error) {
      return unanswered(review, error)
    }
    if (answer.decision === 'deny') return declined(review, answer)
    const kept = keptGrant(request, answer)
    await record(review, {
      decision: 'allow',
      by: 'user',
      ...(kept === undefined ? {} : { remember: true }),
      ...(kept ? { grant: kept } : {}),
    })
    if (kept !== undefined) {
      const rule = rememberedRule(review.tool, kept)
      this.rules.push(rule)
      this.onRemember?.(rule)
    }
    return {
      allowed: true,
      how: 'user',
      grant: this.grant(review, 'user', review.assessment.level === 'confirm'),
    }
  }

  /** A headless run: a call that needs the user cannot run. */
  private async nobodyToAsk(review: Review): Promise<ApprovalOutcome> {
    await record(review, {
      decision: 'deny',
      by: 'no-channel',
      detail: this.mode,
      reason: 'nobody can be asked in this session',
    })
    const uncontained = review.assessment.uncontained ?? []
    const why =
      uncontained.length === 0
        ? ''
        : ` (${uncontained.join('; ')}; turn the sandbox on, or run it where the user can approve it)`
    return {
      allowed: false,
      code: 'NO_APPROVAL_CHANNEL',
      message: `${review.tool.name} needs the user's approval${why}, and nobody can be asked in this session (approval mode "${this.mode}" without a user). It did not run.`,
    }
  }

  /** The remembered and configured rules, for settings views. */
  listRules(): readonly ApprovalRule[] {
    return [...this.rules]
  }

  private grantOptions(
    tool: Tool,
    args: unknown,
    key: string | undefined,
    ctx: { readonly projectDir: string },
  ): readonly string[] | undefined {
    if (tool.grants) return tool.grants.options(args, ctx)
    // A tool with approval keys that gives none for this call cannot be covered by a rule; one
    // without approval keys at all is covered as a whole (the rule names just the tool).
    if (key !== undefined) return [key]
    return tool.approvalKey === undefined ? [] : undefined
  }

  /**
   * The allow rules that together cover the call, or none. A tool with grants may need several
   * (`npm test && npm run lint` takes a rule for each); any other tool needs one prefix rule.
   */
  private allowingRules(
    tool: Tool,
    args: unknown,
    key: string | undefined,
    ctx: { readonly projectDir: string },
  ): ApprovalRule[] {
    const mine = this.rules.filter((rule) => rule.effect === 'allow' && rule.tool === tool.name)
    const whole = mine.find((rule) => rule.pattern === undefined && rule.prefix === undefined)
    if (whole) return [whole]
    if (tool.grants) {
      const patterned = mine.filter((rule) => rulePatterns(rule).length > 0)
      const patterns = patterned.flatMap(rulePatterns)
      if (patterns.length === 0 || !tool.grants.covers(patterns, args, ctx)) return []
      // Together they cover the call; the log names only those that match a part of it.
      const { grants } = tool
      const named = patterned.filter((rule) => grants.touches(rulePatterns(rule), args, ctx))
      return named.length > 0 ? named : patterned
    }
    const covering = mine.find(
      (rule) => rule.prefix !== undefined && key !== undefined && coversKey(rule.prefix, key),
    )
    return covering ? [covering] : []
  }

  /** Whether a rule applies to the call (for deny rules: any part of it). */
  private ruleCovers(
    rule: ApprovalRule,
    tool: Tool,
    args: unknown,
    key: string | undefined,
    ctx: { readonly projectDir: string },
  ): boolean {
    if (rule.tool !== tool.name) return false
    if (rule.pattern === undefined && rule.prefix === undefined) return true
    if (tool.grants) return tool.grants.touches(rulePatterns(rule), args, ctx)
    return rule.prefix !== undefined && key !== undefined && coversKey(rule.prefix, key)
  }
}

/** What the call would do. A check that fails cannot vouch for the call: it needs a person. */
async function assessCall(
  tool: Tool,
  args: unknown,
  ctx: { readonly projectDir: string },
): Promise<CallAssessment> {
  try {
    return (await tool.assess?.(args, ctx)) ?? NORMAL
  } catch (error) {
    return {
      level: 'confirm',
      reasons: [
        `its safety check failed (${error instanceof Error ? error.message : String(error)})`,
      ],
    }
  }
}

/** Logs a decision about the call. */
async function record(review: Review, answer: Answer): Promise<void> {
  await review.audit?.decided(review.call, answer)
}

/** Step 1: what the assessment refuses never runs, in any mode. */
async function refuse(review: Review): Promise<ApprovalOutcome> {
  const why = review.assessment.reasons.join('; ')
  await record(review, { decision: 'deny', by: 'assessment', reason: why })
  return {
    allowed: false,
    code: 'GUARD_DENIED',
    message: `${review.tool.name}${review.shown} was refused: ${why}. This is refused in every approval mode; do not retry it. If it is really needed, ask the user to do it themselves.`,
  }
}

/** Step 2: a deny rule covers the call. */
async function forbid(review: Review, rule: ApprovalRule): Promise<ApprovalOutcome> {
  await record(review, { decision: 'deny', by: 'rule', detail: ruleText(rule) })
  return {
    allowed: false,
    code: 'POLICY_DENIED',
    message: `A rule forbids ${review.tool.name}${review.shown}. Do not retry it; find another way or ask the user.`,
  }
}

/** The question as the user sees it: what will run, why it needs care, what "always" keeps. */
function approvalRequest(review: Review, options: readonly string[] | undefined): ApprovalRequest {
  const { tool, args, assessment } = review
  const warnings = [
    ...(review.repeat ? [repeatWarning(review.repeat)] : []),
    ...assessment.reasons,
    ...(assessment.uncontained ?? []),
    ...(assessment.network ? ['it asks for network access'] : []),
  ]
  return {
    ...review.call,
    args,
    description: tool.describe?.(args) ?? `${tool.name} ${JSON.stringify(args)}`,
    approvalKey: options?.[0],
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(options ? { grantOptions: options } : {}),
  }
}

/** No answer came: the user stopped the turn, or the channel failed (fail closed: no grant). */
async function unanswered(review: Review, error: unknown): Promise<ApprovalOutcome> {
  const name = review.tool.name
  if (review.signal.aborted) {
    await record(review, { decision: 'cancelled', by: 'user' })
    return {
      allowed: false,
      code: 'ABORTED_BEFORE_DISPATCH',
      message: `The user stopped the turn while ${name} waited for approval; it did not run.`,
    }
  }
  const why = error instanceof Error ? error.message : String(error)
  await record(review, { decision: 'deny', by: 'no-channel', reason: `asking failed: ${why}` })
  return {
    allowed: false,
    code: 'NO_APPROVAL_CHANNEL',
    message: `${name} needs the user's approval, and asking failed (${why}). It did not run.`,
  }
}

/** The user said no; their reason goes to the model. */
async function declined(review: Review, answer: ApprovalDecision): Promise<ApprovalOutcome> {
  await record(review, {
    decision: 'deny',
    by: 'user',
    ...(answer.reason ? { reason: answer.reason } : {}),
  })
  return {
    allowed: false,
    code: 'APPROVAL_DENIED',
    message: `The user declined ${review.tool.name}${answer.reason ? `: ${answer.reason}` : '.'}`,
  }
}

/**
 * The grant an allow keeps, or undefined for "this once". "Always" keeps only a grant that was
 * offered: a compound or destructive command has none, and "always" then means this once. An
 * empty list offers the tool as a whole (a tool whose calls have no approval keys): ''.
 */
function keptGrant(request: ApprovalRequest, answer: ApprovalDecision): string | undefined {
  if (answer.remember !== true || !request.grantOptions) return undefined
  if (request.grantOptions.length === 0) return ''
  return request.grantOptions.find((option) => option === (answer.grant ?? option))
}

/** The allow rule a kept grant becomes: the whole tool, a path prefix, or a command pattern. */
function rememberedRule(tool: Tool, kept: string): ApprovalRule {
  if (kept === '') return { tool: tool.name, effect: 'allow' }
  return tool.grants === undefined
    ? { tool: tool.name, prefix: kept, effect: 'allow' }
    : { tool: tool.name, pattern: kept, effect: 'allow' }
}

/**
 * A rule's command patterns: its `pattern`, one per line; an older rule kept a text prefix,
 * which means that prefix and anything after it.
 */
function rulePatterns(rule: ApprovalRule): string[] {
  if (rule.pattern !== undefined) return rule.pattern.split('\n').filter((line) => line !== '')
  return rule.prefix === undefined ? [] : [`${rule.prefix} *`]
}

/** A rule as the log and settings name it: `bash: npm test *`. */
export function ruleText(rule: ApprovalRule): string {
  const what = rule.pattern ?? rule.prefix
  return what === undefined ? rule.tool : `${rule.tool}: ${what}`
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
