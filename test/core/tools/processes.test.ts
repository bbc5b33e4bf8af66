/**
 * Commands left running by a crash: crash repair finds them by the `process/started` record and
 * ends them, but only while they are still the recorded command (a live leader that started at
 * another time is someone else's process that reused the number).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { Session } from '../../../main/core/log/index.js'
import { openStore } from '../../../main/core/store/index.js'
import {
  endLeftoverProcess,
  processStartTicks,
  thisMachine,
} from '../../../main/core/tools/processes.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

/** A detached shell leading its own group, with a child that carries `marker` in its argv. */
function startGroup(marker: string): number {
  const child = spawn('/bin/bash', ['-c', `exec -a ${marker} sleep 300 & wait`], {
    detached: true,
    stdio: 'ignore',
  })
  child.unref()
  const pid = child.pid
  if (pid === undefined) throw new Error('could not start bash')
  cleanups.push(() => {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // gone already
    }
  })
  return pid
}

/** The pids whose argv[0] is `marker`. */
function withMarker(marker: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0]
      return argv0 === marker ? [Number(entry)] : []
    } catch {
      return []
    }
  })
}

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await delay(20)
  }
}

describe('ending what a crash left running', () => {
  it('ends a recorded group that still runs, and says so', async () => {
    const marker = `bridle-leftover-${process.pid}-a`
    const pid = startGroup(marker)
    await until(() => withMarker(marker).length === 1, 'the marked child')
    const startTicks = processStartTicks(pid)
    expect(startTicks).toBeGreaterThan(0)
    const said = endLeftoverProcess({
      callId: 'c1',
      pid,
      pgid: pid,
      ...(startTicks === undefined ? {} : { startTicks }),
      ...thisMachine(),
      sandboxed: false,
    })
    expect(said).toMatch(/still running after the crash: 2 processes \(group \d+\) stopped/)
    expect(withMarker(marker)).toEqual([])
  })

  it('leaves alone a group whose leader started at another time (the number was reused)', async () => {
    const marker = `bridle-leftover-${process.pid}-b`
    const pid = startGroup(marker)
    await until(() => withMarker(marker).length === 1, 'the marked child')
    const startTicks = (processStartTicks(pid) ?? 0) + 1
    const said = endLeftoverProcess({
      callId: 'c1',
      pid,
      pgid: pid,
      startTicks,
      ...thisMachine(),
      sandboxed: false,
    })
    expect(said).toBe(`Its command had already ended (process ${pid} is now another program).`)
    expect(withMarker(marker)).toHaveLength(1)
  })

  it('never signals a live group its record cannot prove ours, and says why', async () => {
    const marker = `bridle-leftover-${process.pid}-d`
    const pid = startGroup(marker)
    await until(() => withMarker(marker).length === 1, 'the marked child')
    const startTicks = processStartTicks(pid) ?? 0
    const base = { callId: 'c1', pid, pgid: pid, sandboxed: false }
    const machine = thisMachine()
    const cases: [string, Parameters<typeof endLeftoverProcess>[0], RegExp][] = [
      // An older Bridle's record, or a hand-edited one: no host, no boot.
      ['no provenance', { ...base, startTicks }, /cannot prove it started that process/],
      ['no start time', { ...base, ...machine }, /cannot prove it started that process/],
      [
        'another host',
        { ...base, startTicks, ...machine, host: `not-${machine.host}` },
        /started on another host/,
      ],
      // Every field matches the live process: only the import mark tells it apart.
      [
        'imported',
        { ...base, startTicks, ...machine, imported: true },
        /came with an imported session/,
      ],
      [
        'pid not its group',
        { ...base, pgid: pid, pid: process.pid, startTicks, ...machine },
        /is not one a command of Bridle leads/,
      ],
    ]
    for (const [what, record, why] of cases) {
      const said = endLeftoverProcess(record)
      expect(said, what).toMatch(/^Its command \(process group \d+\) was not stopped: /)
      expect(said, what).toMatch(why)
      expect(withMarker(marker), what).toHaveLength(1)
    }
    // Another boot: the recorded process ended when the machine restarted; nothing is signalled.
    const rebooted = endLeftoverProcess({ ...base, startTicks, ...machine, bootId: 'another-boot' })
    expect(rebooted).toBe('Its command had already ended (the machine has restarted since).')
    expect(withMarker(marker)).toHaveLength(1)
  })

  it('reports a command that had already ended', () => {
    // pid_max is far below this; no process can have it.
    const said = endLeftoverProcess({
      callId: 'c1',
      pid: 4_000_000,
      pgid: 4_000_000,
      startTicks: 1,
      ...thisMachine(),
      sandboxed: false,
    })
    expect(said).toBe('Its command had already ended.')
  })

  it('crash repair ends the command of a started call and says so in its result and repair record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridle-leftover-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const dbPath = join(dir, 'bridle.db')
    const marker = `bridle-leftover-${process.pid}-c`
    const pid = startGroup(marker)
    await until(() => withMarker(marker).length === 1, 'the marked child')

    // The run that "crashed": a started bash call with its process on record, no result.
    let store = openStore(dbPath)
    const session = Session.create(store, { projectDir: dir })
    session.append('turn/start', {})
    session.append('step/start', {})
    session.append('request/header', { sections: [], tools: [], reason: 'initial' })
    session.append('request/start', { provider: 'p', model: 'm', params: {}, headerSeq: 3 })
    session.append('assistant/message', {
      blocks: [{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{"command":"sleep 300"}' }],
      finish: 'tool-calls',
    })
    session.append('tool/call', { callId: 'c1', name: 'bash', args: { command: 'sleep 300' } })
    const startTicks = processStartTicks(pid)
    session.append('process/started', {
      callId: 'c1',
      pid,
      pgid: pid,
      ...(startTicks === undefined ? {} : { startTicks }),
      ...thisMachine(),
      sandboxed: false,
    })
    session.close()
    store.close()

    store = openStore(dbPath)
    cleanups.push(() => store.close())
    const reopened = Session.open(store, session.id, { endLeftoverProcess })
    cleanups.push(() => reopened.close())
    expect(withMarker(marker)).toEqual([])
    const events = reopened.slice()
    const result = events.find((e) => e.type === 'tool/result')
    expect(result?.type === 'tool/result' && !result.data.ok && result.data.error.message).toMatch(
      /Its command was still running after the crash: 2 processes \(group \d+\) stopped\./,
    )
    const repaired = events.find((e) => e.type === 'recovery/repaired')
    expect(
      repaired?.type === 'recovery/repaired' && repaired.data.items.map((item) => item.what),
    ).toContainEqual(expect.stringContaining('stopped'))
  })
})
