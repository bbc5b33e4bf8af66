/**
 * Shared by the `safety-*` acceptance tests: a world of temporary folders with a SENTINEL tree
 * around the project (a sibling folder and a fake home folder, hashed before and after), the real
 * CLI started with an environment of our choosing, and the log read back from its SQLite file.
 *
 * The world lives outside `/tmp` (in `/var/tmp` where it exists): the sandbox gives commands a
 * private `/tmp`, so a sentinel there would be invisible to them and prove nothing. Under
 * `/var/tmp` it is visible and must stay unchanged because the sandbox mounts it read-only.
 */
import { execFileSync, spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LogEvent, LogEventOf } from '../../protocol/events.js'
import { LogEvent as LogEventSchema } from '../../protocol/events.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { probeSandbox } from '../../main/core/tools/sandbox/probe.js'
import type { SandboxStatus } from '../../main/core/tools/sandbox/probe.js'
import type { ScriptedResponse } from '../fixtures/model-server/script.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv } from '../fixtures/cli.js'
import { hashTree, processesMarked, writeTree } from '../fixtures/host-state.js'

export { hashTree, marker, processesMarked, waitFor, writeTree } from '../fixtures/host-state.js'

/** The folders of one test: everything under `root`, removed by `dispose`. */
export interface World {
  readonly root: string
  /** Bridle's data folder (`--home`): config.json and the database. */
  readonly data: string
  readonly project: string
  /** A folder next to the project: a sentinel. */
  readonly sibling: string
  /** The fake home folder the CLI gets as HOME: a sentinel. */
  readonly home: string
  /** The folders hashed before and after (sibling, home, and any added with `guard`). */
  readonly sentinels: string[]
}

/** Files every world starts with, outside the project. */
const SENTINEL_FILES: Record<string, string> = {
  'sibling/a.txt': 'sibling file: must not change\n',
  'sibling/sub/deep.txt': 'deep sibling file\n',
  'home/.ssh/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\nsentinel\n',
  'home/.bashrc': '# sentinel bashrc\n',
  'home/notes.txt': 'home notes\n',
}

/** Where worlds are made: outside the sandbox's private /tmp (see the module comment). */
const PARENT = existsSync('/var/tmp') ? '/var/tmp' : tmpdir()

export function makeWorld(label: string, config: Record<string, unknown> = {}): World {
  const root = realpathSync(mkdtempSync(join(PARENT, `bridle-safety-${label}-`)))
  const world: World = {
    root,
    data: join(root, 'data'),
    project: join(root, 'project'),
    sibling: join(root, 'sibling'),
    home: join(root, 'home'),
    sentinels: [join(root, 'sibling'), join(root, 'home')],
  }
  mkdirSync(world.data)
  mkdirSync(world.project)
  writeTree(root, SENTINEL_FILES)
  writeConfig(world, config)
  return world
}

export function disposeWorld(world: World | undefined): void {
  if (world) rmSync(world.root, { recursive: true, force: true })
}

export function writeConfig(world: World, config: Record<string, unknown>): void {
  writeFileSync(join(world.data, 'config.json'), JSON.stringify(config, null, 2))
}

export type Snapshot = Record<string, Record<string, string>>

/**
 * Hashes of every sentinel folder of the world, and the names directly under its root (a file
 * a command drops next to the project shows there).
 */
export function snapshotSentinels(world: World): Snapshot {
  const names = Object.fromEntries(readdirSync(world.root).map((name) => [name, 'entry']))
  return {
    [world.root]: names,
    ...Object.fromEntries(world.sentinels.map((dir) => [dir, hashTree(dir)])),
  }
}

/**
 * What differs between two snapshots, one line per changed, added or removed entry (empty when
 * nothing did), so a failing test names the file that changed.
 */
export function sentinelChanges(before: Snapshot, after: Snapshot): string[] {
  const changes: string[] = []
  for (const dir of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[dir] ?? {}
    const b = after[dir] ?? {}
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (a[key] === b[key]) continue
      const what = a[key] === undefined ? 'added' : b[key] === undefined ? 'removed' : 'changed'
      changes.push(`${what}: ${join(dir, key)}`)
    }
  }
  return changes.sort()
}

// --- the CLI ----------------------------------------------------------------------------------

export interface CliEnvOptions {
  /** Added to (or, when undefined, removed from) the base environment. */
  readonly env?: Record<string, string | undefined>
}

/**
 * The CLI's environment: a small, fixed one (PATH, a UTF-8 locale, HOME set to the fake home),
 * so nothing of the test runner's own environment leaks into what we assert on. Bridle's own
 * cache (the sandbox probe it remembers) goes under the data folder, so the fake home stays a
 * sentinel of what commands change.
 */
export function cliEnv(world: World, opts: CliEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: world.home,
    XDG_CACHE_HOME: join(world.data, 'cache'),
    LANG: 'C.UTF-8',
  }
  for (const [name, value] of Object.entries(opts.env ?? {})) {
    if (value === undefined) Reflect.deleteProperty(env, name)
    else env[name] = value
  }
  return env
}

/** `bridle <args> --home <data> --project <project>` as a child, with piped stdio. */
export function spawnBridle(
  world: World,
  args: string[],
  opts: CliEnvOptions = {},
): ChildProcessWithoutNullStreams {
  const child = spawn(
    process.execPath,
    cliArgv({ home: world.data, project: world.project }, ...args),
    {
      cwd: world.project,
      env: cliEnv(world, opts),
      stdio: 'pipe',
    },
  )
  child.stdin.end()
  return child
}

export interface CliRun {
  readonly status: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  /** The session id the CLI printed (`session <id>` on stderr), if it did. */
  readonly sessionId: string | undefined
}

/** Collects a spawned CLI's output until it closes. */
export function finished(child: ChildProcessWithoutNullStreams): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => {
    child.once('close', (status, signal) => {
      resolve({ status, signal, stdout, stderr, sessionId: /^session (\S+)$/m.exec(stderr)?.[1] })
    })
  })
}

/**
 * `bridle run` against the scripted server, headless (stdin is a pipe, so `ask` has nobody to
 * ask), to its end. `approval` is the --approval flag; undefined leaves the config's.
 */
export function runBridle(
  world: World,
  server: ModelServer | undefined,
  prompt: string,
  opts: CliEnvOptions & {
    readonly approval?: 'ask' | 'auto-edit' | 'full-auto'
    readonly session?: string
  } = {},
): Promise<CliRun> {
  return finished(spawnBridle(world, runArgs(server, prompt, opts), opts))
}

export function runArgs(
  server: ModelServer | undefined,
  prompt: string,
  opts: { readonly approval?: string; readonly session?: string } = {},
): string[] {
  return [
    'run',
    ...(opts.approval === undefined ? [] : ['--approval', opts.approval]),
    ...(opts.session === undefined ? [] : ['--session', opts.session]),
    ...(server === undefined ? [] : ['--base-url', server.url, '--model', 'scripted']),
    prompt,
  ]
}

// --- the model's side -------------------------------------------------------------------------

/** One scripted reply made of tool calls, with the ids given. */
export function toolCalls(
  ...calls: { readonly id: string; readonly name: string; readonly args: unknown }[]
): ScriptedResponse {
  return {
    steps: [
      ...calls.map((c) => ({ toolCall: { id: c.id, name: c.name, args: JSON.stringify(c.args) } })),
      { finish: 'tool_calls' as const },
    ],
  }
}

/** A bash call as the model sends it. */
export const bash = (id: string, command: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: 'bash',
  args: { command, ...extra },
})

export interface ChatMessage {
  readonly role: string
  readonly content: string | null
  readonly tool_call_id?: string
}

/** The messages of the server's `index`-th chat request. */
export function chatMessages(server: ModelServer, index: number): ChatMessage[] {
  const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'))
  return (chats[index]?.body as { messages?: ChatMessage[] } | undefined)?.messages ?? []
}

// --- the log ----------------------------------------------------------------------------------

/** Every event of a session (the only or newest one when no id is given), parsed. */
export function sessionEvents(world: World, sessionId?: string): LogEvent[] {
  const store = openStore(databasePath(world.data))
  try {
    const id = sessionId ?? store.listSessions({ limit: 1 }).items[0]?.id
    if (id === undefined) return []
    return store.readEvents(id).map(
      (row) =>
        LogEventSchema.parse({
          type: row.type,
          v: row.v,
          seq: row.seq,
          turn: row.turn,
          step: row.step,
          at: row.at,
          data: JSON.parse(row.data) as unknown,
        }) as LogEvent,
    )
  } finally {
    store.close()
  }
}

export function eventsOf<T extends LogEvent['type']>(
  events: readonly LogEvent[],
  type: T,
): LogEventOf<T>[] {
  return events.filter((e) => e.type === type) as unknown as LogEventOf<T>[]
}

/** What happened to one call: its result and every approval decision on it. */
export interface CallOutcome {
  readonly result: LogEventOf<'tool/result'>['data'] | undefined
  readonly decided: LogEventOf<'approval/decided'>['data'][]
  /** The error code, or `ok` when the call ran. */
  readonly code: string
  readonly exitCode: unknown
}

export function callOutcome(events: readonly LogEvent[], callId: string): CallOutcome {
  const result = eventsOf(events, 'tool/result').find((e) => e.data.callId === callId)?.data
  const decided = eventsOf(events, 'approval/decided')
    .filter((e) => e.data.callId === callId)
    .map((e) => e.data)
  return {
    result,
    decided,
    code: result === undefined ? 'no result' : result.ok ? 'ok' : result.error.code,
    exitCode: result?.metadata?.['exitCode'],
  }
}

/** The `turn/end` reasons of the session, in order. */
export function turnEnds(events: readonly LogEvent[]): string[] {
  return eventsOf(events, 'turn/end').map((e) => e.data.reason)
}

// --- the sandbox and processes ----------------------------------------------------------------

/**
 * Whether bwrap can run a sandbox here, probed as the CLI probes it. When it cannot, the reason is
 * printed, so a test that then expects something else never passes silently.
 */
export async function sandboxHere(file: string): Promise<SandboxStatus> {
  const status = await probeSandbox()
  if (!status.available)
    console.warn(`[${file}] bwrap cannot run a sandbox here, so: ${status.why}`)
  return status
}

/** Kills what is left of a marked command (cleanup after a failed assertion). */
export function reapMarked(mark: string): void {
  for (const pid of processesMarked(mark)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
  }
}

/** Runs git in `cwd` with a fixed identity and no user or system config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Safety Test',
      GIT_AUTHOR_EMAIL: 'safety@example.invalid',
      GIT_COMMITTER_NAME: 'Safety Test',
      GIT_COMMITTER_EMAIL: 'safety@example.invalid',
    },
  })
}
