/**
 * Crash repair signals only what this installation started, through the real CLI. A session
 * whose log names a `process/started` Bridle did not start (a hand-edited log, a re-imported
 * export, group 1, the CLI's own group) is opened with `bridle run --session` and
 * `bridle restore --dry-run`: the victim, a real process group spawned here, must be alive after,
 * and the call's result must say why it was not stopped. The one record that is provably ours
 * (same host, boot and leader start time) is still ended by a real open. Victims are found by a
 * marker in their argv (`exec -a`); group 1 is attacked inside a pid namespace of its own (bwrap),
 * so even a regression cannot reach a process outside it.
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { Session } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { processStartTicks, thisMachine } from '../../main/core/tools/processes.js'
import type { EventDataInput } from '../../protocol/events.js'
import { cliArgv, waitForJsonEvent } from '../fixtures/cli.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  cliEnv,
  disposeWorld,
  eventsOf,
  finished,
  makeWorld,
  marker,
  processesMarked,
  reapMarked,
  runArgs,
  runBridle,
  sandboxHere,
  sessionEvents,
  spawnBridle,
  toolCalls,
  waitFor,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-crash-repair')

let world: World | undefined
let server: ModelServer | undefined
const marks: string[] = []

afterEach(async () => {
  for (const mark of marks.splice(0)) reapMarked(mark)
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

type Record = Omit<EventDataInput<'process/started'>, 'callId'>

/** A world and a scripted model that answers the turn after the repair. */
async function setUp(label: string): Promise<World> {
  world = makeWorld(label, { sandbox: 'off' })
  server = await startModelServer({ script: ['Continued after the repair.'] })
  return world
}

/** A process group Bridle did not start: a detached, marked `sleep 300`; its group id. */
async function startVictim(label: string): Promise<{ mark: string; pgid: number }> {
  const mark = marker(label)
  marks.push(mark)
  const child = spawn('/bin/bash', ['-c', `exec -a ${mark} sleep 300`], {
    detached: true,
    stdio: 'ignore',
  })
  child.unref()
  if (child.pid === undefined) throw new Error('could not start the victim')
  if (!(await waitFor(() => processesMarked(mark, true).length === 1, 5000)))
    throw new Error('the victim never showed in /proc')
  return { mark, pgid: child.pid }
}

/** Everything a record needs to pass for this installation's own: host, boot, start time. */
function fullProvenance(pgid: number): Record {
  const startTicks = processStartTicks(pgid)
  if (startTicks === undefined) throw new Error(`no start time for ${pgid}`)
  return { pid: pgid, pgid, startTicks, ...thisMachine(), sandboxed: false }
}

/**
 * A session as a crash would leave it, written straight into the data folder's database (what a
 * hand-edited or forged log amounts to): a bash call started, its process on record, no result.
 */
function crashedSession(w: World, record: Record): string {
  const store = openStore(databasePath(w.data))
  try {
    const session = Session.create(store, { projectDir: w.project })
    session.append('turn/start', {})
    session.append('step/start', {})
    session.append('request/header', { sections: [], tools: [], reason: 'initial' })
    session.append('request/start', { provider: 'p', model: 'm', params: {}, headerSeq: 3 })
    session.append('assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"command":"sleep 300"}' }],
      finish: 'tool-calls',
    })
    session.append('tool/call', { callId: 'c1', name: 'bash', args: { command: 'sleep 300' } })
    session.append('process/started', { callId: 'c1', ...record })
    session.close()
    return session.id
  } finally {
    store.close()
  }
}

/** What the repair said of call c1: its TOOL_OUTCOME_UNKNOWN message. */
function repairSaid(w: World, sessionId: string): string {
  const outcome = callOutcome(sessionEvents(w, sessionId), 'c1')
  expect(outcome.code).toBe('TOOL_OUTCOME_UNKNOWN')
  return outcome.result?.ok === false ? outcome.result.error.message : ''
}

/** Live children of `parent` outside group `pgid` (a watchdog, if the CLI keeps one). */
function childrenOutside(parent: number, pgid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return Number(ppid) === parent && Number(pgrp) !== pgid && state !== 'Z'
        ? [Number(entry)]
        : []
    } catch {
      return []
    }
  })
}

describe('crash repair of a real crash', () => {
  it('bridle run killed with everything it keeps (-9): the next run ends the command it left', async () => {
    const mark = marker('genuine')
    marks.push(mark)
    world = makeWorld('genuine', { sandbox: 'off' })
    const w = world
    server = await startModelServer({
      script: [
        toolCalls(bash('sleeper', `exec -a ${mark} sleep 300`)),
        'Continued after the crash.',
      ],
    })
    const child = spawnBridle(w, [
      ...runArgs(server, 'wait a while', { approval: 'full-auto' }),
      '--json',
    ])
    const done = finished(child)
    const started = await waitForJsonEvent(child, (e) => e.type === 'process/started', 20_000)
    const pgid = Number(started.data['pgid'])
    expect(await waitFor(() => processesMarked(mark, true).length === 1, 10_000)).toBe(true)
    // A crash that takes the CLI's helpers with it: only the command's own group survives.
    for (const pid of childrenOutside(child.pid ?? -1, pgid)) process.kill(pid, 'SIGKILL')
    child.kill('SIGKILL')
    expect((await done).signal).toBe('SIGKILL')
    await delay(300)
    expect(processesMarked(mark, true)).toHaveLength(1)

    const run = await runBridle(w, server, 'continue', { session: started.session })
    expect(run.status, run.stderr).toBe(0)
    const events = sessionEvents(w, started.session)
    expect(eventsOf(events, 'process/started')[0]?.data).toMatchObject({
      ...thisMachine(),
      pgid,
    })
    const outcome = callOutcome(events, 'sleeper')
    const said = outcome.result?.ok === false ? outcome.result.error.message : ''
    expect(said).toMatch(/still running after the crash: 1 process \(group \d+\) stopped/)
    expect(await waitFor(() => processesMarked(mark).length === 0, 5000)).toBe(true)
  }, 60_000)
})

describe('crash repair of a log naming a process Bridle did not start', () => {
  it('a hand-edited log (no host or boot on record): run --session leaves the group running and says why', async () => {
    const w = await setUp('forged')
    const victim = await startVictim('forged')
    // The attacker can read the victim's start time from /proc; it cannot make the record ours.
    const { host: _host, bootId: _boot, ...forged } = fullProvenance(victim.pgid)
    const sessionId = crashedSession(w, forged)

    const run = await runBridle(w, server, 'continue', { session: sessionId })
    expect(run.status, run.stderr).toBe(0)
    expect(processesMarked(victim.mark, true)).toHaveLength(1)
    expect(repairSaid(w, sessionId)).toMatch(
      new RegExp(`process group ${victim.pgid}\\) was not stopped: .*cannot prove it started`),
    )
  }, 60_000)

  it('an exported log imported back (host, boot and start time all match): never signalled', async () => {
    const w = await setUp('imported')
    const victim = await startVictim('imported')
    const original = crashedSession(w, fullProvenance(victim.pgid))
    const file = join(w.root, 'session.jsonl')
    const exported = await finished(spawnBridle(w, ['export', original, '--out', file]))
    expect(exported.status, exported.stderr).toBe(0)
    const imported = await finished(spawnBridle(w, ['import', file]))
    expect(imported.status, imported.stderr).toBe(0)
    const sessionId = imported.sessionId ?? /([0-9a-f-]{36})/.exec(imported.stdout)?.[1]
    expect(sessionId).toBeDefined()
    expect(sessionId).not.toBe(original)
    const records = eventsOf(sessionEvents(w, sessionId), 'process/started')
    expect(records.map((e) => e.data.imported)).toEqual([true])

    const run = await runBridle(w, server, 'continue', { session: sessionId })
    expect(run.status, run.stderr).toBe(0)
    expect(processesMarked(victim.mark, true)).toHaveLength(1)
    expect(repairSaid(w, sessionId ?? '')).toMatch(/was not stopped: .*imported session/)
  }, 60_000)

  it('restore --dry-run neither repairs nor signals; a real open then ends what is provably ours', async () => {
    const w = await setUp('dry-run')
    const victim = await startVictim('dry-run')
    // Indistinguishable from a genuine leftover: only the dry run's restraint protects it.
    const sessionId = crashedSession(w, fullProvenance(victim.pgid))
    const before = sessionEvents(w, sessionId).length

    const dry = await finished(spawnBridle(w, ['restore', sessionId, '0', '--dry-run']))
    expect(dry.status).not.toBe(0)
    expect(dry.stderr).toMatch(/left open by a crash .*A dry run does not repair it/s)
    expect(processesMarked(victim.mark, true)).toHaveLength(1)
    expect(sessionEvents(w, sessionId)).toHaveLength(before)

    const run = await runBridle(w, server, 'continue', { session: sessionId })
    expect(run.status, run.stderr).toBe(0)
    expect(repairSaid(w, sessionId)).toMatch(/still running after the crash: 1 process \(group/)
    expect(await waitFor(() => processesMarked(victim.mark).length === 0, 5000)).toBe(true)
  }, 60_000)

  it("the CLI's own process group, recorded in full: not signalled", async () => {
    const w = await setUp('own-group')
    const mark = marker('own-group')
    marks.push(mark)
    // A group led by bash that waits for the session id, then becomes the CLI (same pid, same
    // start time): the record can name the CLI's own group before the CLI opens the session.
    const argv = cliArgv({ home: w.data, project: w.project }, ...runArgs(server, 'continue'))
    const script = `exec -a ${mark} sleep 300 >/dev/null 2>&1 & read sid; exec "$0" "$@" --session "$sid"`
    const child = spawn('/bin/bash', ['-c', script, process.execPath, ...argv], {
      cwd: w.project,
      env: cliEnv(w),
      stdio: 'pipe',
      detached: true,
    })
    const pgid = child.pid
    if (pgid === undefined) throw new Error('could not start the shell')
    expect(await waitFor(() => processesMarked(mark, true).length === 1, 5000)).toBe(true)
    const sessionId = crashedSession(w, fullProvenance(pgid))
    const done = finished(child)
    child.stdin.end(`${sessionId}\n`)
    const run = await done
    expect(run.signal, run.stderr).toBeNull()
    expect(run.status, run.stderr).toBe(0)
    expect(processesMarked(mark, true)).toHaveLength(1)
    expect(repairSaid(w, sessionId)).toMatch(/was not stopped: it is the process group Bridle/)
  }, 60_000)

  it.skipIf(!sandbox.available)(
    'group 1 (kill(-1) would reach every process): not signalled, inside a pid namespace of its own',
    async () => {
      const w = await setUp('group-one')
      const mark = marker('group-one')
      marks.push(mark)
      const sessionId = crashedSession(w, { pid: 1, pgid: 1, ...thisMachine(), sandboxed: false })
      // bash is pid 1 and leads group 1 of the namespace; the victim and the CLI are in it too.
      const argv = cliArgv(
        { home: w.data, project: w.project },
        ...runArgs(server, 'continue', { session: sessionId }),
      )
      const script = `exec -a ${mark} sleep 300 & "$@"; code=$?; kill -0 $! && echo VICTIM-ALIVE; exit $code`
      const bwrap = spawn(
        'bwrap',
        [
          ...['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--as-pid-1'],
          ...['--new-session', '--die-with-parent', '--', '/bin/bash', '-c', script, 'bash'],
          ...[process.execPath, ...argv],
        ],
        { cwd: w.project, env: cliEnv(w), stdio: 'pipe' },
      )
      bwrap.stdin.end()
      const run = await finished(bwrap)
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain('VICTIM-ALIVE')
      expect(repairSaid(w, sessionId)).toMatch(
        /process group 1\) was not stopped: group 1 is not one a command of Bridle leads/,
      )
    },
    60_000,
  )
})
