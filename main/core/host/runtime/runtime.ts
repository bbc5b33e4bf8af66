/**
 * The runtime of the Host: the agents of open sessions, their turns (run in the background, so
 * a `turn/send` returns at once), approvals over the bridge, and compaction on demand. Every
 * session it touches stays open for writing here until the Host closes: one writer per session.
 */
import type {
  CompactionOutcome,
  ModelProfileView,
  RestoreOutcome,
} from '../../../../protocol/contract.js'
import { uncompactSession } from '../../compaction/compactor.js'
import type { CompactResult } from '../../compaction/compactor.js'
import { LogError } from '../../log/index.js'
import type { Session } from '../../log/index.js'
import { isStoreFailure } from '../../store/index.js'
import type { TurnEndReason } from '../../../../protocol/events.js'
import type { Config } from '../settings/config.js'
import type { ApprovalRule } from '../../tools/approvals.js'
import { compactNow, sessionModelRef, sessionProjectDir, setupAgent } from './agent-setup.js'
import type { AgentSetup } from './agent-setup.js'
import { ApprovalBridge } from './approval-bridge.js'
import { sessionCodeMode, switchCodeMode } from './code-mode.js'
import { readAttachments } from './attachments.js'
import type { Attachment, AttachmentInput } from '../../../../protocol/attachments.js'
import { HostError } from '../host.js'
import type { McpService } from '../mcp-service.js'
import { OpenSessions, safeNotifier } from './open-sessions.js'
import { restoreOnBridge } from './restore.js'
import type { Notify } from './open-sessions.js'
import type {
  HandlerGroup,
  HostContext,
  ModelChoice,
  RuntimeMethods,
  RuntimeService,
  SettingsService,
} from '../services.js'
import { AgentUnavailable, recordCancelledStart, recordFailedStart } from './turn-start.js'
import { askTitle, watchTitles } from './titles.js'
import type { ChildInfo, ChildRun } from './subagents.js'
import type { Agent } from '../../loop/agent.js'

export interface RuntimeOptions {
  /** The environment tools get a scrubbed copy of; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv
  /** The host's MCP servers; absent: agents get no MCP tools. */
  readonly mcp?: McpService
  /**
   * Where a working sandbox is remembered between runs (`ProbeOptions.cacheFile`), so the first
   * agent of a run skips the test sandbox; absent: each process probes once.
   */
  readonly sandboxProbeCache?: string
}

/** What the runtime keeps per open session. */
interface Live {
  readonly session: Session
  /** The agent being built or built; reset when building fails, so the next send tries again. */
  agent?: Promise<LiveAgent>
  /** Set once the agent is built. */
  built?: LiveAgent
  /** The background run of turns, while one runs. */
  run?: Promise<void>
  /** A compaction asked for with `compaction/run`, while it runs. */
  compaction?: { readonly controller: AbortController; readonly done: Promise<unknown> }
  /** A restore of the project's files (`workspace/restore`, `/undoRestore`), while it runs. */
  restoring?: Promise<unknown>
  /** Sends waiting for the agent (resolving the model can take seconds), and cancels so far. */
  starting: number
  cancels: number
  /** Stops titling the session (runtime/titles.ts) and abandons a title request in flight. */
  stopTitles: () => void
  /** A subagent while its parent's `task` call runs it: that call owns its agent and session. */
  child?: { readonly run: ChildRun; readonly info: ChildInfo }
}

interface LiveAgent {
  readonly setup: AgentSetup
  readonly model: ModelChoice
  /** The settings it was built with: when they change, the next turn gets a new agent. */
  readonly config: Config
  /** The settings' revision it was built at (a probe since changes how the model is talked to). */
  readonly revision: number
  /** The MCP trust revision it was built with. */
  readonly mcpRevision: number
  /** The session's model choice it was built for: a `session/model` switch since rebuilds it. */
  readonly ref: { readonly endpointId?: string; readonly model?: string }
  /** Whether it offers `run_code`: a `session/code-mode` switch since rebuilds it. */
  readonly codeMode: boolean
}

function isSameModel(
  a: { readonly endpointId?: string; readonly model?: string },
  b: { readonly endpointId?: string; readonly model?: string },
): boolean {
  return a.endpointId === b.endpointId && a.model === b.model
}

/** Builds the runtime's service (for the other handler groups) and its contract handlers. */
export function createRuntime(
  ctx: HostContext,
  settings: SettingsService,
  opts: RuntimeOptions = {},
): { service: RuntimeService; handlers: HandlerGroup<RuntimeMethods> } {
  const runtime = new Runtime(
    ctx,
    settings,
    opts.env ?? process.env,
    opts.mcp,
    opts.sandboxProbeCache,
  )
  return {
    service: {
      session: (sessionId) => runtime.sessions.get(sessionId).session,
      isRunning: (sessionId) => {
        const live = runtime.sessions.peek(sessionId)
        return live?.run !== undefined || live?.child !== undefined
      },
      pendingApprovals: (sessionId) => runtime.approvals.pending(sessionId),
      contextWindow: (sessionId) => runtime.sessions.peek(sessionId)?.built?.setup.window.tokens,
      profile: (sessionId) => runtime.profile(sessionId),
      switchModel: (sessionId, ref) => runtime.switchModel(sessionId, ref),
      close: () => runtime.close(),
    },
    handlers: {
      'turn/send': (params) => runtime.send(params),
      'turn/cancel': (params) => runtime.cancel(params.sessionId),
      'approval/respond': (params) => ({ accepted: runtime.approvals.respond(params) }),
      'session/setCodeMode': (params) => runtime.setCodeMode(params.sessionId, params.on),
      'compaction/run': (params) => runtime.compact(params.sessionId, params.focus),
      'compaction/undo': (params) => runtime.uncompact(params.sessionId, params.checkpointSeq),
      'workspace/restore': ({ sessionId, ...params }) => runtime.restore(sessionId, params),
      'workspace/undoRestore': ({ sessionId, ...params }) => runtime.restore(sessionId, params),
    },
  }
}

class Runtime {
  readonly sessions: OpenSessions<Live>
  readonly approvals: ApprovalBridge
  private readonly notify: Notify
  private isClosing = false

  constructor(
    private readonly ctx: HostContext,
    private readonly settings: SettingsService,
    private readonly env: NodeJS.ProcessEnv,
    private readonly mcp?: McpService,
    private readonly sandboxProbeCache?: string,
  ) {
    this.notify = safeNotifier(ctx.notify)
    this.sessions = new OpenSessions<Live>(ctx.store, this.notify, (session) => {
      const live: Live = { session, starting: 0, cancels: 0, stopTitles: () => {} }
      live.stopTitles = watchTitles(session, {
        store: ctx.store,
        ask: (exchange, signal) => {
          const model = live.built?.model
          if (model === undefined) return Promise.resolve({ failure: 'no model yet' })
          return askTitle(model.adapter, model.model, exchange, { signal })
        },
        onTitled: () => this.changed(session.id),
        debug: (message) => {
          if (env['BRIDLE_DEBUG']) console.debug(message)
        },
      })
      return live
    })
    this.approvals = new ApprovalBridge((request) => this.notify('approval/request', request))
  }

  /**
   * Queues the input and starts a turn in the background (or steers the running one). When the
   * session's agent cannot be built (no endpoint, no model), the input is still logged, in a
   * turn that ends with an `error` saying what to configure, and the answer is not accepted.
   */
  async send(input: {
    sessionId: string
    requestId: string
    text: string
    attachments?: readonly AttachmentInput[]
  }): Promise<{ accepted: boolean; reason?: string }> {
    this.checkOpen()
    if ((this.ctx.store.getSession(input.sessionId)?.deletedAt ?? null) !== null) {
      throw new HostError('CONFLICT', 'this session is in the trash: restore it to continue it')
    }
    const live = this.sessions.get(input.sessionId).extra
    this.checkNotChild(live)
    const duplicate = { accepted: false, reason: `request ${input.requestId} was already sent` }
    if (live.session.hasRequest(input.requestId)) return duplicate
    let agent: LiveAgent
    const cancels = live.cancels
    live.starting++
    try {
      agent = await this.agentOf(live)
    } catch (error) {
      if (!(error instanceof AgentUnavailable)) throw error
      this.checkOpen()
      if (live.session.hasRequest(input.requestId)) return duplicate
      await recordFailedStart(live.session, input, error)
      this.changed(live.session.id)
      return { accepted: false, reason: error.message }
    } finally {
      live.starting--
    }
    this.checkOpen()
    // Stopped while the model was being resolved: the input is logged as a turn that was
    // cancelled before its first step, instead of a turn starting after the user said stop.
    if (live.cancels !== cancels) {
      if (live.session.hasRequest(input.requestId)) return duplicate
      await recordCancelledStart(live.session, input)
      this.changed(live.session.id)
      return { accepted: false, reason: 'stopped before the turn started' }
    }
    const attachments = await this.attachmentsOf(live, agent, input.attachments ?? [])
    this.checkOpen()
    if (live.session.hasRequest(input.requestId)) return duplicate
    const sent = agent.setup.agent.send({
      requestId: input.requestId,
      text: input.text,
      ...(attachments.length === 0 ? {} : { attachments }),
    })
    if (!sent.accepted) return duplicate
    this.startRun(live)
    return { accepted: true }
  }

  /** See RuntimeService.switchModel. */
  async switchModel(
    sessionId: string,
    ref: { readonly endpointId?: string; readonly model: string },
  ): Promise<void> {
    this.checkOpen()
    const live = this.sessions.get(sessionId).extra
    live.session.append('session/model', {
      ...(ref.endpointId === undefined ? {} : { endpointId: ref.endpointId }),
      model: ref.model,
    })
    await live.session.flush()
    if (!live.run && live.starting === 0) this.dropAgent(live)
  }

  /**
   * Turns code mode on or off, logged as `session/code-mode` (nothing is logged when it already
   * is so). An idle agent is dropped so the next turn builds one with or without `run_code`; a
   * running turn keeps its tools until it ends.
   */
  async setCodeMode(sessionId: string, on: boolean): Promise<{ on: boolean }> {
    this.checkOpen()
    const live = this.sessions.get(sessionId).extra
    if (switchCodeMode(live.session, on)) await live.session.flush()
    if (live.built && live.built.codeMode !== on && !live.run && live.starting === 0)
      this.dropAgent(live)
    return { on }
  }

  /** The message's attachments as the log will hold them; refused ones throw (nothing logged). */
  private async attachmentsOf(
    live: Live,
    agent: LiveAgent,
    inputs: readonly AttachmentInput[],
  ): Promise<Attachment[]> {
    if (inputs.length === 0) return []
    const projectDir = sessionProjectDir(live.session)
    if (projectDir === undefined) {
      throw new HostError('INVALID_PATH', 'the session does not say its project folder')
    }
    const { model, endpointId } = agent.model
    const visionSetting = agent.config.endpoints[endpointId]?.models?.[model]?.vision
    const mcp = this.mcp
    return readAttachments(
      projectDir,
      inputs,
      { model, endpointId, visionSetting },
      mcp ? (server, uri) => mcp.readResource(projectDir, server, uri) : undefined,
    )
  }

  /** How the session talks to its model, once its agent was built. */
  profile(sessionId: string): ModelProfileView | undefined {
    const built = this.sessions.peek(sessionId)?.built
    if (built === undefined) return undefined
    const { model, setup } = built
    const wire = model.adapter.wire?.() ?? model.profile?.wire
    const probe = this.settings.probeReport(model.baseUrl, model.model)
    return {
      model: model.model,
      endpointId: model.endpointId,
      serverKind: model.kind ?? 'unknown',
      ...(model.serverVersion === undefined ? {} : { serverVersion: model.serverVersion }),
      api: wire?.api ?? 'openai',
      toolCalls: wire?.toolCalls ?? 'native',
      streamUsage: wire?.streamUsage ?? true,
      replayReasoning: wire?.replayReasoning ?? false,
      ...(setup.window.tokens === undefined
        ? {}
        : { contextWindow: setup.window.tokens, windowSource: setup.window.source }),
      ...(probe === undefined ? {} : { probe }),
    }
  }

  /** Stops the running turn (and a compaction asked for by hand); waits for neither. */
  cancel(sessionId: string): { wasRunning: boolean } {
    const live = this.sessions.peek(sessionId)
    if (!live) {
      if (!this.ctx.store.getSession(sessionId))
        throw new HostError('NOT_FOUND', `no session ${sessionId}`)
      return { wasRunning: false }
    }
    const wasRunning =
      live.run !== undefined ||
      live.compaction !== undefined ||
      live.starting > 0 ||
      live.child !== undefined
    live.cancels++
    // A subagent stops alone; its parent's call then returns that it was stopped.
    live.child?.run.stop()
    live.built?.setup.agent.cancel()
    live.compaction?.controller.abort()
    return { wasRunning }
  }

  /** Compacts now with the session's (or config's summary) model; refused while a turn runs. */
  async compact(sessionId: string, focus: string | undefined): Promise<CompactionOutcome> {
    this.checkOpen()
    const live = this.sessions.get(sessionId).extra
    this.checkIdle(live, 'compacting')
    const agent = await this.agentOf(live)
    this.checkOpen()
    this.checkIdle(live, 'compacting')
    const controller = new AbortController()
    const done = compactNow(live.session, {
      model: agent.model,
      config: this.settings.current(),
      count: agent.setup.tokens.total,
      signal: controller.signal,
      ...(focus === undefined ? {} : { focus }),
    })
    live.compaction = { controller, done }
    try {
      return compactionOutcome(await done)
    } finally {
      live.compaction = undefined
      // Input sent while the summary was written waited for it; its turn starts now.
      this.startRun(live)
    }
  }

  /** Puts a live checkpoint's originals back; returns the seq of the `compaction/undone` event. */
  async uncompact(sessionId: string, checkpointSeq: number): Promise<{ undoneSeq: number }> {
    this.checkOpen()
    const live = this.sessions.get(sessionId).extra
    this.checkIdle(live, 'undoing a compaction')
    const isLive = live.session
      .surfaceNodes()
      .some((node) => node.seq === checkpointSeq && node.kind === 'checkpoint')
    if (!isLive) {
      throw new HostError(
        'NOT_FOUND',
        `seq ${checkpointSeq} is not a checkpoint in the model's view (not a checkpoint, undone already, or inside a later one)`,
      )
    }
    const undoneSeq = live.session.length
    await uncompactSession(live.session, checkpointSeq)
    return { undoneSeq }
  }

  /**
   * Restores the project's files to a point of the session (or undoes the last restore: no
   * `toSeq`) while the session is idle; input sent meanwhile waits, and its turn starts after.
   */
  async restore(
    sessionId: string,
    params: { readonly toSeq?: number; readonly force?: boolean; readonly dryRun?: boolean },
  ): Promise<RestoreOutcome> {
    this.checkOpen()
    const live = this.sessions.get(sessionId).extra
    this.checkIdle(live, 'restoring files')
    const done = restoreOnBridge(
      { store: this.ctx.store, home: this.ctx.home },
      live.session,
      params,
    )
    live.restoring = done
    try {
      return await done
    } finally {
      live.restoring = undefined
      this.startRun(live)
    }
  }

  /**
   * Interrupts every turn (its running commands end with their process groups; the turn closes
   * as `interrupted`) and cancels every compaction, waits for them (and agents still being built)
   * to settle, then closes every session. New calls are refused from the start.
   */
  async close(): Promise<void> {
    this.isClosing = true
    for (const live of this.sessions.values()) {
      live.stopTitles()
      live.built?.setup.agent.interrupt()
      live.compaction?.controller.abort()
    }
    await Promise.allSettled(this.sessions.values().flatMap((live) => live.agent ?? []))
    for (;;) {
      const busy = this.sessions
        .values()
        .flatMap((live) => [live.run ?? [], live.compaction?.done ?? []].flat())
      if (busy.length === 0) break
      await Promise.allSettled(busy)
    }
    for (const live of this.sessions.values()) this.dropAgent(live)
    this.sessions.closeAll()
  }

  /** The session's agent, built on first use; concurrent callers share one build. */
  private agentOf(live: Live): Promise<LiveAgent> {
    // Settings changed since it was built (approval mode, rules, endpoints, compaction): an idle
    // agent is rebuilt, so what the user set applies from the next turn on.
    if (
      live.built &&
      !live.run &&
      (live.built.config !== this.settings.current() ||
        live.built.revision !== this.settings.revision() ||
        live.built.mcpRevision !== (this.mcp?.revision() ?? 0) ||
        live.built.model.isProvisional === true ||
        !isSameModel(live.built.ref, sessionModelRef(live.session)) ||
        live.built.codeMode !== sessionCodeMode(live.session))
    ) {
      this.dropAgent(live)
    }
    live.agent ??= this.buildAgent(live).catch((error: unknown) => {
      live.agent = undefined
      throw error
    })
    return live.agent
  }

  private async buildAgent(live: Live): Promise<LiveAgent> {
    const { session } = live
    let model: ModelChoice
    const ref = sessionModelRef(session)
    try {
      model = await this.settings.resolveModel(ref)
    } catch (error) {
      throw AgentUnavailable.unresolved(error)
    }
    let setup: AgentSetup
    const codeMode = sessionCodeMode(session)
    try {
      const projectDir = sessionProjectDir(session)
      if (projectDir === undefined) throw new Error('the session does not say its project folder')
      const config = this.settings.current()
      setup = await setupAgent({
        session,
        projectDir,
        model,
        config,
        dataDir: this.ctx.home,
        env: this.env,
        ...(this.sandboxProbeCache === undefined
          ? {}
          : { sandboxProbeCache: this.sandboxProbeCache }),
        approval: config.approval,
        approvalChannel: this.approvals.channelFor(session),
        codeMode,
        onRemember: (rule) => this.remember(session, projectDir, rule),
        store: this.ctx.store,
        subagents: {
          store: this.ctx.store,
          approvalChannel: (child, info) =>
            this.approvals.channelFor(child, {
              sessionId: info.parentSessionId,
              callId: info.callId,
              description: info.description,
            }),
          started: (child, run, info) => this.adoptChild(child, run, info),
        },
        ...(this.mcp ? { mcp: this.mcp.agentMcp(projectDir) } : {}),
      })
    } catch (error) {
      throw AgentUnavailable.setupFailed(error)
    }
    this.forwardDeltas(session.id, setup.agent)
    live.built = {
      setup,
      model,
      config: this.settings.current(),
      revision: this.settings.revision(),
      mcpRevision: this.mcp?.revision() ?? 0,
      ref,
      codeMode,
    }
    return live.built
  }

  /** Forwards the agent's streamed text as `stream/delta`; returns the disposer. */
  private forwardDeltas(sessionId: string, agent: Agent): () => void {
    return agent.onDelta(({ turn, step, delta }) => {
      if (delta.kind === 'tool-call') return
      this.notify('stream/delta', {
        sessionId,
        turn,
        step,
        kind: delta.kind,
        text: delta.kind === 'text-is-reasoning' ? '' : delta.text,
      })
    })
  }

  /**
   * A subagent's session, while its parent's `task` call runs it: listed as running, its events
   * and streamed text forwarded like any session's, a send to it refused. Returns the release.
   */
  private adoptChild(child: Session, run: ChildRun, info: ChildInfo): () => void {
    this.sessions.adopt(child, (session) => ({
      session,
      starting: 0,
      cancels: 0,
      stopTitles: () => {},
      child: { run, info },
    }))
    const stopDeltas = this.forwardDeltas(child.id, run.agent)
    this.notify('sessions/changed', { sessionIds: [child.id, info.parentSessionId] })
    return () => {
      stopDeltas()
      this.sessions.release(child.id)
      this.notify('sessions/changed', { sessionIds: [child.id, info.parentSessionId] })
    }
  }

  /**
   * "Always allow": the policy already holds the rule for this session; settings keep it for
   * the project. Saving may fail (a bad config.json): the call still runs as the user allowed,
   * and the session's log says the rule was not kept.
   */
  private remember(session: Session, projectDir: string, rule: ApprovalRule): void {
    try {
      this.settings.rememberApprovalRule({ ...rule, project: projectDir })
    } catch (error) {
      session.append('error', {
        scope: 'session',
        code: 'APPROVAL_RULE_NOT_SAVED',
        message: `"always allow ${rule.tool}${rule.prefix ? ` ${rule.prefix}` : ''}" holds in this session only: it could not be saved (${error instanceof Error ? error.message : String(error)})`,
      })
    }
  }

  /**
   * Runs queued input in the background unless a run or a compaction is already going. The run
   * is never awaited by a handler; how it ends is in the log (`turn/end`, `error`). Returns
   * whether it started one.
   */
  private startRun(live: Live): boolean {
    const agent = live.built?.setup.agent
    if (!agent || live.run || live.compaction || live.restoring || this.isClosing) return false
    if (!live.session.queuedInput().some((input) => input.wake)) return false
    live.run = agent.runUntilIdle().then(
      (outcomes) => this.runEnded(live, outcomes.at(-1)?.reason),
      (error: unknown) => this.runFailed(live, error),
    )
    this.changed(live.session.id)
    return true
  }

  /**
   * The log refused a write mid-turn (the loop reports everything else as events), so what the
   * session holds in memory can no longer be trusted to match the file. The user hears why in one
   * sentence; the session is closed, and its next use opens it again and repairs the open turn.
   */
  private runFailed(live: Live, error: unknown): void {
    live.run = undefined
    const sessionId = live.session.id
    const storeFailure = error instanceof LogError && isStoreFailure(error.cause)
    if (!storeFailure) console.error(`[bridle] the turn of session ${sessionId} failed:`, error)
    const why = error instanceof Error ? error.message : String(error)
    this.notify('session/failed', {
      sessionId,
      message: storeFailure
        ? `The session stopped because its log could not be written: ${why}`
        : `The session stopped because of an internal error: ${why}`,
    })
    live.stopTitles()
    this.dropAgent(live)
    this.sessions.close(sessionId)
    this.changed(sessionId)
  }

  private runEnded(live: Live, reason: TurnEndReason | undefined): void {
    live.run = undefined
    // Input that arrived as the last turn was ending is run now; after a cancel or a failure,
    // whatever is still queued waits for the user's next send instead.
    if ((reason === 'completed' || reason === undefined) && this.startRun(live)) return
    this.changed(live.session.id)
  }

  /** Forgets the session's agent, unloading its plugins; the next use builds it again. */
  private dropAgent(live: Live): void {
    live.built?.setup.dispose()
    live.built = undefined
    live.agent = undefined
  }

  private changed(sessionId: string): void {
    this.notify('sessions/changed', { sessionIds: [sessionId] })
  }

  private checkOpen(): void {
    if (this.isClosing)
      throw new HostError('CONFLICT', 'Bridle is closing; try again after it restarts')
  }

  private checkNotChild(live: Live): void {
    if (live.child)
      throw new HostError(
        'CONFLICT',
        `this subagent is working for its parent session's task "${live.child.info.description}"; wait for it to finish, or stop it`,
      )
  }

  private checkIdle(live: Live, doing: string): void {
    this.checkNotChild(live)
    if (live.run)
      throw new HostError(
        'CONFLICT',
        `a turn is running in this session; stop it or let it end before ${doing}`,
      )
    if (live.compaction)
      throw new HostError(
        'CONFLICT',
        `a compaction is running in this session; wait for it before ${doing}`,
      )
    if (live.restoring)
      throw new HostError(
        'CONFLICT',
        `files are being restored in this session; wait for it before ${doing}`,
      )
  }
}

/** The compactor's result in the contract's words. */
export function compactionOutcome(result: CompactResult): CompactionOutcome {
  if (result.ok) {
    const { checkpointSeq, fromSeq, toSeq, tokensBefore, tokensAfter } = result
    return { status: 'compacted', checkpointSeq, fromSeq, toSeq, tokensBefore, tokensAfter }
  }
  switch (result.code) {
    case 'NOTHING_TO_COMPACT':
      return { status: 'nothing-to-compact', message: result.message }
    case 'SUMMARY_FAILED':
      return { status: 'failed', message: result.message }
    case 'CANCELLED':
      return { status: 'cancelled', message: result.message }
  }
}
