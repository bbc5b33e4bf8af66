import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { compactionPlugin } from '../core/compaction/plugin.js'
import { recallTool } from '../core/compaction/recall.js'
import { Kernel } from '../core/kernel/index.js'
import { Agent } from '../core/loop/agent.js'
import type { LoopEvents, TurnOutcome } from '../core/loop/agent.js'
import { Session } from '../core/log/index.js'
import type { LogEvent } from '../core/log/index.js'
import { createPromptSections } from '../core/prompt/builtin.js'
import { turnContext } from '../core/prompt/context.js'
import { sessionTokens } from '../core/tokens/index.js'
import type { Store } from '../core/store/index.js'
import { ApprovalPolicy } from '../core/tools/approvals.js'
import type { ApprovalMode } from '../core/tools/approvals.js'
import { createToolPipeline, readOutputTool } from '../core/tools/pipeline.js'
import { builtinTools } from '../core/tools/builtin/index.js'
import { ToolRegistry } from '../core/tools/registry.js'
import { OutputSpill } from '../core/tools/spill.js'
import { SnapshotStore } from '../core/workspace/snapshot.js'
import { TurnWorkspace } from '../core/workspace/turn-workspace.js'
import { updateConfig } from '../core/host/config.js'
import type { Config } from '../core/host/config.js'
import { terminalApprovals } from './approval-prompt.js'
import { contextWindowOf, resolveModel } from './model.js'

export interface RunOptions {
  readonly store: Store
  readonly config: Config
  readonly prompt: string
  readonly projectDir: string
  readonly sessionId?: string
  readonly baseUrl?: string
  readonly model?: string
  readonly apiKeyEnv?: string
  readonly maxSteps?: number
  /** The model's context window in tokens, overriding what the server or config say. */
  readonly contextWindow?: number
  readonly json: boolean
  /** The data folder, for spilled tool output. */
  readonly dataDir: string
  readonly approval: ApprovalMode
  /** Where approval answers are read from (a terminal); without it nobody can be asked. */
  readonly approvalInput?: NodeJS.ReadableStream
  /** The environment; tools get a scrubbed copy of it (no keys, tokens or secrets). */
  readonly env: NodeJS.ProcessEnv
  readonly out: (text: string) => void
  readonly err: (text: string) => void
}

/**
 * `bridle run "prompt"`: one turn in a new or existing session, streamed to stdout (or every
 * event as JSON Lines with --json). Returns the turn's outcome; SIGINT cancels it cleanly and a
 * second SIGINT exits at once.
 */
export async function runPrompt(opts: RunOptions): Promise<TurnOutcome> {
  const choice = resolveModel(opts)
  const model = choice.model
  const window = await contextWindowOf(choice, opts.contextWindow)

  const session =
    opts.sessionId === undefined
      ? Session.create(opts.store, {
          projectDir: realpathSync(opts.projectDir),
          model,
          title: opts.prompt.slice(0, 80),
        })
      : Session.open(opts.store, opts.sessionId)
  // A continued session keeps the folder it was created for, whatever --project says.
  const created = session.event(0)
  const projectDir =
    created?.type === 'session/created' ? created.data.projectDir : realpathSync(opts.projectDir)
  // Counted with the model's tokenizer, or an estimate calibrated by what the server reported
  // in this session so far.
  const tokens = sessionTokens(session.slice(), model)
  const registry = new ToolRegistry()
  const spill = new OutputSpill(join(opts.dataDir, 'outputs'))
  for (const tool of [
    ...builtinTools({ bash: { env: opts.env } }),
    readOutputTool(spill),
    recallTool(() => session),
  ])
    registry.register(tool)
  // Compaction before a step whose request would pass the threshold of the window.
  const kernel = new Kernel<LoopEvents>()
  if (window) {
    const { threshold, keepUserTurns, model: summaryModel, prune } = opts.config.compaction
    await kernel.load(
      compactionPlugin({
        adapter: choice.adapter,
        model: summaryModel ?? model,
        contextWindow: window.tokens,
        threshold,
        count: tokens.total,
        prune,
        keepUserTurns,
        onCompacted: (result) => {
          opts.err(
            result.ok
              ? `  (compacted seq ${result.fromSeq}..${result.toSeq}: ${result.tokensBefore} -> ${result.tokensAfter} tokens)\n`
              : `  (compaction: ${result.code}: ${result.message})\n`,
          )
        },
      }),
    )
  }
  // Asked on the terminal when there is one; headless, `ask` refuses with NO_APPROVAL_CHANNEL.
  const asker =
    opts.approvalInput === undefined ? undefined : terminalApprovals(opts.approvalInput, opts.err)
  const rules = opts.config.approvalRules
    .filter((rule) => rule.project === undefined || rule.project === projectDir)
    .map(({ tool, prefix, effect }) =>
      prefix === undefined ? { tool, effect } : { tool, prefix, effect },
    )
  const approvals = new ApprovalPolicy(opts.approval, rules, asker?.channel, (rule) => {
    // "Always allow" is kept for this project folder only.
    updateConfig(opts.dataDir, (raw) => ({
      ...raw,
      approvalRules: [
        ...(Array.isArray(raw.approvalRules) ? (raw.approvalRules as unknown[]) : []),
        { ...rule, project: projectDir },
      ],
    }))
    opts.err(
      `  (remembered: always allow ${rule.tool}${rule.prefix ? ` "${rule.prefix}"` : ''} in this project)\n`,
    )
  })
  // The turn's changes to the project are logged as workspace/diff at turn end.
  const workspace = new TurnWorkspace(
    projectDir,
    new SnapshotStore(join(opts.dataDir, 'snapshots')),
  )
  const tools = createToolPipeline({
    registry,
    approvals,
    spill,
    projectDir,
    workspace,
  })
  // Built once per run: the system prompt (AGENTS.md included) stays byte-identical for every
  // request; the date and git state go in as a context message at turn start instead.
  const sections = await createPromptSections({
    projectDir,
    platform: process.platform,
    toolNames: tools.specs().map((t) => t.name),
  })
  const agent = new Agent({
    session,
    adapter: choice.adapter,
    model,
    kernel,
    tools,
    turnHooks: workspace.turnHooks,
    prompt: () => sections.assemble(),
    turnContext: turnContext({ projectDir }),
    tokens,
    limits: {
      ...((opts.maxSteps ?? opts.config.limits.maxSteps)
        ? { maxSteps: opts.maxSteps ?? opts.config.limits.maxSteps }
        : {}),
      ...(opts.config.limits.maxWallSeconds
        ? { maxWallMs: opts.config.limits.maxWallSeconds * 1000 }
        : {}),
    },
  })

  // Plain output: the answer's text on stdout; what the agent does (tool calls, their outcome,
  // retries) as short lines on stderr, so `bridle run ... > answer.txt` keeps just the answer.
  const cursor = { atLineStart: true }
  const write = (text: string) => {
    if (text === '') return
    opts.out(text)
    cursor.atLineStart = text.endsWith('\n')
  }
  const note = (text: string) => {
    if (!cursor.atLineStart) write('\n')
    opts.err(`${text}\n`)
  }
  const stopListening = opts.json
    ? session.subscribe((event: LogEvent) =>
        opts.out(`${JSON.stringify({ session: session.id, ...event })}\n`),
      )
    : combine(
        agent.onDelta(({ delta }) => {
          if (delta.kind === 'text') write(delta.text)
        }),
        session.subscribe((event: LogEvent) => {
          if (event.type === 'tool/call')
            note(`  -> ${event.data.name} ${JSON.stringify(event.data.args)}`)
          if (event.type === 'tool/result' && !event.data.ok)
            note(`  <- ${event.data.error.code}: ${event.data.error.message}`)
          const exitCode = event.type === 'tool/result' ? event.data.metadata?.exitCode : undefined
          if (typeof exitCode === 'number' && exitCode !== 0) note(`  <- exit code ${exitCode}`)
          if (event.type === 'error') note(`  ! ${event.data.code}: ${event.data.message}`)
          if (event.type === 'step/end' && !cursor.atLineStart) write('\n')
        }),
      )
  let interrupts = 0
  const onSigint = () => {
    interrupts++
    if (interrupts === 1) {
      opts.err('\nstopping (press Ctrl+C again to quit at once)\n')
      agent.cancel()
    } else {
      process.exit(130)
    }
  }
  process.on('SIGINT', onSigint)
  try {
    if (!opts.json) opts.err(`session ${session.id}\n`)
    agent.send({ requestId: `cli-${Date.now()}-${process.pid}`, text: opts.prompt })
    const outcomes = await agent.runUntilIdle()
    if (!opts.json && !cursor.atLineStart) opts.out('\n')
    const last = outcomes.at(-1)
    if (!last) throw new Error('no turn ran')
    return last
  } finally {
    process.off('SIGINT', onSigint)
    asker?.close()
    stopListening()
    session.close()
  }
}

function combine(...disposers: (() => void)[]): () => void {
  return () => {
    for (const dispose of disposers) dispose()
  }
}
