import { realpathSync } from 'node:fs'
import { Session } from '../core/log/index.js'
import type { LogEvent } from '../core/log/index.js'
import type { Agent, TurnOutcome } from '../core/loop/agent.js'
import type { Store } from '../core/store/index.js'
import type { ApprovalMode, ApprovalRule } from '../core/tools/approvals.js'
import { sessionProjectDir, setupAgent } from '../core/host/runtime/agent-setup.js'
import { sessionCodeMode, switchCodeMode } from '../core/host/runtime/code-mode.js'
import { watchTitles } from '../core/host/runtime/titles.js'
import type { AgentSetup } from '../core/host/runtime/agent-setup.js'
import { updateConfig } from '../core/host/settings/config.js'
import type { Config } from '../core/host/settings/config.js'
import { terminalApprovals } from './approval-prompt.js'
import { sandboxProbeFile } from '../core/host/cache-dir.js'
import { prepareCliMcp } from './mcp-setup.js'
import { connectTarget, resolveModel } from './model.js'
import { repairOptions } from '../core/host/runtime/subagents.js'
import { processReaper } from '../core/tools/reaper.js'
import type { ChildInfo } from '../core/host/runtime/subagents.js'

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
  /** The CLI's version, as MCP servers are told it. */
  readonly version?: string
  /** `--trust-project-mcp`: start the project's `.mcp.json` servers without asking. */
  readonly trustProjectMcp?: boolean
  /**
   * `--code-mode`: the model also gets `run_code`, and the session's log says so
   * (`session/code-mode`), so the app keeps it on. A session switched on before keeps it without.
   */
  readonly codeMode?: boolean
}

/**
 * `bridle run "prompt"`: one turn in a new or existing session, streamed to stdout (or every
 * event as JSON Lines with --json). Returns the turn's outcome; SIGINT cancels it cleanly and a
 * second SIGINT kills the running commands at once and exits (`onStopSignals`).
 */
export async function runPrompt(opts: RunOptions): Promise<TurnOutcome> {
  const connection = await connectTarget(resolveModel(opts), {
    dataDir: opts.dataDir,
    ...(opts.contextWindow === undefined ? {} : { contextWindow: opts.contextWindow }),
  })
  const session =
    opts.sessionId === undefined
      ? Session.create(opts.store, {
          projectDir: realpathSync(opts.projectDir),
          model: connection.model,
        })
      : Session.open(opts.store, opts.sessionId, repairOptions(opts.store))
  // A continued session keeps the folder it was created for, whatever --project says.
  const projectDir = sessionProjectDir(session) ?? realpathSync(opts.projectDir)
  // Asked before the approvals take the terminal's lines.
  const mcp = await prepareCliMcp({
    config: opts.config,
    projectDir,
    dataDir: opts.dataDir,
    env: opts.env,
    version: opts.version ?? '0.0.0',
    trustProject: opts.trustProjectMcp === true,
    ...(opts.approvalInput === undefined ? {} : { input: opts.approvalInput }),
    err: opts.err,
  })
  const asker =
    opts.approvalInput === undefined ? undefined : terminalApprovals(opts.approvalInput, opts.err)
  // Listening starts before the agent is set up, so what setting up logs (a notice that commands
  // run without a sandbox) reaches the terminal too.
  if (!opts.json) opts.err(`session ${session.id}\n`)
  const printer = terminalPrinter(opts)
  const stopEvents = session.subscribe((event) => printer.event(session.id, event))
  // The first words of its first message (the model is not asked for a title here).
  const stopTitles = watchTitles(session, { store: opts.store })
  if (opts.codeMode === true) switchCodeMode(session, true)
  const codeMode = opts.codeMode === true || sessionCodeMode(session)
  let setup: AgentSetup
  try {
    setup = await setupAgent({
      session,
      projectDir,
      model: connection,
      config: opts.config,
      dataDir: opts.dataDir,
      env: opts.env,
      sandboxProbeCache: sandboxProbeFile(opts.env),
      approval: opts.approval,
      // Asked on the terminal when there is one; headless, `ask` refuses with NO_APPROVAL_CHANNEL.
      ...(asker ? { approvalChannel: asker.channel } : {}),
      onRemember: (rule) => rememberRule(opts, projectDir, rule),
      onCompacted: (result) => {
        opts.err(
          result.ok
            ? `  (compacted seq ${result.fromSeq}..${result.toSeq}: ${result.tokensBefore} -> ${result.tokensAfter} tokens)\n`
            : `  (compaction: ${result.code}: ${result.message})\n`,
        )
      },
      ...(opts.maxSteps === undefined ? {} : { maxSteps: opts.maxSteps }),
      codeMode,
      ...(mcp === undefined ? {} : { mcp }),
      store: opts.store,
      // A subagent's events are printed as its parent's are, named with it.
      subagents: {
        store: opts.store,
        started: (child, _run, info) => {
          if (!opts.json) opts.err(`  [subagent "${info.description}": session ${child.id}]\n`)
          return child.subscribe((event) => printer.event(child.id, event, info))
        },
      },
    })
  } catch (error) {
    await mcp?.manager.stopAll()
    asker?.close()
    stopTitles()
    stopEvents()
    session.close()
    throw error
  }
  const { agent } = setup
  const stopDeltas = opts.json
    ? () => undefined
    : agent.onDelta(({ delta }) => {
        if (delta.kind === 'text') printer.write(delta.text)
      })
  const signals = onStopSignals(agent, opts.err)
  try {
    agent.send({ requestId: `cli-${Date.now()}-${process.pid}`, text: opts.prompt })
    const outcomes = await agent.runUntilIdle()
    printer.endLine()
    const last = outcomes.at(-1)
    if (!last) throw new Error('no turn ran')
    return last
  } finally {
    asker?.close()
    stopDeltas()
    stopTitles()
    stopEvents()
    setup.dispose()
    // Every server this run started stops with it, process groups included.
    await mcp?.manager.stopAll()
    session.close()
    signals.windDown()
  }
}

/**
 * What the terminal shows of the log. Plain: the answer's text on stdout; what the agent does
 * (tool calls, their outcome, retries, notices) as short lines on stderr, so `bridle run ... >
 * answer.txt` keeps just the answer. With --json: every event as a JSON line on stdout.
 */
function terminalPrinter(opts: RunOptions) {
  const cursor = { atLineStart: true }
  // The first half of a character split between two streamed chunks (a surrogate pair), held
  // until its second half comes, so it is shown whole instead of as two escapes.
  let held = ''
  const write = (text: string) => {
    const whole = held + text
    held = /[\ud800-\udbff]$/.test(whole) ? whole.slice(-1) : ''
    const shown = held === '' ? whole : whole.slice(0, -1)
    if (shown === '') return
    opts.out(shown)
    cursor.atLineStart = shown.endsWith('\n')
  }
  const note = (text: string) => {
    if (!cursor.atLineStart) write('\n')
    opts.err(`${text}\n`)
  }
  const event = (sessionId: string, event: LogEvent, child?: ChildInfo) => {
    if (opts.json) {
      opts.out(`${JSON.stringify({ session: sessionId, ...event })}\n`)
      return
    }
    if (child) {
      childEvent(event, child)
      return
    }
    if (event.type === 'tool/call')
      note(
        `  -> ${event.data.name}${event.data.mcp ? ` (MCP server ${event.data.mcp.server})` : ''} ${JSON.stringify(event.data.args)}`,
      )
    if (event.type === 'tool/result' && !event.data.ok)
      note(`  <- ${event.data.error.code}: ${event.data.error.message}`)
    const exitCode = event.type === 'tool/result' ? event.data.metadata?.exitCode : undefined
    if (typeof exitCode === 'number' && exitCode !== 0) note(`  <- exit code ${exitCode}`)
    if (event.type === 'error') note(`  ! ${event.data.code}: ${event.data.message}`)
    if (event.type === 'notice') note(`  ! ${event.data.code}: ${event.data.message}`)
    if (event.type === 'step/end' && !cursor.atLineStart) write('\n')
  }
  /** A subagent's calls and failures, indented under its parent's `task` call. */
  const childEvent = (event: LogEvent, child: ChildInfo) => {
    const tag = `    [${child.description}]`
    if (event.type === 'tool/call')
      note(`${tag} -> ${event.data.name} ${JSON.stringify(event.data.args)}`)
    if (event.type === 'tool/result' && !event.data.ok)
      note(`${tag} <- ${event.data.error.code}: ${event.data.error.message}`)
    if (event.type === 'error' || event.type === 'notice')
      note(`${tag} ! ${event.data.code}: ${event.data.message}`)
    if (event.type === 'turn/end') note(`${tag} done (${event.data.reason})`)
  }
  /** Ends a plain answer's last line. */
  const endLine = () => {
    if (held !== '') write('\n')
    if (!opts.json && !cursor.atLineStart) opts.out('\n')
  }
  return { write, event, endLine }
}

/**
 * How long a forced quit waits for the turn to close in the log once every command was killed
 * (it takes milliseconds: the killed command's call settles, then the turn ends); past it the
 * CLI exits anyway and the next open of the session repairs the log.
 */
const FORCED_QUIT_MS = 2000

/**
 * Ctrl+C cancels the turn. Told to stop (a service manager, a closed terminal), the turn closes as
 * interrupted. Either way the running command and its whole process group end (SIGTERM, SIGKILL
 * after a grace period), the call's result and the turn's end are logged, then the CLI exits.
 *
 * A second signal of any kind quits without the grace period: every command this process
 * started is sent SIGKILL at once (`processReaper`), so the turn still closes in the log, within
 * milliseconds, before the exit; should something else hold it, the CLI exits after
 * FORCED_QUIT_MS anyway. Commands still running when the process dies some other way are ended
 * by the reaper's watchdog.
 *
 * `windDown()`, once the run is over: every later signal counts as a second one. The handlers
 * stay until the process exits (this is the CLI's last act), so a Ctrl+C that lands as it exits
 * neither starts anything nor kills it midway with the signal's default action.
 */
function onStopSignals(agent: Agent, err: (text: string) => void): { windDown: () => void } {
  let signals = 0
  let forced: NodeJS.Timeout | undefined
  const quitNow = (code: number) => {
    const killed = processReaper().killAll('SIGKILL')
    err(
      `\nquitting${killed > 0 ? `: ${killed} running command${killed === 1 ? '' : 's'} killed` : ''}\n`,
    )
    forced ??= setTimeout(() => process.exit(code), FORCED_QUIT_MS)
    forced.unref()
  }
  const onSigint = () => {
    if (signals++ > 0) return quitNow(130)
    err('\nstopping (press Ctrl+C again to quit at once)\n')
    agent.cancel()
  }
  const onTerminate = (signal: NodeJS.Signals) => {
    if (signals++ > 0) return quitNow(128 + (signal === 'SIGHUP' ? 1 : 15))
    err(`\nstopping: ${signal} received; ending the running command\n`)
    agent.interrupt()
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onTerminate)
  process.on('SIGHUP', onTerminate)
  return {
    windDown: () => {
      signals = Math.max(signals, 1)
    },
  }
}

/** "Always allow" is kept in config.json for this project folder only. */
function rememberRule(opts: RunOptions, projectDir: string, rule: ApprovalRule): void {
  const what = rule.pattern ?? rule.prefix
  const shown = `${rule.tool}${what ? ` "${what}"` : ''}`
  try {
    updateConfig(opts.dataDir, (raw) => ({
      ...raw,
      approvalRules: [
        ...(Array.isArray(raw.approvalRules) ? (raw.approvalRules as unknown[]) : []),
        { ...rule, project: projectDir },
      ],
    }))
    opts.err(`  (remembered: always allow ${shown} in this project)\n`)
  } catch (error) {
    // The call was allowed and the rule holds for this run; only keeping it failed.
    opts.err(
      `  (could not remember "always allow ${shown}": ${error instanceof Error ? error.message : String(error)})\n`,
    )
  }
}
