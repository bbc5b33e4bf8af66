/**
 * Store failures said plainly (issue 15, item 8), end to end: `bridle run` against the scripted
 * model, whose reply asks for `touch ran.txt`, while the disk under the log refuses writes.
 * Whatever the cause, the command whose `tool/call` could not be recorded does not run, the
 * user reads one sentence naming the cause and the fix (no stack trace, no repeats), the exit
 * code is 1, and the next open repairs the turn. A lock held by another program is retried.
 *
 * The refusals are SQLite's own: `BRIDLE_TEST_STORE_FAULT` (main/core/store/fault.ts) makes it
 * refuse exactly the batch holding the tool/call; the real disks (a full tmpfs, an immutable
 * database, a read-only mount, another process's lock) refuse mid-stream or at the start, and
 * are skipped, saying why, where this machine cannot make them.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../main/core/log/index.js'
import type { LogEvent } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import type { SqliteStore } from '../../main/core/store/index.js'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import type { Step } from '../fixtures/model-server/script.js'
import { cliArgv } from '../fixtures/cli.js'
import { tempFolder } from '../core/store/helpers.js'
import {
  fillDisk,
  holdWriteLock,
  immutableUnsupported,
  killLockHolders,
  mountReadOnly,
  mountTmpfs,
  setImmutable,
  unmount,
} from '../core/store/disk-faults.js'

let home: string
let project: string
let server: ModelServer | undefined
const stores: SqliteStore[] = []
const mounts: string[] = []
const immutables: string[][] = []

beforeEach(() => {
  home = join(tempFolder(), 'home')
  project = join(tempFolder(), 'project')
  mkdirSync(home)
  mkdirSync(project)
})

afterEach(async () => {
  killLockHolders()
  await server?.close()
  server = undefined
  for (const store of stores.splice(0)) store.close()
  for (const paths of immutables.splice(0)) setImmutable(paths, false)
  for (const dir of mounts.splice(0)) unmount(dir)
})

interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  readonly sessionId: string
}

/** A model that asks for `touch ran.txt` (after `before`, e.g. a wait), then answers "Done.". */
async function startModel(before: Step[] = []): Promise<ModelServer> {
  server = await startModelServer({
    script: [
      {
        steps: [
          ...before,
          {
            toolCall: {
              id: 'c1',
              name: 'bash',
              args: JSON.stringify({ command: 'touch ran.txt' }),
            },
          },
          { finish: 'tool_calls' },
        ],
      },
      'Done.',
    ],
  })
  return server
}

/** `bridle run` in full-auto (the command needs no approval), with extra environment. */
function runBridle(
  model: ModelServer,
  opts: { home?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<Run> {
  const argv = cliArgv(
    { home: opts.home ?? home, project },
    'run',
    ...(opts.args ?? []),
    '--approval',
    'full-auto',
    '--base-url',
    model.url,
    '--model',
    'scripted',
    'make a file',
  )
  const child = spawn(process.execPath, argv, {
    stdio: 'pipe',
    env: { ...process.env, ...opts.env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  child.stdin.end()
  return new Promise((resolve) => {
    child.once('close', (status) => {
      const sessionId = /^session (\S+)$/m.exec(stderr)?.[1] ?? ''
      resolve({ status, stdout, stderr, sessionId })
    })
  })
}

/** Resolves once the model has been asked (the request/start before it is on disk). */
async function modelAsked(model: ModelServer): Promise<void> {
  while (chatRequests(model).length === 0) await new Promise((r) => setTimeout(r, 20))
}

function gate(): { wait: Step; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { wait: { wait: promise }, open }
}

/** One `bridle:` line, exactly `sentence`; no stack trace, no raw SQLite words, no tool ran. */
function expectOneClearFailure(run: Run, sentence: string): void {
  expect(run.status, run.stderr).toBe(1)
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '')
  expect(lines.filter((line) => line.startsWith('bridle:'))).toEqual([`bridle: ${sentence}`])
  expect(run.stderr).not.toMatch(/^\s+at |\[bridle\]|SqliteError|LogError|SQLITE_/m)
  expect(run.stderr).not.toContain('-> bash')
  expect(existsSync(join(project, 'ran.txt'))).toBe(false)
}

/** Opens the session for writing, as the next run would: the turn is repaired and closed. */
function expectRepaired(sessionId: string, dataDir = home): LogEvent[] {
  const store = openStore(databasePath(dataDir))
  stores.push(store)
  const session = Session.open(store, sessionId)
  const events = session.slice()
  session.close()
  expect(events.some((event) => event.type === 'tool/call')).toBe(false)
  expect(events.at(-1)?.type).toBe('recovery/repaired')
  expect(session.isTurnOpen).toBe(false)
  return events
}

describe('a full disk mid-turn', () => {
  it('at the tool/call (SQLITE_FULL from max_page_count): the command does not run, one sentence, exit 1', async () => {
    const model = await startModel()
    const run = await runBridle(model, { env: { BRIDLE_TEST_STORE_FAULT: 'full@tool/call' } })
    expectOneClearFailure(
      run,
      `the disk holding ${home} is full; free some space on it, then try again`,
    )
    expectRepaired(run.sessionId)
  })

  it('on a real tmpfs filled while the model answers', async (ctx) => {
    const why = mountTmpfs(home, 4096)
    if (why !== undefined) return ctx.skip(why)
    mounts.push(home)
    const held = gate()
    const model = await startModel([held.wait])
    const running = runBridle(model)
    await modelAsked(model)
    fillDisk(home)
    held.open()
    const run = await running
    expectOneClearFailure(
      run,
      `the disk holding ${home} is full; free some space on it, then try again`,
    )
    rmSync(join(home, 'filler'))
    expectRepaired(run.sessionId)
  })
})

describe('a read-only store mid-turn', () => {
  it('at the tool/call (SQLITE_READONLY from query_only): the command does not run, one sentence, exit 1', async () => {
    const model = await startModel()
    const run = await runBridle(model, { env: { BRIDLE_TEST_STORE_FAULT: 'readonly@tool/call' } })
    expectOneClearFailure(
      run,
      `${join(home, 'bridle.db')} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
    expectRepaired(run.sessionId)
  })

  it('made immutable while the model answers (chattr +i stops root; chmod would not)', async (ctx) => {
    const why = immutableUnsupported(home)
    if (why !== undefined) return ctx.skip(why)
    const held = gate()
    const model = await startModel([held.wait])
    const running = runBridle(model)
    await modelAsked(model)
    const db = join(home, 'bridle.db')
    const files = [db, `${db}-wal`]
    expect(setImmutable(files, true)).toBeUndefined()
    immutables.push(files)
    held.open()
    const run = await running
    expectOneClearFailure(
      run,
      `${db} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
    setImmutable(files, false)
    expectRepaired(run.sessionId)
  })

  it('a data folder on a read-only mount: refused at the start in one sentence', async (ctx) => {
    const model = await startModel()
    // A session to continue, made without running the command (so ran.txt means this run ran it).
    const first = await runBridle(model, { env: { BRIDLE_TEST_STORE_FAULT: 'full@tool/call' } })
    expect(first.status).toBe(1)
    const view = join(tempFolder(), 'view')
    const why = mountReadOnly(home, view)
    if (why !== undefined) return ctx.skip(why)
    mounts.push(view)
    const run = await runBridle(model, { home: view, args: ['--session', first.sessionId] })
    expectOneClearFailure(
      run,
      `${view} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
  })
})

describe('the database locked by another program mid-turn', () => {
  it('for about 2 s: retried, said once, and the command runs', async () => {
    const held = gate()
    const model = await startModel([held.wait])
    const running = runBridle(model)
    await modelAsked(model)
    await holdWriteLock(join(home, 'bridle.db'), 2000)
    held.open()
    const run = await running
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr.split('\n').filter((line) => line.startsWith('bridle:'))).toEqual([
      `bridle: ${join(home, 'bridle.db')} is in use by another program; retrying`,
    ])
    expect(run.stderr).toContain('-> bash')
    expect(existsSync(join(project, 'ran.txt'))).toBe(true)
  })

  it('beyond the retry limit: "retrying" once, then one sentence; the command does not run', async () => {
    const held = gate()
    const model = await startModel([held.wait])
    const running = runBridle(model)
    await modelAsked(model)
    await holdWriteLock(join(home, 'bridle.db'), 60_000)
    held.open()
    const run = await running
    const db = join(home, 'bridle.db')
    expect(run.stderr.split('\n').filter((line) => line.startsWith('bridle:'))).toEqual([
      `bridle: ${db} is in use by another program; retrying`,
      `bridle: ${db} is in use by another program, which kept it locked for more than 10 s; close that program, then try again`,
    ])
    expect(run.status).toBe(1)
    expect(run.stderr).not.toMatch(/^\s+at |\[bridle\]|SqliteError|LogError|SQLITE_/m)
    expect(existsSync(join(project, 'ran.txt'))).toBe(false)
    killLockHolders()
    expectRepaired(run.sessionId)
  }, 60_000)
})
