/**
 * How an Agent is put together for a session: the same assembly for `bridle run` and for the
 * Host's runtime, so a turn behaves alike in the terminal and in the app. Pure Node; whatever
 * differs between the two (how approvals are asked, where a remembered rule is kept, what a
 * compaction tells the user) comes in as a callback.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
import { compactSession } from '../../compaction/compactor.js'
import type { CompactResult } from '../../compaction/compactor.js'
import { compactionPlugin, fitToWindow } from '../../compaction/plugin.js'
import { recallTool } from '../../compaction/recall.js'
import {
  importPluginFile,
  Kernel,
  PluginError,
  PluginFileError,
  pluginPath,
} from '../../kernel/index.js'
import type { Plugin } from '../../kernel/index.js'
import type { Session } from '../../log/session.js'
import { Agent } from '../../loop/agent.js'
import type { AgentLimits, LoopEvents } from '../../loop/agent.js'
import type { ToolRunner } from '../../loop/tools.js'
import type { McpManager, McpServerEntry, McpSessionTools } from '../../mcp/index.js'
import type { ModelAdapter } from '../../models/types.js'
import { createPromptSections } from '../../prompt/builtin.js'
import { turnContext } from '../../prompt/context.js'
import { sessionTokens } from '../../tokens/index.js'
import type { SessionTokens } from '../../tokens/index.js'
import { ContextWindow } from '../../tokens/window.js'
import type { WindowSource } from '../../tokens/window.js'
import { ApprovalPolicy } from '../../tools/approvals.js'
import type { ApprovalChannel, ApprovalMode, ApprovalRule } from '../../tools/approvals.js'
import { sandboxStatus } from '../../tools/builtin/bash-sandbox.js'
import type { BashSandbox } from '../../tools/builtin/bash-sandbox.js'
import { builtinTools } from '../../tools/builtin/index.js'
import { RUN_CODE, runCodeTool } from '../../tools/code/run-code.js'
import { toolSignature } from '../../tools/code/signatures.js'
import { defaultHiddenPaths } from '../../tools/sandbox/bwrap.js'
import { createToolPipeline, readOutputTool } from '../../tools/pipeline.js'
import type { ToolEvents } from '../../tools/pipeline.js'
import { ToolRegistry } from '../../tools/registry.js'
import { LEAN_LEFT_OUT, LEAN_PROMPT_MAX_WINDOW } from '../../tools/model-schema.js'
import { OutputSpill, outputCapForWindow } from '../../tools/spill.js'
import { SnapshotStore, SNAPSHOTS_DIR } from '../../workspace/snapshot.js'
import { TurnWorkspace } from '../../workspace/turn-workspace.js'
import type { Config } from '../settings/config.js'
import type { Store } from '../../store/index.js'
import { subagentLimits, TASK, taskTool } from './subagents.js'
import type { SubagentHost } from './subagents.js'

/**
 * The model a session talks to; `contextWindow` undefined means nothing compacts by itself
 * (until the server shows a window, by cutting a prompt or refusing one as too long).
 */
export interface AgentModel {
  readonly adapter: ModelAdapter
  readonly model: string
  readonly contextWindow?: number
  /** Where the window comes from (default `configured`): the alarm trusts a window the server runs. */
  readonly windowSource?: WindowSource
  /** How to tell the user to give the model more room on this server. */
  readonly raiseHint?: (honouredWindow: number) => string
  /** Told when the session found the server honours a smaller window. Must not throw. */
  readonly onWindowLearned?: (tokens: number) => void
}

export interface AgentSetupOptions {
  /** A writable session; the agent appends to it and never closes it. */
  readonly session: Session
  /** The folder the session works in (its `session/created` projectDir). */
  readonly projectDir: string
  readonly model: AgentModel
  readonly config: Config
  /** The data folder: spilled tool outputs and the workspace's snapshots live under it. */
  readonly dataDir: string
  /** The environment; tools get a scrubbed copy of it (no keys, tokens or secrets). */
  readonly env: NodeJS.ProcessEnv
  /** A file in the user's cache folder remembering a working sandbox between runs (the CLI's). */
  readonly sandboxProbeCache?: string
  readonly approval: ApprovalMode
  /** Who answers approvals; without one, `ask` refuses with NO_APPROVAL_CHANNEL. */
  readonly approvalChannel?: ApprovalChannel
  /**
   * Told when the user answered "always allow": the policy already holds the rule for this
   * session; the callback keeps it (config.json). Must not throw: a throw here would fail the
   * tool call the user just allowed, so report a failure some other way.
   */
  readonly onRemember?: (rule: ApprovalRule) => void
  /** Told about every automatic compaction attempt. Must not throw. */
  readonly onCompacted?: (result: CompactResult) => void
  /** Overrides `config.limits.maxSteps` (the CLI's --max-steps). */
  readonly maxSteps?: number
  /** Default `process.platform`; named in the system prompt's environment section. */
  readonly platform?: string
  /**
   * The MCP servers this session may use (the user's and the project's, each with why it is off
   * when it is) and the process's manager that runs them; absent: no MCP tools.
   */
  readonly mcp?: { readonly manager: McpManager; readonly entries: readonly McpServerEntry[] }
  /**
   * Code mode: the model also gets `run_code`, one program calling the other tools (limits from
   * `config.codeMode`), and the system prompt explains it with the tools' typed signatures.
   */
  readonly codeMode?: boolean
  /**
   * Subagents: the agent gets the `task` tool (while `depth` is below config's
   * `subagents.maxDepth`), each call a child session in this store. Absent: no `task`.
   */
  readonly subagents?: SubagentHost
  /** The sessions' store: `recall` searches the conversation's other branches in it. */
  readonly store?: Store
  /** How deep this session is among subagents: 0 (default) for one the user started. */
  readonly depth?: number
  /**
   * Only these tools (a subagent given a subset): the others are not registered, and neither are
   * MCP servers' tools. `read_output` and `recall` stay, as a capped output needs them.
   */
  readonly onlyTools?: readonly string[]
}

/** Every hook an agent's plugins may join: the loop's and the tool pipeline's (kernel/README.md). */
export type AgentEvents = LoopEvents & ToolEvents

/** What an agent's plugins may ask for with `ctx.service(name)`. */
export interface AgentServices {
  /**
   * Leaves a `notice` (code PLUGIN_NOTICE) in the session's log: shown by the CLI and the chat,
   * never sent to the model.
   */
  notice: (message: string, level?: 'info' | 'warning') => void
  /** The folder the session works in (its real path). */
  projectDir: string
}

export type AgentPlugin = Plugin<AgentEvents, AgentServices>

/** A plugin named in config.json could not be loaded; the session's agent is not set up. */
export class PluginLoadError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options)
    this.name = 'PluginLoadError'
  }
}

/** An assembled agent and the parts its owner may need again (counting, rules). */
export interface AgentSetup {
  readonly agent: Agent
  readonly approvals: ApprovalPolicy
  /** The session's counter, calibrated from its log; compaction counts with it too. */
  readonly tokens: SessionTokens
  readonly tools: ToolRunner
  /** The window the session plans for, as it is now (lowered when the server shows less). */
  readonly window: ContextWindow
  /**
   * Unloads the agent's plugins, and what they tracked with them. For the agent's owner, when it
   * drops the agent: its session closes, or settings changed and the agent is built again.
   */
  readonly dispose: () => void
}

/** The folder a session was created for, from its first event; undefined when it has none. */
export function sessionProjectDir(session: Session): string | undefined {
  const created = session.event(0)
  return created?.type === 'session/created' ? created.data.projectDir : undefined
}

/**
 * The endpoint and model of the session's next turn: the last `session/model` switch, else what
 * `session/created` recorded.
 */
export function sessionModelRef(session: Session): { endpointId?: string; model?: string } {
  for (let seq = session.length - 1; seq > 0; seq--) {
    const event = session.event(seq)
    if (event?.type !== 'session/model') continue
    return {
      ...(event.data.endpointId === undefined ? {} : { endpointId: event.data.endpointId }),
      model: event.data.model,
    }
  }
  const created = session.event(0)
  if (created?.type !== 'session/created') return {}
  return {
    ...(created.data.endpoint === undefined ? {} : { endpointId: created.data.endpoint }),
    ...(created.data.model === undefined ? {} : { model: created.data.model }),
  }
}

/** config.json's approval rules that apply in `projectDir` (its own and the global ones). */
export function approvalRulesFor(config: Config, projectDir: string): ApprovalRule[] {
  return config.approvalRules
    .filter((rule) => rule.project === undefined || rule.project === projectDir)
    .map(({ tool, prefix, pattern, effect }) => ({
      tool,
      ...(prefix === undefined ? {} : { prefix }),
      ...(pattern === undefined ? {} : { pattern }),
      effect,
    }))
}

/**
 * Builds the agent of one session: the tool registry (built-ins, read_output, recall), the
 * approval policy with the project's rules, the turn workspace (diffs), the tool pipeline, the
 * prompt sections (read once, so the system prompt stays byte-identical), the turn context, the
 * session's token counter, automatic compaction when the window is known, and the plugins named
 * in config.json (one that cannot load rejects the setup, after logging PLUGIN_LOAD_FAILED).
 */
export async function setupAgent(opts: AgentSetupOptions): Promise<AgentSetup> {
  const { session, model } = opts
  // Counted with the model's tokenizer, or an estimate calibrated by what the server reported
  // in this session so far.
  const tokens = sessionTokens(session.slice(), model.model)
  const window = new ContextWindow(
    model.contextWindow,
    model.windowSource ?? 'configured',
    (learnt) => {
      try {
        model.onWindowLearned?.(learnt)
      } catch (error) {
        // Keeping it for the next session failed; this session still plans for it.
        console.error('[bridle] could not keep the learnt context window:', error)
      }
    },
  )
  // One kernel for the agent: compaction joins the loop; config.json's plugins join the loop and
  // the tools (a plugin that cannot load stops the setup here, before anything runs).
  const registry = new ToolRegistry()
  // Imported only for a session with MCP servers: the SDK is a large part of a start's CPU.
  const mcp = opts.mcp
    ? new (await import('../../mcp/session-tools.js')).McpSessionTools({
        ...opts.mcp,
        projectDir: opts.projectDir,
        registry,
      })
    : undefined
  const kernel = await agentKernel(opts, tokens, window, mcp)
  const dispose = () => {
    kernel.unloadAll()
    mcp?.dispose()
  }
  try {
    const parts = await toolSide(opts, kernel, window, registry)
    const agent = await assembleAgent(opts, { ...parts, kernel, tokens, window })
    return { agent, approvals: parts.approvals, tokens, tools: parts.tools, window, dispose }
  } catch (error) {
    dispose()
    throw error
  }
}

/** What the tools need: the registry, the approval policy, the turn's workspace, the pipeline. */
async function toolSide(
  opts: AgentSetupOptions,
  kernel: Kernel<AgentEvents, AgentServices>,
  window: ContextWindow,
  registry: ToolRegistry,
) {
  const { session, projectDir } = opts
  // A small window (8k tokens or less, now or once the server showed it) gets the lean prompt
  // and tools, and tool outputs cut to about a quarter of it.
  const isLean = () => (window.tokens ?? Infinity) <= LEAN_PROMPT_MAX_WINDOW
  const spill = new OutputSpill(join(opts.dataDir, 'outputs'), () =>
    outputCapForWindow(window.tokens),
  )
  const sandbox = await sessionSandbox(opts)
  const only = opts.onlyTools === undefined ? undefined : new Set(opts.onlyTools)
  const own = [
    ...builtinTools({
      bash: { env: opts.env, sandbox, secrets: knownSecrets(opts) },
      files: { protectedPaths: opts.config.protectedPaths },
    }),
    ...(opts.codeMode === true ? [runCodeTool(opts.config.codeMode)] : []),
  ].filter((tool) => only === undefined || only.has(tool.name))
  for (const tool of [...own, readOutputTool(spill), recallTool(() => session, opts.store)])
    registry.register(tool)
  const task = subagentTool(opts, registry)
  if (task) registry.register(task)
  const approvals = new ApprovalPolicy(
    opts.approval,
    approvalRulesFor(opts.config, projectDir),
    opts.approvalChannel,
    opts.onRemember,
  )
  // The turn's changes to the project are logged as workspace/diff at turn end.
  const workspace = new TurnWorkspace(
    projectDir,
    new SnapshotStore(join(opts.dataDir, SNAPSHOTS_DIR)),
  )
  const tools = createToolPipeline({
    registry,
    approvals,
    spill,
    projectDir,
    workspace,
    isLean,
    kernel,
    ...(opts.config.loopGuard === undefined ? {} : { loopGuard: opts.config.loopGuard }),
  })
  return { registry, approvals, workspace, tools, isLean }
}

/**
 * The Agent over the tool side. The system prompt (AGENTS.md included) is built once per agent
 * so it stays byte-identical for every request; the date and git state go in as a context
 * message at turn start instead.
 */
async function assembleAgent(
  opts: AgentSetupOptions,
  parts: Awaited<ReturnType<typeof toolSide>> & {
    readonly kernel: Kernel<AgentEvents, AgentServices>
    readonly tokens: SessionTokens
    readonly window: ContextWindow
  },
): Promise<Agent> {
  const { session, projectDir, config } = opts
  const { registry, workspace, tools, isLean, kernel, tokens, window } = parts
  // The prompt names the built-in tools; MCP tools speak for themselves in the tool list, so the
  // system prompt stays the same whichever servers are up.
  const names = registry
    .view()
    .filter((tool) => tool.mcp === undefined)
    .map((tool) => tool.name)
  // Code mode: the tools a program may call (MCP's included: they are in its `tools` object too,
  // but as they come and go the prompt names the built-ins only), typed from their schemas.
  const codeSignatures =
    opts.codeMode === true
      ? registry
          .view()
          .filter((tool) => tool.mcp === undefined && tool.name !== RUN_CODE)
          .map(toolSignature)
      : undefined
  const promptOptions = {
    projectDir,
    platform: opts.platform ?? process.platform,
    outputCapBytes: outputCapForWindow(window.tokens),
    ...(codeSignatures ? { codeSignatures } : {}),
  }
  const full = await createPromptSections({ ...promptOptions, toolNames: names })
  const lean = await createPromptSections({
    ...promptOptions,
    toolNames: names.filter((name) => !LEAN_LEFT_OUT.has(name)),
    lean: true,
  })
  return new Agent({
    session,
    adapter: opts.model.adapter,
    model: opts.model.model,
    kernel,
    tools,
    turnHooks: workspace.turnHooks,
    prompt: () => (isLean() ? lean : full).assemble(),
    turnContext: turnContext({ projectDir }),
    tokens,
    limits: limitsOf(config, opts.maxSteps),
    context: {
      window,
      ...(opts.model.raiseHint === undefined ? {} : { raiseHint: opts.model.raiseHint }),
    },
    compactForOverflow: (signal) => compactForOverflow(opts, tokens, window, signal),
  })
}

/**
 * The `task` tool, when this agent may start subagents: a child gets the same settings, model,
 * approval mode, sandbox and plugins, one level deeper, with the tools and model the call names.
 */
function subagentTool(opts: AgentSetupOptions, registry: ToolRegistry) {
  const host = opts.subagents
  const limits = subagentLimits(opts.config)
  const depth = opts.depth ?? 0
  if (host === undefined || depth >= limits.maxDepth) return undefined
  return taskTool({
    parent: opts.session,
    host,
    depth,
    limits,
    model: opts.model.model,
    toolNames: () =>
      registry
        .view()
        .map((tool) => tool.name)
        .filter((name) => name !== TASK),
    ...(opts.approvalChannel === undefined ? {} : { approvalChannel: opts.approvalChannel }),
    codeMode: opts.codeMode === true,
    setupChild: async (child, how) => {
      const setup = await setupAgent({
        ...opts,
        session: child,
        depth: how.depth,
        model: how.model === undefined ? opts.model : { ...opts.model, model: how.model },
        ...(limits.maxSteps === undefined ? {} : { maxSteps: limits.maxSteps }),
        ...(how.tools === undefined ? {} : { onlyTools: how.tools, mcp: undefined }),
        approvalChannel: how.approvalChannel,
      })
      return { agent: setup.agent, dispose: setup.dispose }
    },
  })
}

/**
 * Where this session's commands run. When they will not be sandboxed the session is told once
 * (a `notice` in its log, shown by the CLI and the chat): the setting is off, or no sandbox can
 * run here (`required` then refuses each command, saying why).
 */
async function sessionSandbox(opts: AgentSetupOptions): Promise<BashSandbox> {
  const home = opts.env['HOME'] ?? homedir()
  const sandbox: BashSandbox = {
    mode: opts.config.sandbox,
    hide: defaultHiddenPaths(home, opts.dataDir),
    ...(opts.sandboxProbeCache === undefined ? {} : { probeCache: opts.sandboxProbeCache }),
    ...(opts.config.protectedPaths === undefined
      ? {}
      : { protectedPaths: opts.config.protectedPaths }),
  }
  const status = await sandboxStatus(sandbox)
  if (!status.available) {
    const code =
      sandbox.mode === 'off'
        ? 'SANDBOX_OFF'
        : sandbox.mode === 'required'
          ? 'SANDBOX_REQUIRED_UNAVAILABLE'
          : 'SANDBOX_UNAVAILABLE'
    const said = opts.session
      .slice()
      .some((event) => event.type === 'notice' && event.data.code === code)
    if (!said) {
      opts.session.append('notice', {
        level: 'warning',
        code,
        message:
          sandbox.mode === 'off'
            ? 'Commands run without a sandbox in this session (setting sandbox: off): they can change anything your user account can.'
            : sandbox.mode === 'required'
              ? `Commands will not run in this session: the setting requires a sandbox, and ${status.why}.`
              : `Commands run without a sandbox in this session: ${status.why}. They can change anything your user account can.`,
      })
    }
  }
  return sandbox
}

/** The API keys this harness knows from its environment: no command may see them. */
function knownSecrets(opts: AgentSetupOptions): string[] {
  return Object.values(opts.config.endpoints).flatMap((endpoint) => {
    const value = endpoint.apiKeyEnv === undefined ? undefined : opts.env[endpoint.apiKeyEnv]
    return value === undefined || value === '' ? [] : [value]
  })
}

/**
 * The server refused the prompt as too long: brings the view under the window (the one the server
 * said, if it did) as the step's compaction would, whatever the threshold said before. Resolves
 * whether the view got smaller.
 */
async function compactForOverflow(
  opts: AgentSetupOptions,
  tokens: SessionTokens,
  window: ContextWindow,
  signal: AbortSignal,
): Promise<boolean> {
  const size = window.tokens
  if (size === undefined) return false
  const { threshold, keepUserTurns, model: summaryModel, prune } = opts.config.compaction
  return fitToWindow(
    opts.session,
    size,
    {
      adapter: opts.model.adapter,
      model: summaryModel ?? opts.model.model,
      threshold,
      count: tokens.total,
      prune,
      keepUserTurns: Math.min(keepUserTurns, 1),
      ...(opts.onCompacted ? { onCompacted: opts.onCompacted } : {}),
    },
    signal,
  )
}

/**
 * The agent's kernel: the session's services for plugins, compaction before a step whose request
 * would pass the window's threshold, then config.json's plugins in order.
 */
async function agentKernel(
  opts: AgentSetupOptions,
  tokens: SessionTokens,
  window: ContextWindow,
  mcp: McpSessionTools | undefined,
): Promise<Kernel<AgentEvents, AgentServices>> {
  const kernel = new Kernel<AgentEvents, AgentServices>()
  const { session } = opts
  await kernel.load({
    name: 'session',
    setup(ctx) {
      ctx.provide('notice', (message, level = 'info') => {
        session.append('notice', { level, code: 'PLUGIN_NOTICE', message })
      })
      ctx.provide('projectDir', opts.projectDir)
    },
  })
  // MCP servers start before a turn's first step, so compaction counts their tools.
  if (mcp) await kernel.load(mcpPlugin(mcp))
  const { threshold, keepUserTurns, model: summaryModel, prune } = opts.config.compaction
  await kernel.load(
    compactionPlugin({
      adapter: opts.model.adapter,
      model: summaryModel ?? opts.model.model,
      contextWindow: () => window.tokens,
      threshold,
      count: tokens.total,
      prune,
      keepUserTurns,
      ...(opts.onCompacted ? { onCompacted: opts.onCompacted } : {}),
    }),
  )
  await loadConfiguredPlugins(kernel, opts)
  return kernel
}

/**
 * Before the first step of each turn: the session's MCP servers started (or left to wait after a
 * failure) and their tools registered; what went wrong is a notice in the log, and the turn goes on.
 */
function mcpPlugin(mcp: McpSessionTools): AgentPlugin {
  return {
    name: 'mcp',
    setup: (ctx) =>
      void ctx.on('loop/pre-step', async (input, next) => {
        if (input.step === 1) {
          for (const notice of await mcp.prepare(input.signal))
            input.session.append('notice', notice)
        }
        return next(input)
      }),
  }
}

/**
 * config.json's `plugins`, in order, each path absolute or relative to the data folder. One that
 * cannot load (missing, failing to import, exporting no plugin, a setup that throws) stops the
 * setup: a plugin is often a safety rule, and running quietly without it would do what it was
 * meant to stop. The failure is logged as an error (PLUGIN_LOAD_FAILED) and thrown in the same
 * words; the loaded ones are named once per session in a notice (PLUGINS_LOADED).
 */
async function loadConfiguredPlugins(
  kernel: Kernel<AgentEvents, AgentServices>,
  opts: AgentSetupOptions,
): Promise<void> {
  const { session } = opts
  const loaded: string[] = []
  for (const entry of opts.config.plugins ?? []) {
    const path = pluginPath(entry, opts.dataDir)
    try {
      const plugin = await importPluginFile<AgentEvents, AgentServices>(path)
      await kernel.load(plugin)
      loaded.push(`${plugin.name} (${path})`)
    } catch (error) {
      const why =
        error instanceof PluginFileError
          ? error.message
          : `the plugin ${path} failed in its setup: ${describeCause(error)}`
      const message = `${why}. The session cannot run without it: fix the file, or remove it from "plugins" in config.json.`
      kernel.unloadAll()
      session.append('error', { scope: 'session', code: 'PLUGIN_LOAD_FAILED', message })
      await session.flush()
      throw new PluginLoadError(message, { cause: error })
    }
  }
  if (loaded.length === 0) return
  const message = `Plugins in this session: ${loaded.join(', ')}.`
  const said = session
    .slice()
    .some(
      (event) =>
        event.type === 'notice' &&
        event.data.code === 'PLUGINS_LOADED' &&
        event.data.message === message,
    )
  if (!said) session.append('notice', { level: 'info', code: 'PLUGINS_LOADED', message })
}

/** A setup failure's own words: a PluginError's cause, else the error's message. */
function describeCause(error: unknown): string {
  const cause = error instanceof PluginError ? error.cause : error
  return cause instanceof Error ? cause.message : String(cause)
}

function limitsOf(config: Config, maxSteps: number | undefined): Partial<AgentLimits> {
  const steps = maxSteps ?? config.limits.maxSteps
  return {
    ...(steps ? { maxSteps: steps } : {}),
    ...(config.limits.maxWallSeconds ? { maxWallMs: config.limits.maxWallSeconds * 1000 } : {}),
  }
}

/**
 * Compacts a session now, whatever the threshold (`bridle compact`, `compaction/run`): with
 * config's summary model when set (on the same endpoint), else the session's, and config's
 * `keepUserTurns`. Resolves with the compactor's result; never throws for a failed summary.
 */
export function compactNow(
  session: Session,
  opts: {
    readonly model: AgentModel
    readonly config: Config
    readonly count: SessionTokens['total']
    readonly signal: AbortSignal
    readonly focus?: string
  },
): Promise<CompactResult> {
  const { keepUserTurns, model: summaryModel } = opts.config.compaction
  return compactSession(session, {
    adapter: opts.model.adapter,
    model: summaryModel ?? opts.model.model,
    signal: opts.signal,
    keepUserTurns,
    count: opts.count,
    ...(opts.focus === undefined ? {} : { focus: opts.focus }),
  })
}
