/**
 * Subagents: the built-in `task` tool starts a child session, runs one turn of it with the given
 * prompt, and returns the child's final answer as the call's result. The child is a session of
 * its own (its own log, lock and repair), recorded in the store as spawned by the parent's call
 * (lineage, not history) and opened by `session/spawned`; the parent's log names the child with
 * `subagent/started` while the call runs.
 *
 * What a host adds (the CLI prints a child's events, the app forwards them and shows its
 * approvals named with the child) comes in through `SubagentHost`; the rest is the same for both.
 */
import { z } from 'zod'
import { isAborted } from '../../kernel/abort.js'
import { forkSession, Session } from '../../log/index.js'
import type { LogEvent, OpenSessionOptions } from '../../log/index.js'
import type { LeftoverOutcome } from '../../log/session.js'
import type { Agent, TurnOutcome } from '../../loop/agent.js'
import type { Store } from '../../store/index.js'
import type { ApprovalChannel } from '../../tools/approvals.js'
import { endLeftoverProcess } from '../../tools/processes.js'
import { defineTool, ToolError } from '../../tools/types.js'
import { switchCodeMode } from './code-mode.js'
import type { Tool } from '../../tools/types.js'

export const TASK = 'task'
export const DEFAULT_SUBAGENT_DEPTH = 1
export const DEFAULT_SUBAGENT_PARALLEL = 4

/** Who a child is, as its host names it (in approvals, in the terminal). */
export interface ChildInfo {
  readonly parentSessionId: string
  readonly callId: string
  readonly description: string
  /** 1 for a child of a session the user started. */
  readonly depth: number
}

/** A child while it runs: its agent, and its own stop (which the parent's stop also does). */
export interface ChildRun {
  readonly agent: Agent
  readonly stop: () => void
}

/** What a host does beside running a child: all optional. */
export interface SubagentHost {
  /** The store the child sessions are created in (the parent's). */
  readonly store: Store
  /**
   * How the child's approvals are asked. Default: the parent's channel, with the question
   * naming the subagent.
   */
  readonly approvalChannel?: (child: Session, info: ChildInfo) => ApprovalChannel | undefined
  /**
   * Told when a child's agent is ready to run (the app lists it as running and forwards its
   * events; the CLI prints them), with the child's own stop (the user stopping the child alone).
   * Returns what to call when the child's run ends, before its session closes. Must not throw.
   */
  readonly started?: (child: Session, run: ChildRun, info: ChildInfo) => () => void
}

/** The limits of config.json's `subagents`, filled in. */
export interface SubagentLimits {
  readonly maxDepth: number
  readonly maxParallel: number
  readonly maxSteps?: number
}

export function subagentLimits(config: {
  readonly subagents?: {
    readonly maxDepth?: number | undefined
    readonly maxParallel?: number | undefined
    readonly maxSteps?: number | undefined
  }
}): SubagentLimits {
  const { maxDepth, maxParallel, maxSteps } = config.subagents ?? {}
  return {
    maxDepth: maxDepth ?? DEFAULT_SUBAGENT_DEPTH,
    maxParallel: maxParallel ?? DEFAULT_SUBAGENT_PARALLEL,
    ...(maxSteps === undefined ? {} : { maxSteps }),
  }
}

/** What the `task` tool asks of the agent setup that owns it. */
export interface TaskToolOptions {
  readonly parent: Session
  readonly host: SubagentHost
  /** The depth of the parent: 0 for a session the user started. */
  readonly depth: number
  readonly limits: SubagentLimits
  /** The tools a subset may name (the parent's, `task` left out). */
  readonly toolNames: () => readonly string[]
  /** The parent's model, offered as the default. */
  readonly model: string
  /** Builds the child's agent (same settings, approvals mode and sandbox; the given tools and model). */
  readonly setupChild: (
    child: Session,
    opts: {
      readonly depth: number
      readonly model?: string
      readonly tools?: readonly string[]
      readonly approvalChannel?: ApprovalChannel
    },
  ) => Promise<{ readonly agent: Agent; readonly dispose: () => void }>
  /** The parent's channel, which a child's questions go through by default. */
  readonly approvalChannel?: ApprovalChannel
  /** The parent runs in code mode: so does the child, and its log says so. */
  readonly codeMode?: boolean
}

const schema = z.object({
  description: z
    .string()
    .min(1)
    .max(200)
    .describe("A few words naming the task (shown to the user as the subagent's title)"),
  prompt: z
    .string()
    .min(1)
    .describe(
      'The whole task for the subagent: it sees only this (and, in fork mode, this conversation so far)',
    ),
  tools: z
    .array(z.string())
    .optional()
    .describe('Only these tools for the subagent (default: every tool you have but task)'),
  model: z
    .string()
    .min(1)
    .optional()
    .describe('Another model on the same endpoint for the subagent (default: yours)'),
  mode: z
    .enum(['fresh', 'fork'])
    .optional()
    .describe(
      'fresh (default): the subagent starts with only the prompt; fork: it also sees this conversation up to the last finished turn',
    ),
})

/** The `task` tool of one agent: a child session per call, `maxParallel` at once. */
export function taskTool(opts: TaskToolOptions): Tool {
  const slots = new Semaphore(opts.limits.maxParallel)
  return defineTool({
    name: TASK,
    brief: 'Give a self-contained task to a subagent (a child session) and get its final answer.',
    description:
      'Start a subagent: a child session with your tools (but not task) that works on `prompt` on its own and returns its final answer as this call\'s result. Use it for a self-contained piece of work (research across many files, an independent change) so its steps stay out of your context. The subagent sees only the prompt unless mode is "fork", so say everything it needs, and what its answer must contain. Several task calls in one reply run in parallel ' +
      `(up to ${opts.limits.maxParallel} at once).`,
    schema,
    kind: 'other',
    // Starting one does nothing by itself; each call the child makes is approved on its own.
    runsUnaskedFrom: 'ask',
    isConcurrencySafe: () => true,
    describe: (args) => `start a subagent: ${args.description}`,
    run: async (args, ctx) => {
      const callId = ctx.callId
      if (callId === undefined)
        throw new ToolError('SUBAGENT_UNAVAILABLE', 'task can only run as a call of a turn.')
      checkTools(args.tools, opts.toolNames())
      const release = await slots.acquire(ctx.signal)
      try {
        return await runChild(opts, { ...args, callId }, ctx.signal)
      } finally {
        release()
      }
    },
  })
}

type TaskArgs = z.output<typeof schema> & { readonly callId: string }

function checkTools(wanted: readonly string[] | undefined, known: readonly string[]): void {
  if (wanted === undefined) return
  const unknown = wanted.filter((name) => !known.includes(name))
  if (unknown.length > 0)
    throw new ToolError(
      'INVALID_ARGS',
      `task: no tool named ${unknown.map((name) => `"${name}"`).join(', ')} for a subagent; it may have: ${known.join(', ')}.`,
    )
}

async function runChild(opts: TaskToolOptions, args: TaskArgs, parentSignal: AbortSignal) {
  if (parentSignal.aborted) throw stopped(args, undefined, '')
  // Stopped by the parent's stop, or by the user stopping the child alone.
  const own = new AbortController()
  const signal = AbortSignal.any([parentSignal, own.signal])
  const depth = opts.depth + 1
  const child = createChild(opts, args, depth)
  const info: ChildInfo = {
    parentSessionId: opts.parent.id,
    callId: args.callId,
    description: args.description,
    depth,
  }
  let ended: (() => void) | undefined
  let dispose: (() => void) | undefined
  try {
    opts.parent.append('subagent/started', {
      callId: args.callId,
      sessionId: child.id,
      description: args.description,
    })
    await opts.parent.flush()
    const channel =
      opts.host.approvalChannel?.(child, info) ?? namedChannel(opts.approvalChannel, info)
    let agent: Agent
    try {
      const setup = await opts.setupChild(child, {
        depth,
        ...(args.model === undefined ? {} : { model: args.model }),
        ...(args.tools === undefined ? {} : { tools: args.tools }),
        ...(channel === undefined ? {} : { approvalChannel: channel }),
      })
      agent = setup.agent
      dispose = setup.dispose
    } catch (error) {
      throw new ToolError(
        'SUBAGENT_FAILED',
        `The subagent "${args.description}" (session ${child.id}) could not be set up: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    ended = opts.host.started?.(child, { agent, stop: () => own.abort() }, info)
    const from = child.length
    if (isAborted(signal)) throw stopped(args, child, '')
    const stop = () => agent.cancel()
    let outcome: TurnOutcome | undefined
    try {
      agent.send({ requestId: `task-${opts.parent.id}-${args.callId}`, text: args.prompt })
      // The turn has its own stop from here on: the parent's stop reaches it.
      const running = agent.runUntilIdle()
      signal.addEventListener('abort', stop, { once: true })
      if (isAborted(signal)) stop()
      outcome = (await running).at(-1)
    } catch (error) {
      const written = answerText(child.slice(from), 'all')
      throw new ToolError(
        'SUBAGENT_FAILED',
        `${subject(args, child)} failed: ${error instanceof Error ? error.message : String(error)}.${said(written)}`,
        { standsWhenStopped: true },
      )
    } finally {
      signal.removeEventListener('abort', stop)
    }
    return settle(args, child, outcome, child.slice(from))
  } finally {
    ended?.()
    dispose?.()
    child.close()
  }
}

/** The child session, created (fresh) or forked at the parent's last finished turn, and opened. */
function createChild(opts: TaskToolOptions, args: TaskArgs, depth: number): Session {
  const { parent, host } = opts
  const spawnedBy = { sessionId: parent.id, callId: args.callId }
  const mode = args.mode ?? 'fresh'
  let child: Session
  if (mode === 'fork') {
    const id = forkSession(host.store, parent.id, afterLastTurn(parent), {
      spawnedBy,
      title: args.description,
    })
    child = Session.open(host.store, id, repairOptions(host.store))
  } else {
    const created = parent.event(0)
    const projectDir = created?.type === 'session/created' ? created.data.projectDir : undefined
    if (projectDir === undefined)
      throw new ToolError('SUBAGENT_FAILED', 'the session does not say its project folder')
    const endpoint = created?.type === 'session/created' ? created.data.endpoint : undefined
    child = Session.create(host.store, {
      projectDir,
      model: args.model ?? opts.model,
      ...(endpoint === undefined ? {} : { endpoint }),
      title: args.description,
      spawnedBy,
    })
  }
  try {
    child.append('session/spawned', {
      by: spawnedBy,
      description: args.description,
      depth,
      mode,
    })
    // Continued later on its own, the child keeps the mode it ran in.
    if (opts.codeMode !== undefined) switchCodeMode(child, opts.codeMode)
    child.flushSync()
  } catch (error) {
    child.close()
    throw error
  }
  return child
}

/**
 * Just after the last finished turn: a fork there has every finished turn, and neither the
 * running one nor the input that started it (which the child would otherwise take as its own).
 */
function afterLastTurn(session: Session): number {
  for (let seq = session.length - 1; seq > 0; seq--)
    if (session.event(seq)?.type === 'turn/end') return seq + 1
  return 1
}

/** The call's result from how the child's turn ended. */
function settle(
  args: TaskArgs,
  child: Session,
  outcome: TurnOutcome | undefined,
  events: readonly LogEvent[],
) {
  const reason = outcome?.reason
  if (reason === 'completed') {
    const answer = answerText(events, 'last')
    return {
      output: answer === '' ? '(the subagent finished without writing an answer)' : answer,
      metadata: { subagent: child.id },
    }
  }
  const written = answerText(events, 'all')
  switch (reason) {
    case 'cancelled':
    case 'interrupted':
      throw stopped(args, child, written)
    case 'max-steps':
      throw new ToolError(
        'SUBAGENT_STEP_LIMIT',
        `${subject(args, child)} reached its step limit before it finished.${said(written)}`,
        { standsWhenStopped: true },
      )
    case 'max-time':
      throw new ToolError(
        'SUBAGENT_TIMEOUT',
        `${subject(args, child)} ran out of time before it finished.${said(written)}`,
        { standsWhenStopped: true },
      )
    default:
      throw new ToolError(
        'SUBAGENT_FAILED',
        `${subject(args, child)} failed${outcome?.error ? `: ${outcome.error.code}: ${outcome.error.message}` : ''}.${said(written)}`,
        { standsWhenStopped: true },
      )
  }
}

function stopped(args: TaskArgs, child: Session | undefined, written: string): ToolError {
  return new ToolError(
    'SUBAGENT_STOPPED',
    `${subject(args, child)} was stopped before it finished.${said(written)}`,
    { standsWhenStopped: true },
  )
}

function subject(args: TaskArgs, child: Session | undefined): string {
  return `The subagent "${args.description}"${child ? ` (session ${child.id})` : ''}`
}

function said(written: string): string {
  return written === '' ? ' It wrote no answer.' : ` What it wrote:\n${written}`
}

/**
 * The text the child committed: its last reply's (the answer), or every reply's (what a child
 * that did not finish got to say).
 */
function answerText(events: readonly LogEvent[], which: 'last' | 'all'): string {
  const replies: string[] = []
  for (const event of events) {
    if (event.type !== 'assistant/message') continue
    const text = event.data.blocks
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('')
      .trim()
    if (text !== '') replies.push(text)
  }
  return which === 'last' ? (replies.at(-1) ?? '') : replies.join('\n\n')
}

/** The parent's channel, each question prefixed with the subagent it comes from. */
export function namedChannel(
  channel: ApprovalChannel | undefined,
  info: ChildInfo,
): ApprovalChannel | undefined {
  if (channel === undefined) return undefined
  return (request, signal) =>
    channel(
      { ...request, description: `[subagent "${info.description}"] ${request.description}` },
      signal,
    )
}

/**
 * What opening a session for writing needs to repair it: a leftover command ends with its
 * process group, and a `task` call the crash left started gets its child's answer when the child
 * committed one (the child is opened, and so repaired, first), else a note on the child.
 */
export function repairOptions(
  store: Store,
): Pick<OpenSessionOptions, 'endLeftoverProcess' | 'settleLeftoverCall'> {
  const settleLeftoverCall: NonNullable<OpenSessionOptions['settleLeftoverCall']> = (
    _sessionId,
    call,
  ) => (call.subagent === undefined ? undefined : settleChild(store, call.subagent))
  return { endLeftoverProcess, settleLeftoverCall }
}

function settleChild(store: Store, childId: string): LeftoverOutcome {
  let child: Session
  try {
    child = Session.open(store, childId, repairOptions(store))
  } catch (error) {
    return {
      note: `Its subagent (session ${childId}) could not be opened to see how far it got: ${error instanceof Error ? error.message : String(error)}.`,
    }
  }
  try {
    const events = child.slice()
    let start = 0
    let reason: string | undefined
    for (const event of events) {
      if (event.type === 'turn/start') start = event.seq
      if (event.type === 'turn/end') reason = event.data.reason
    }
    const turn = events.slice(start)
    if (reason === 'completed') {
      const answer = answerText(turn, 'last')
      return {
        output: answer === '' ? '(the subagent finished without writing an answer)' : answer,
        metadata: { subagent: childId },
      }
    }
    const written = answerText(turn, 'all')
    return {
      note: `Its subagent (session ${childId}) did not finish (${reason ?? 'it never started'}).${said(written)}`,
    }
  } finally {
    child.close()
  }
}

/** At most `size` holders at once; a waiter whose signal aborts leaves the queue. */
class Semaphore {
  private held = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly size: number) {}

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.held >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = () => {
          const at = this.waiting.indexOf(go)
          if (at >= 0) this.waiting.splice(at, 1)
          reject(new ToolError('SUBAGENT_STOPPED', 'The subagent was stopped before it started.'))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        this.waiting.push(go)
      })
    } else {
      this.held++
    }
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      // The slot passes straight to the next waiter.
      if (next) next()
      else this.held--
    }
  }
}
