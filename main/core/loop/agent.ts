import { isAborted } from '../kernel/abort.js'
import type { Emit, Kernel, Waterfall } from '../kernel/index.js'
import type {
  AssistantBlock,
  ChunkDelta,
  FinishReason,
  JsonValue,
  TokenEstimate,
  ToolCallBlock,
  TurnEndReason,
} from '../../../protocol/events.js'
import { deepFreeze } from '../log/freeze.js'
import type { Session } from '../log/session.js'
import type {
  ModelAdapter,
  ModelError,
  ModelParams,
  ModelRequest,
  StreamPart,
  ToolSpec,
} from '../models/types.js'
import type { Calibration, TokenCounter } from '../tokens/index.js'
import { CONTEXT_TRUNCATED_BY_SERVER, detectTruncation } from '../tokens/window.js'
import type { ContextWindow } from '../tokens/window.js'
import { MessageAssembler } from './assemble.js'
import { DEFAULT_RETRY, retryDelayMs, sleep } from './retry.js'
import type { RetryPolicy } from './retry.js'
import type { ToolRunner } from './tools.js'
import type { Attachment } from '../../../protocol/attachments.js'

export interface PromptSection {
  readonly name: string
  readonly text: string
}

/** Input a step is about to take, offered to `loop/pre-step` listeners (compaction, filters). */
export interface PreStepInput {
  readonly session: Session
  readonly turn: number
  /** The step about to start (1-based). */
  readonly step: number
  readonly claimed: readonly {
    readonly requestId: string
    readonly message: string
    readonly attachments?: readonly Attachment[]
  }[]
  /** The turn's cancel: long pre-step work (a compaction) must stop on it. */
  readonly signal: AbortSignal
}

/** A message the step logs: its text, or its text with the files and images sent with it. */
export type StepMessage =
  string | { readonly content: string; readonly attachments?: readonly Attachment[] }

export type PreStepDecision =
  | { readonly action: 'continue'; readonly messages: readonly StepMessage[] }
  | { readonly action: 'reject'; readonly reason: string }

export type LoopEvents = {
  /** Before each step: may rewrite the claimed input, or reject it (the step does not run). */
  'loop/pre-step': Waterfall<PreStepInput, PreStepDecision>
  /**
   * Each request just before it is sent, deep-frozen: observers (usage meters, tracing) may read
   * it; an attempt to change it throws, because what is sent must be what the log says.
   */
  'loop/request': Emit<{
    readonly session: Session
    readonly request: ModelRequest
    readonly startSeq: number
  }>
}

export interface AgentLimits {
  readonly maxSteps: number
  readonly maxWallMs: number
}

export const DEFAULT_LIMITS: AgentLimits = { maxSteps: 50, maxWallMs: 30 * 60_000 }

/** Error and notice codes the loop itself logs. */
export { CONTEXT_TRUNCATED_BY_SERVER }
export const OUTPUT_TRUNCATED = 'OUTPUT_TRUNCATED'

/** A server that refused a prompt as too long without saying its window: assume this share of it. */
const OVERFLOW_GUESS = 0.7

/** What the model is told after its reply was cut at the output limit with calls in it. */
export const CUT_REPLY_NOTICE =
  'Your previous reply was cut off at the output token limit, so its tool calls were dropped: none of them ran. Make the calls again; keep each one short (split a large write or edit into several).'

/** How many streamed deltas, or how many milliseconds, make one `assistant/chunk` row. */
const CHUNK_BATCH_DELTAS = 64
const CHUNK_BATCH_MS = 100

export interface AgentOptions {
  readonly session: Session
  readonly adapter: ModelAdapter
  readonly model: string
  readonly params?: ModelParams
  readonly tools: ToolRunner
  /** The system prompt's sections, in order; logged as `request/header` whenever they change. */
  readonly prompt: () => readonly PromptSection[]
  readonly limits?: Partial<AgentLimits>
  readonly retry?: RetryPolicy
  readonly kernel?: Kernel<LoopEvents>
  readonly random?: () => number
  /** Called as a turn starts and just before it ends (inside it), e.g. to log `workspace/diff`. */
  readonly turnHooks?: {
    start?(turn: number): void
    end?(turn: number, session: Session): void
  }
  /**
   * Asked once as a turn starts, after `turn/start` and before any step: text returned is logged
   * as a `user/message` of kind `context` (so it precedes the turn's input and the requests only
   * grow); undefined logs nothing. Must not throw (return undefined instead): a throw is logged
   * as a `TURN_CONTEXT_FAILED` error and the turn goes on without context.
   */
  readonly turnContext?: (session: Session, signal: AbortSignal) => Promise<string | undefined>
  /**
   * Counts each request's prompt before it is sent, logged as `request/start`'s `estimate`; the
   * calibration (the one the counter scales by) learns from the prompt tokens the server reports.
   */
  readonly tokens?: { readonly counter: TokenCounter; readonly calibration?: Calibration }
  /**
   * The window the session plans for. Each reply's reported prompt tokens are checked against
   * the estimate: a server that cut the prompt gets a CONTEXT_TRUNCATED_BY_SERVER error in the
   * log (the sample is not learnt from) and the window is lowered to what it honours.
   */
  readonly context?: {
    readonly window: ContextWindow
    /** What to tell the user when the server cut the prompt: how to give the model more room. */
    readonly raiseHint?: (honouredWindow: number) => string
  }
  /**
   * Compacts the session now, because the server refused the prompt as too long (resolves true
   * when the view got smaller). The request is then sent once more. Must not throw.
   */
  readonly compactForOverflow?: (signal: AbortSignal) => Promise<boolean>
}

export interface TurnOutcome {
  readonly turn: number
  readonly reason: TurnEndReason
  readonly error?: { readonly code: string; readonly message: string }
}

/** What streamed, live, before the log commits it as `assistant/message`. */
export interface StreamDelta {
  readonly turn: number
  readonly step: number
  readonly delta: ChunkDelta
}

type StopReason = 'cancelled' | 'max-time' | 'interrupted'

/**
 * The agent driver (docs/ARCHITECTURE.md 3.5 and 5): turns user input into turns and steps. Everything it does is
 * an event appended to the session; a request is built only from the log, so what the model is
 * sent can always be rebuilt from it. One turn runs at a time.
 */
export class Agent {
  private readonly limits: AgentLimits
  private readonly retry: RetryPolicy
  private readonly deltaListeners = new Set<(delta: StreamDelta) => void>()
  private controller: AbortController | undefined
  private stopReason: StopReason | undefined
  private running: Promise<TurnOutcome[]> | undefined
  /** Whether this agent compared the prompt with the session's header yet (`resume` vs `change`). */
  private hasCheckedHeader = false
  /** The header the last step used and what it was made of (see headerSeq). */
  private header:
    | {
        readonly seq: number
        readonly sections: readonly PromptSection[]
        readonly tools: readonly ToolSpec[]
      }
    | undefined
  /** Turns in which a reply was already cut at the output limit (the turn goes on once). */
  private readonly cutTurns = new Set<number>()

  constructor(private readonly opts: AgentOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits }
    this.retry = opts.retry ?? DEFAULT_RETRY
  }

  get session(): Session {
    return this.opts.session
  }

  get isRunning(): boolean {
    return this.running !== undefined
  }

  /**
   * Queues user input. A repeated requestId is ignored (a double-click never sends twice). Input
   * sent while a turn runs is claimed at that turn's next step.
   */
  send(input: {
    requestId: string
    text: string
    wake?: boolean
    attachments?: readonly Attachment[]
  }): { accepted: boolean } {
    if (this.session.hasRequest(input.requestId)) return { accepted: false }
    this.session.append('inbox/queued', {
      requestId: input.requestId,
      message: input.text,
      wake: input.wake ?? true,
      ...(input.attachments === undefined || input.attachments.length === 0
        ? {}
        : { attachments: [...input.attachments] }),
    })
    return { accepted: true }
  }

  /** Hears every streamed delta as it arrives (before it is logged). Returns the disposer. */
  onDelta(listener: (delta: StreamDelta) => void): () => void {
    this.deltaListeners.add(listener)
    return () => void this.deltaListeners.delete(listener)
  }

  /** Stops the running turn: the stream is archived as interrupted, running tools are aborted. */
  cancel(): void {
    this.stop('cancelled')
  }

  /**
   * Stops the running turn because the harness itself is stopping (SIGTERM, SIGHUP, quitting):
   * as cancel, and the turn ends as `interrupted`.
   */
  interrupt(): void {
    this.stop('interrupted')
  }

  /** Runs turns while woken input is queued; resolves with their outcomes. Concurrent calls share one run. */
  runUntilIdle(): Promise<TurnOutcome[]> {
    this.running ??= this.runTurns().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async runTurns(): Promise<TurnOutcome[]> {
    const outcomes: TurnOutcome[] = []
    while (this.session.queuedInput().some((input) => input.wake)) {
      outcomes.push(await this.runTurn())
      if (outcomes.at(-1)?.reason !== 'completed') break
    }
    return outcomes
  }

  /** Why the running turn was stopped (a user's cancel unless the wall-time limit did it). */
  private stoppedAs(): StopReason {
    return this.stopReason ?? 'cancelled'
  }

  private stop(reason: StopReason): void {
    if (!this.controller || this.controller.signal.aborted) return
    this.stopReason = reason
    this.controller.abort()
  }

  private async runTurn(): Promise<TurnOutcome> {
    const session = this.session
    const controller = new AbortController()
    this.controller = controller
    this.stopReason = undefined
    const deadline = setTimeout(() => this.stop('max-time'), this.limits.maxWallMs)
    const turn = session.append('turn/start', {}).turn
    this.opts.turnHooks?.start?.(turn)
    const end = async (
      reason: TurnEndReason,
      error?: { code: string; message: string },
    ): Promise<TurnOutcome> => {
      try {
        this.opts.turnHooks?.end?.(turn, session)
      } catch (hookError) {
        // The turn must still end; what the hook could not record is reported, not lost silently.
        session.append('error', {
          scope: 'turn',
          code: 'TURN_HOOK_FAILED',
          message: hookError instanceof Error ? hookError.message : String(hookError),
        })
      }
      if (error) session.append('error', { scope: 'turn', ...error })
      session.append('turn/end', { reason })
      await session.flush()
      return error ? { turn, reason, error } : { turn, reason }
    }
    try {
      await this.appendTurnContext(controller.signal)
      for (let step = 1; ; step++) {
        if (isAborted(controller.signal)) return await end(this.stoppedAs())
        if (step > this.limits.maxSteps) return await end('max-steps')
        const outcome = await this.runStep(turn, step, controller.signal)
        if (outcome === 'again') continue
        if (outcome === 'done') {
          // Input that arrived during the step (steering) is answered in this same turn.
          if (
            this.session.queuedInput().some((input) => input.wake) &&
            !isAborted(controller.signal)
          )
            continue
          return await end('completed')
        }
        return await end(outcome.reason, outcome.error)
      }
    } catch (error) {
      // A bug or a failed write: end the turn honestly if the log still takes writes.
      const message = error instanceof Error ? error.message : String(error)
      try {
        return await end('error', { code: 'LOOP_FAILED', message })
      } catch {
        throw error
      }
    } finally {
      clearTimeout(deadline)
      this.controller = undefined
    }
  }

  /** Logs the turn's volatile context (date, git state) from the `turnContext` hook, if it has any. */
  private async appendTurnContext(signal: AbortSignal): Promise<void> {
    const hook = this.opts.turnContext
    if (!hook) return
    let text: string | undefined
    try {
      text = await hook(this.session, signal)
    } catch (error) {
      this.session.append('error', {
        scope: 'turn',
        code: 'TURN_CONTEXT_FAILED',
        message: error instanceof Error ? error.message : String(error),
      })
      return
    }
    if (text !== undefined && !isAborted(signal))
      this.session.append('user/message', { content: text, kind: 'context' })
  }

  /**
   * One step: claim input, let plugins rewrite or reject it, log the user messages, ask the model
   * (with retries before the first byte), commit its message, run its tool calls.
   */
  private async runStep(
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<
    'again' | 'done' | { reason: TurnEndReason; error?: { code: string; message: string } }
  > {
    const session = this.session
    const claimed = session.queuedInput()
    if (claimed.length > 0)
      session.append('inbox/claimed', { requestIds: claimed.map((input) => input.requestId) })
    const input: PreStepInput = { session, turn, step, claimed, signal }
    const pass = (i: PreStepInput): PreStepDecision => ({
      action: 'continue',
      messages: i.claimed.map((c) =>
        c.attachments === undefined
          ? c.message
          : { content: c.message, attachments: c.attachments },
      ),
    })
    const decision = this.opts.kernel
      ? await this.opts.kernel.waterfall('loop/pre-step', input, pass, { scope: session.id })
      : pass(input)
    if (decision.action === 'reject') {
      if (step === 1)
        return { reason: 'rejected', error: { code: 'INPUT_REJECTED', message: decision.reason } }
      return { reason: 'error', error: { code: 'INPUT_REJECTED', message: decision.reason } }
    }
    if (signal.aborted) return { reason: this.stoppedAs() }

    session.append('step/start', {})
    for (const message of decision.messages) {
      if (typeof message === 'string') session.append('user/message', { content: message })
      else
        session.append('user/message', {
          content: message.content,
          ...(message.attachments === undefined ? {} : { attachments: [...message.attachments] }),
        })
    }
    const headerSeq = this.headerSeq()

    const result = await this.ask(turn, step, headerSeq, signal)
    if (result.kind === 'stopped') {
      this.archiveInterrupted(result.assembler, 'cancelled')
      session.append('step/end', { reason: 'cancelled' })
      return { reason: this.stoppedAs() }
    }
    if (result.kind === 'failed') {
      if (result.assembler.hasContent) this.archiveInterrupted(result.assembler, 'error')
      session.append('step/end', { reason: 'error' })
      return { reason: 'error', error: { code: result.error.code, message: result.error.message } }
    }
    const { assembler, finish } = result
    if (finish === 'max-tokens') return this.cutReply(assembler, turn)
    const blocks = assembler.complete()
    session.append('assistant/message', {
      blocks,
      finish,
      ...(assembler.usage ? { usage: assembler.usage } : {}),
      ...(assembler.textCallFormat === undefined
        ? {}
        : { textCalls: { format: assembler.textCallFormat } }),
    })
    if (assembler.renamedCalls.length > 0) {
      const renames = assembler.renamedCalls.map(({ from, to }) => `${from} -> ${to}`)
      session.append('notice', {
        level: 'info',
        code: 'DUPLICATE_CALL_ID',
        message: `The model gave more than one tool call the same id; each got its own (${renames.join(', ')}).`,
      })
    }
    const calls = blocks.filter((block): block is ToolCallBlock => block.type === 'tool-call')
    if (calls.length === 0) {
      session.append('step/end', { reason: 'completed' })
      return 'done'
    }
    const ran = await this.opts.tools.runCalls(calls, { session, signal })
    if (isAborted(signal)) {
      session.append('step/end', { reason: 'cancelled' })
      return { reason: this.stoppedAs() }
    }
    session.append('step/end', { reason: 'tool-calls' })
    // The runner stopped the turn (a likely loop): the model sees its calls' results next turn.
    if (ran.stopTurn) return { reason: 'error', error: { ...ran.stopTurn } }
    return 'again'
  }

  /**
   * The reply was cut at the output limit: its text is kept, its calls never run (one may be
   * incomplete). The user is told; when calls were dropped, so is the model, and the turn goes on
   * once so that it can make them again. A second cut in the turn ends it.
   */
  private cutReply(
    assembler: MessageAssembler,
    turn: number,
  ): 'again' | 'done' | { reason: TurnEndReason; error: { code: string; message: string } } {
    const session = this.session
    const dropped = assembler
      .complete()
      .filter((block): block is ToolCallBlock => block.type === 'tool-call')
    session.append('assistant/message', {
      blocks: assembler.withoutToolCalls(),
      finish: 'max-tokens',
      ...(assembler.usage ? { usage: assembler.usage } : {}),
    })
    const names = dropped.map((call) => call.name).join(', ')
    const what =
      dropped.length === 0
        ? 'the answer was cut at the output limit'
        : `the answer was cut at the output limit, and its ${dropped.length === 1 ? 'tool call' : `${dropped.length} tool calls`} (${names}) did not run`
    session.append('step/end', { reason: 'max-tokens' })
    if (dropped.length === 0) {
      session.append('notice', { level: 'warning', code: OUTPUT_TRUNCATED, message: what })
      return 'done'
    }
    if (this.cutTurns.has(turn)) {
      return {
        reason: 'error',
        error: {
          code: OUTPUT_TRUNCATED,
          message: `${what}, for the second time in this turn; raise the output limit (maxTokens) or ask for smaller steps`,
        },
      }
    }
    this.cutTurns.add(turn)
    session.append('notice', {
      level: 'warning',
      code: OUTPUT_TRUNCATED,
      message: `${what}; the model is told and asked to make them again`,
    })
    session.append('user/message', { content: CUT_REPLY_NOTICE, kind: 'notice' })
    return 'again'
  }

  /**
   * Logs `request/header` when the system prompt or the tools differ from the last one logged:
   * `initial` in a new session, `resume` when this agent reopened a session whose prompt has
   * changed since (e.g. AGENTS.md was edited), `change` when it changed while this agent ran.
   */
  private headerSeq(): number {
    const session = this.session
    const prompt = this.opts.prompt()
    const specs = this.opts.tools.specs()
    const last = session.latestHeader()
    // The runner gives the same spec objects while the tools are unchanged (model-schema.ts), so
    // a step whose prompt and tools are the last step's is answered without serializing them.
    const known = this.header
    if (
      known !== undefined &&
      known.seq === last?.seq &&
      isSameList(known.tools, specs, (a, b) => a === b) &&
      isSameList(known.sections, prompt, (a, b) => a.name === b.name && a.text === b.text)
    )
      return known.seq
    const sections = prompt.map(({ name, text }) => ({ name, text }))
    const tools = specs.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters: parameters as Record<string, JsonValue>,
    }))
    const wanted = JSON.stringify({ sections, tools })
    const isFirst = !this.hasCheckedHeader
    this.hasCheckedHeader = true
    const seq =
      last && JSON.stringify({ sections: last.data.sections, tools: last.data.tools }) === wanted
        ? last.seq
        : session.append('request/header', {
            sections,
            tools,
            reason: !last ? 'initial' : isFirst ? 'resume' : 'change',
          }).seq
    this.header = { seq, sections: prompt, tools: specs }
    return seq
  }

  /**
   * Sends the request built from the log and streams the answer, retrying failures that happened
   * before the first streamed byte. Each attempt is its own `request/start`.
   */
  private async ask(
    turn: number,
    step: number,
    firstHeaderSeq: number,
    signal: AbortSignal,
  ): Promise<
    | { kind: 'finished'; assembler: MessageAssembler; finish: FinishReason }
    | { kind: 'failed'; assembler: MessageAssembler; error: ModelError }
    | { kind: 'stopped'; assembler: MessageAssembler }
  > {
    const session = this.session
    let headerSeq = firstHeaderSeq
    let estimate = this.estimate(headerSeq)
    let hasCompacted = false
    for (let attempt = 0; ; attempt++) {
      const wire = this.opts.adapter.wire?.()
      const start = session.append('request/start', {
        provider: this.opts.adapter.provider,
        model: this.opts.model,
        params: { ...this.opts.params } as Record<string, JsonValue>,
        headerSeq,
        ...(estimate ? { estimate } : {}),
        ...(wire ? { wire } : {}),
      })
      const request = requestFromLog(session, start.seq)
      // Committed before it is sent; its fsync rides on the step's next barrier (the tool call
      // or the turn's end): a request has no effect on the world that the log must vouch for.
      await session.flush({ isSynced: false })
      this.opts.kernel?.emit(
        'loop/request',
        { session, request, startSeq: start.seq },
        { scope: session.id },
      )
      const assembler = new MessageAssembler()
      const outcome = await this.stream(request, assembler, turn, step, signal)
      if (signal.aborted) return { kind: 'stopped', assembler }
      if (outcome.type === 'finish') {
        this.checkReported(estimate, assembler.usage?.inputTokens)
        return { kind: 'finished', assembler, finish: outcome.reason }
      }
      const { error } = outcome
      if (error.code === 'CONTEXT_OVERFLOW' && !assembler.hasContent) {
        // The prompt does not fit: compact (once) to the window the server said (or, when it did
        // not say, to well under what was sent), then ask again.
        const fits =
          error.contextWindow ??
          (estimate === undefined ? undefined : Math.floor(estimate.tokens * OVERFLOW_GUESS))
        if (fits !== undefined) this.opts.context?.window.lower(fits)
        const compact = this.opts.compactForOverflow
        if (hasCompacted || compact === undefined) return { kind: 'failed', assembler, error }
        hasCompacted = true
        session.append('error', {
          scope: 'step',
          code: error.code,
          message: `${error.message} (retry 1 of 1 after compacting the history)`,
        })
        if (!(await compact(signal)) || isAborted(signal)) {
          return isAborted(signal)
            ? { kind: 'stopped', assembler }
            : { kind: 'failed', assembler, error }
        }
        // A smaller window may call for the lean prompt: the header is checked again.
        headerSeq = this.headerSeq()
        estimate = this.estimate(headerSeq)
        continue
      }
      const retries = Math.min(this.retry.retries, error.maxRetries ?? Infinity)
      const canRetry = error.isRetryable && !assembler.hasContent && attempt < retries
      if (!canRetry) return { kind: 'failed', assembler, error }
      // A server that says when to come back (Retry-After) is believed, up to the policy's cap.
      const delay = error.retryNow
        ? 0
        : Math.max(
            retryDelayMs(this.retry, attempt + 1, this.opts.random),
            Math.min(error.retryAfterMs ?? 0, this.retry.maxMs),
          )
      session.append('error', {
        scope: 'step',
        code: error.code,
        message: `${error.message} (retry ${attempt + 1} of ${retries} ${delay === 0 ? 'at once' : `in ${delay} ms`})`,
      })
      if (delay > 0 && !(await sleep(delay, signal))) return { kind: 'stopped', assembler }
      if (isAborted(signal)) return { kind: 'stopped', assembler }
    }
  }

  /**
   * Compares what the server counted with what was sent: a prompt it cut is reported (and the
   * window lowered) rather than learnt from; anything else teaches the calibration.
   */
  private checkReported(estimate: TokenEstimate | undefined, reported: number | undefined): void {
    if (!estimate || reported === undefined) return
    const context = this.opts.context
    const cut = context
      ? detectTruncation({
          sent: estimate.tokens,
          reported,
          isCalibrated: (this.opts.tokens?.calibration?.samples(this.opts.model) ?? 0) > 0,
          ...(context.window.serverWindow === undefined
            ? {}
            : { knownWindow: context.window.serverWindow }),
        })
      : undefined
    if (cut === undefined || context === undefined) {
      this.learn(estimate, reported)
      return
    }
    context.window.lower(cut.honouredWindow)
    const fix = context.raiseHint?.(cut.honouredWindow)
    this.session.append('error', {
      scope: 'step',
      code: CONTEXT_TRUNCATED_BY_SERVER,
      message:
        `the server cut the prompt: about ${cut.sent.toLocaleString('en')} tokens were sent and it counted ${cut.reported.toLocaleString('en')}, so it runs a window of about ${cut.honouredWindow.toLocaleString('en')} tokens and the model did not see the start of the conversation (the instructions and the tools). ` +
        `Bridle now compacts to fit that window.${fix === undefined ? '' : ` ${fix}`}`,
    })
  }

  /** The prompt the next request will carry, counted; undefined without a counter. */
  private estimate(headerSeq: number): TokenEstimate | undefined {
    const counter = this.opts.tokens?.counter
    if (!counter) return undefined
    const header = this.session.event(headerSeq)
    const tools = header?.type === 'request/header' ? header.data.tools : []
    const count = counter.countMessages(this.session.deriveMessages(), tools)
    return {
      tokens: count.total,
      uncalibrated: count.uncalibrated,
      system: count.system,
      tools: count.tools,
      history: count.history,
      method: counter.encoding ?? 'estimate',
    }
  }

  /** Teaches the calibration how the server counted a prompt we estimated. */
  private learn(estimate: TokenEstimate | undefined, reported: number | undefined): void {
    const calibration = this.opts.tokens?.calibration
    if (!calibration || !estimate || reported === undefined) return
    calibration.observe(this.opts.model, estimate.uncalibrated, reported)
  }

  private async stream(
    request: ModelRequest,
    assembler: MessageAssembler,
    turn: number,
    step: number,
    signal: AbortSignal,
  ): Promise<(StreamPart & { type: 'finish' }) | (StreamPart & { type: 'error' })> {
    let pending: ChunkDelta[] = []
    let timer: NodeJS.Timeout | undefined
    const flushChunks = () => {
      clearTimeout(timer)
      timer = undefined
      if (pending.length === 0) return
      this.session.append('assistant/chunk', { deltas: pending })
      pending = []
    }
    let last: (StreamPart & { type: 'finish' }) | (StreamPart & { type: 'error' }) | undefined
    try {
      for await (const part of this.opts.adapter.stream(request, signal)) {
        if (part.type === 'finish' || part.type === 'error') {
          last = part
          break
        }
        const delta = assembler.add(part)
        if (!delta) continue
        // A batch is logged when it is full, or CHUNK_BATCH_MS after its first delta even if the
        // model then pauses, so a crash mid-pause loses at most that much of what was shown.
        timer ??= setTimeout(flushChunks, CHUNK_BATCH_MS)
        pending.push(delta)
        for (const listener of this.deltaListeners) {
          try {
            listener({ turn, step, delta })
          } catch (error) {
            console.error('[bridle] a stream listener failed:', error)
          }
        }
        if (pending.length >= CHUNK_BATCH_DELTAS) flushChunks()
      }
    } finally {
      flushChunks()
    }
    return (
      last ?? {
        type: 'error',
        error: {
          code: 'DISCONNECTED',
          message: 'the model stream ended without a finish',
          isRetryable: true,
        },
        hasStreamed: assembler.hasContent,
      }
    )
  }

  /** Commits what streamed before a stop or a failure, without tool calls, marked interrupted. */
  private archiveInterrupted(assembler: MessageAssembler, finish: 'cancelled' | 'error'): void {
    const blocks: AssistantBlock[] = assembler.withoutToolCalls()
    if (blocks.length === 0) return
    this.session.append('assistant/message', {
      blocks,
      finish,
      interrupted: true,
      ...(assembler.usage ? { usage: assembler.usage } : {}),
    })
  }
}

/**
 * The request of the `request/start` at `startSeq`, built from the log alone: the tools of its
 * header, its params, and the messages derived up to it (incrementally, so `startSeq` must be
 * the session's last event; `deriveMessagesAt` rebuilds any earlier request from scratch).
 * Deep-frozen: nobody may edit it.
 */
export function requestFromLog(session: Session, startSeq: number): ModelRequest {
  if (startSeq !== session.length - 1)
    throw new Error(`seq ${startSeq} is not the last event of the session`)
  const start = session.event(startSeq)
  if (start?.type !== 'request/start') throw new Error(`seq ${startSeq} is not a request/start`)
  const header = session.event(start.data.headerSeq)
  if (header?.type !== 'request/header')
    throw new Error(`seq ${start.data.headerSeq} is not a request/header`)
  const tools: ToolSpec[] = header.data.tools.map((tool) => ({ ...tool }))
  return deepFreeze({
    model: start.data.model,
    messages: session.deriveMessages(),
    tools,
    params: { ...start.data.params },
    ...(start.data.wire === undefined ? {} : { wire: { ...start.data.wire } }),
  })
}

/** Whether two lists hold the same items in the same order. */
function isSameList<T>(a: readonly T[], b: readonly T[], isSame: (x: T, y: T) => boolean): boolean {
  return a.length === b.length && a.every((item, i) => isSame(item, b[i] as T))
}
