/**
 * `bash`: runs one command line in the project folder. The command leads its own process group,
 * so a timeout or the user's cancel stops it and everything it started (docs/ARCHITECTURE.md 4, "Commands"); it
 * sees an allowlisted environment (`env.ts`); its output is bounded in memory and the
 * pipeline caps what the model sees and spills the rest.
 */
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { z } from 'zod'
import { resolveInsideProject } from '../../workspace/paths.js'
import { defineTool, ToolError } from '../types.js'
import type { ProcessRecord, Tool } from '../types.js'
import { BoundedOutput } from './command-output.js'
import type { CommandOutput } from './command-output.js'
import { isGroupRunning, processStartTicks, signalGroup } from '../processes.js'
import { processReaper } from '../reaper.js'
import type { ProcessReaper } from '../reaper.js'
import { bashJudge } from './bash-judge.js'
import { commandLaunch, sandboxStartNote } from './bash-sandbox.js'
import type { BashSandbox } from './bash-sandbox.js'
import { toolEnvironment } from './env.js'

export const DEFAULT_BASH_TIMEOUT_MS = 120_000
export const MAX_BASH_TIMEOUT_MS = 600_000
/** Output kept in memory per command; beyond it the middle is dropped (the head and tail stay). */
export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024
/** Between SIGTERM and SIGKILL: time for a well-behaved program to clean up. */
const KILL_GRACE_MS = 1000
/** After SIGKILL, how long to wait for the group to vanish before settling anyway. */
const KILL_SETTLE_MS = 500
/** After the shell exits, how long background children may hold the pipes before being stopped. */
const PIPE_DRAIN_MS = 200
const POLL_MS = 20

export interface BashToolOptions {
  /** The shell run as `<shell> -c <command>`; default `/bin/bash`. */
  readonly shell?: string
  /** The environment the allowlist is taken from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv
  readonly defaultTimeoutMs?: number
  readonly maxTimeoutMs?: number
  readonly maxBufferedBytes?: number
  /** Where commands run (bubblewrap when it works); absent: directly, as with `off`. */
  readonly sandbox?: BashSandbox
  /** Values no variable of a command's environment may hold (the API keys Bridle knows). */
  readonly secrets?: readonly string[]
  /** Tracks each command's group so it ends with the harness, however that ends; default: this process's. */
  readonly reaper?: ProcessReaper
}

/**
 * The `bash` tool. Results: exit code 0 adds no marker unless there is no output at all (then
 * `[exit code 0]`, so the model never sees an empty answer); any other exit ends the output with
 * `[exit code N]` (a normal result, not an error); a timeout ends it with `[timed out after N s;
 * ...]` and `timedOut: true`. Metadata: `{ exitCode, signal?, timedOut?, droppedBytes? }`. On
 * cancel the promise rejects once the process group is gone (bounded by the SIGTERM grace plus
 * a short settle, about 1.5 s at worst). `sandboxed` says whether it ran in the OS sandbox.
 *
 * Calls are judged on the parsed command line (`bash-judge.ts`): destructive commands and writes
 * outside the project are refused or need the call's own approval, and grants are patterns.
 *
 * Every command's group is tracked by the reaper (`../reaper.ts`) until none of it runs: a
 * forced quit kills it, and its watchdog ends it when the harness dies (a crash, a SIGKILL).
 *
 * Known limits without the sandbox: a process that leaves the group (`setsid`, a double fork
 * into a new session) is not stopped; background jobs that redirected their output elsewhere
 * keep running after the shell exits, until the harness ends. In the sandbox, the whole PID
 * namespace ends with the command.
 */
export function bashTool(opts: BashToolOptions = {}): Tool {
  const shell = opts.shell ?? '/bin/bash'
  const defaultTimeoutMs = opts.defaultTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS
  const maxTimeoutMs = opts.maxTimeoutMs ?? MAX_BASH_TIMEOUT_MS
  const maxBufferedBytes = opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES
  const reaper = opts.reaper ?? processReaper()
  const seconds = (ms: number) => Math.round(ms / 100) / 10
  const judge = bashJudge(opts.env, opts.sandbox)
  return defineTool({
    name: 'bash',
    brief: 'Run a shell command in the project folder (stdin closed).',
    description: [
      'Run a shell command with bash in the project folder (or in workdir, a folder inside it) and get its stdout and stderr, interleaved.',
      'stdin is closed, so interactive programs and prompts cannot work; pass flags like --yes or --no-pager instead.',
      `A non-zero exit is shown as a final line [exit code N]. The command is stopped after timeoutSeconds (default ${seconds(defaultTimeoutMs)}, at most ${seconds(maxTimeoutMs)}).`,
      'Background processes still holding the output when the shell exits are stopped. Long output is cut; read the rest with read_output.',
      'Commands run in a sandbox where the machine allows it: only the project folder and a private /tmp are writable, and there is no network unless you set network: true.',
    ].join(' '),
    schema: z.object({
      command: z.string().min(1).describe('The command line, run as bash -c <command>'),
      timeoutSeconds: z
        .number()
        .positive()
        .max(maxTimeoutMs / 1000)
        .optional()
        .describe(
          `Stop the command after this many seconds (default ${seconds(defaultTimeoutMs)})`,
        ),
      workdir: z
        .string()
        .min(1)
        .optional()
        .describe('Folder to run in, relative to the project folder (default: the project folder)'),
      description: z
        .string()
        .max(200)
        .optional()
        .describe('A few words saying what the command does, shown to the user'),
      network: z
        .boolean()
        .optional()
        .describe(
          'True if the command needs the network (installing packages, fetching); commands have none otherwise',
        ),
    }),
    kind: 'execute',
    isConcurrencySafe: () => false,
    // The exact command, never the model's description: the user approves what will run.
    describe: ({ command }) => visible(command),
    assess: (args, ctx) => judge.assess(args, ctx),
    grants: judge.grants,
    async run({ command, timeoutSeconds, workdir }, ctx) {
      const cwd = workingDirectory(ctx.projectDir, workdir)
      const launch = await commandLaunch(opts.sandbox, {
        projectDir: ctx.projectDir,
        cwd,
        shell,
        command,
        grant: ctx.grant,
      })
      let result: Awaited<ReturnType<typeof runCommand>>
      let repaired: string | undefined
      try {
        if (ctx.signal.aborted) throw stoppedError()
        result = await runCommand({
          file: launch.file,
          args: launch.args,
          sandboxed: launch.sandboxed,
          cwd,
          env: {
            ...toolEnvironment(opts.env ?? process.env, { secrets: opts.secrets ?? [] }),
            ...launch.env,
          },
          ...(ctx.onProcess ? { onProcess: ctx.onProcess } : {}),
          timeoutMs: timeoutSeconds === undefined ? defaultTimeoutMs : timeoutSeconds * 1000,
          maxBufferedBytes,
          signal: ctx.signal,
          reaper,
        })
      } finally {
        // The sandbox has ended: the stand-ins it mounted at missing protected paths go, and a
        // git HEAD it left broken is put back.
        repaired = launch.release()
      }
      const started = launch.isCached
        ? await sandboxStartNote(opts.sandbox, {
            exitCode: result.metadata.exitCode,
            output: result.output,
          })
        : undefined
      const notes = [repaired, started].filter((note) => note !== undefined)
      return notes.length === 0
        ? result
        : { ...result, output: [result.output, ...notes].join('\n') }
    },
  })
}

interface RunParams {
  readonly file: string
  readonly args: readonly string[]
  readonly sandboxed: boolean
  readonly onProcess?: (process: ProcessRecord) => void
  readonly cwd: string
  readonly env: Record<string, string>
  readonly timeoutMs: number
  readonly maxBufferedBytes: number
  readonly signal: AbortSignal
  readonly reaper: ProcessReaper
}

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

async function runCommand(p: RunParams) {
  const child = spawn(p.file, p.args, {
    cwd: p.cwd,
    env: p.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let exit: Exit | undefined
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal }
      resolve(exit)
    })
    child.once('error', reject)
  })
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const pgid = child.pid
  if (pgid === undefined) {
    const why = await exited.then(
      () => 'it exited at once',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    )
    throw new ToolError('SPAWN_FAILED', `${p.file} could not be started: ${why}`)
  }
  // Before anything can go wrong: from here the group ends with the harness, however it ends.
  const release = p.reaper.track(pgid)
  // Named in the log before anything else happens, so a crash can find and end it.
  const startTicks = processStartTicks(pgid)
  p.onProcess?.({
    pid: pgid,
    pgid,
    ...(startTicks === undefined ? {} : { startTicks }),
    sandboxed: p.sandboxed,
  })

  const output = new BoundedOutput(p.maxBufferedBytes)
  child.stdout.on('data', (chunk: Buffer) => {
    output.push('stdout', chunk)
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output.push('stderr', chunk)
  })

  let stop: (reason: 'timeout' | 'abort') => void = () => undefined
  const stopped = new Promise<'timeout' | 'abort'>((resolve) => {
    stop = resolve
  })
  const timer = setTimeout(() => {
    stop('timeout')
  }, p.timeoutMs)
  const onAbort = () => {
    stop('abort')
  }
  p.signal.addEventListener('abort', onAbort, { once: true })

  let stopReason: 'timeout' | 'abort' | undefined
  let killedBackground = false
  try {
    const first = await Promise.race([exited.then(() => 'exit' as const), stopped])
    if (first === 'exit') {
      // Background children may still hold the pipes; give them a moment, then stop them.
      if (!(await within(closed, PIPE_DRAIN_MS))) {
        killedBackground = true
        await terminateGroup(pgid)
      }
    } else {
      stopReason = first
      await terminateGroup(pgid)
    }
    // A process that left the group (setsid) may still hold the pipes: do not wait for it.
    await within(closed, PIPE_DRAIN_MS)
    // The shell is gone by now; Node reports its exit once it has reaped it.
    await within(exited, PIPE_DRAIN_MS)
  } catch (error) {
    throw new ToolError('TOOL_FAILED', error instanceof Error ? error.message : String(error))
  } finally {
    clearTimeout(timer)
    p.signal.removeEventListener('abort', onAbort)
    child.stdout.destroy()
    child.stderr.destroy()
    release()
  }
  if (stopReason === 'abort') throw stoppedError()

  const { text, raw } = output.finish()
  const notes: string[] = []
  if (killedBackground) {
    notes.push(
      '[the shell exited, but background processes kept its output open; they were stopped]',
    )
  }
  if (stopReason === 'timeout') {
    notes.push(
      `[timed out after ${p.timeoutMs / 1000} s; the command and the processes it started were stopped]`,
    )
  } else if (exit?.signal) notes.push(`[killed by ${exit.signal}]`)
  else if (exit?.code !== 0 || text === '') notes.push(`[exit code ${exit?.code ?? 'unknown'}]`)
  const separator = text === '' || text.endsWith('\n') || notes.length === 0 ? '' : '\n'
  return {
    output: `${text}${separator}${notes.join('\n')}`,
    ...(raw ? { raw } : {}),
    metadata: {
      exitCode: exit?.code ?? null,
      sandboxed: p.sandboxed,
      ...(exit?.signal ? { signal: exit.signal } : {}),
      ...(stopReason === 'timeout' ? { timedOut: true } : {}),
      ...(output.droppedBytes > 0 ? { droppedBytes: output.droppedBytes } : {}),
    },
  } satisfies CommandOutput
}

const stoppedError = () => new ToolError('ABORTED', 'The command was stopped by the user.')

/** The folder to run in: the project, or `workdir` inside it (refused outside, PATH_OUTSIDE_PROJECT). */
function workingDirectory(projectDir: string, workdir: string | undefined): string {
  if (workdir === undefined) return projectDir
  const dir = resolveInsideProject(projectDir, workdir)
  const info = statSync(dir, { throwIfNoEntry: false })
  if (!info) throw new ToolError('NOT_FOUND', `workdir ${workdir} does not exist`)
  if (!info.isDirectory()) throw new ToolError('NOT_A_DIRECTORY', `workdir ${workdir} is a file`)
  return dir
}

/** Whether `promise` settles (either way) within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = new AbortController()
  const settled = promise.then(
    () => true,
    () => true,
  )
  try {
    return await Promise.race([settled, delay(ms, false, { signal: timeout.signal })])
  } finally {
    timeout.abort()
  }
}

// --- the process group -------------------------------------------------------------------------

/** SIGTERM to the whole group, SIGKILL after the grace period; resolves once none of it runs. */
async function terminateGroup(pgid: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM')
  if (await waitForGroupExit(pgid, KILL_GRACE_MS)) return
  signalGroup(pgid, 'SIGKILL')
  await waitForGroupExit(pgid, KILL_SETTLE_MS)
}

async function waitForGroupExit(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (!isGroupRunning(pgid)) return true
    if (Date.now() >= deadline) return false
    await delay(POLL_MS)
  }
}

// --- approval -----------------------------------------------------------------------------------

/**
 * The command with every control character, and every invisible character that reorders or
 * hides text (bidi overrides, zero-width marks), shown as a visible mark, so an approval prompt
 * shows what will really run.
 */
export function visible(text: string): string {
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    if (code < 0x20) out += String.fromCodePoint(0x2400 + code)
    else if (code === 0x7f) out += '\u2421'
    else if (
      (code >= 0x80 && code <= 0x9f) ||
      (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069) ||
      code === 0xfeff
    )
      out += `\\u{${code.toString(16)}}`
    else out += char
  }
  return out
}
