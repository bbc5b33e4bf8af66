/**
 * The reaper (`main/core/tools/reaper.ts`) with real processes: a harness (a child Node process
 * that tracks a command's group) is killed with SIGKILL, and its watchdog ends the command, which
 * ignores SIGTERM, with the escalation to SIGKILL; the watchdog shrugs off the terminal's
 * signals; `killAll` ends tracked groups at once; a released group is forgotten once empty.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { isGroupRunning, signalGroup } from '../../../main/core/tools/processes.js'
import { ProcessReaper, WATCHDOG_GRACE_MS } from '../../../main/core/tools/reaper.js'
import { waitFor } from '../../fixtures/host-state.js'

const repoRoot = join(import.meta.dirname, '..', '..', '..')
const tsxLoader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href
const reaperModule = pathToFileURL(join(repoRoot, 'main/core/tools/reaper.ts')).href

/** A command that ignores SIGTERM and SIGINT, with a forked child that ignores them too. */
const STUBBORN = 'trap "" INT TERM; sleep 300 & exec sleep 300'

const groups: number[] = []
const dirs: string[] = []

afterEach(() => {
  for (const pgid of groups.splice(0)) signalGroup(pgid, 'SIGKILL')
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** SIGHUP, SIGINT, SIGQUIT and SIGTERM as bits of /proc/<pid>/status's SigIgn mask. */
const TERMINAL_SIGNALS = (1n << 0n) | (1n << 1n) | (1n << 2n) | (1n << 14n)

function ignores(pid: number, mask: bigint): boolean {
  try {
    const line = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return line !== null && (BigInt(`0x${line[1]}`) & mask) === mask
  } catch {
    return false // gone
  }
}

/** A stubborn command in its own group, as bash.ts starts one. */
function startStubborn(): number {
  const child = spawn('/bin/sh', ['-c', STUBBORN], { detached: true, stdio: 'ignore' })
  child.unref()
  if (child.pid === undefined) throw new Error('sh did not start')
  groups.push(child.pid)
  return child.pid
}

/**
 * A harness: a Node process that starts the stubborn command, tracks its group with its own
 * reaper, prints `{ pgid, watchdog }` and waits (or, with `release`, waits for the command to end,
 * releases it and exits).
 */
function startHarness(command = STUBBORN) {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-reaper-'))
  dirs.push(dir)
  const script = join(dir, 'harness.ts')
  writeFileSync(
    script,
    [
      `import { spawn } from 'node:child_process'`,
      `import { ProcessReaper } from ${JSON.stringify(reaperModule)}`,
      `const reaper = new ProcessReaper()`,
      `const child = spawn('/bin/sh', ['-c', ${JSON.stringify(command)}], { detached: true, stdio: 'ignore' })`,
      `const release = reaper.track(child.pid)`,
      `console.log(JSON.stringify({ pgid: child.pid, watchdog: reaper.watchdogPid }))`,
      `child.on('exit', () => release())`,
      `setInterval(() => {}, 1000)`,
    ].join('\n'),
  )
  const harness = spawn(process.execPath, ['--import', tsxLoader, script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const started = new Promise<{ pgid: number; watchdog: number }>((resolve, reject) => {
    harness.stdout.once('data', (data: Buffer) => {
      const info = JSON.parse(data.toString()) as { pgid: number; watchdog: number }
      groups.push(info.pgid)
      resolve(info)
    })
    harness.once('exit', () => reject(new Error('the harness exited before it said anything')))
  })
  const exited = new Promise<void>((resolve) => harness.once('exit', () => resolve()))
  return { harness, started, exited }
}

describe('the watchdog', () => {
  it('ends a group that ignores SIGTERM, with SIGKILL, when its harness is killed', async () => {
    const { harness, started, exited } = startHarness()
    const { pgid, watchdog } = await started
    expect(isAlive(watchdog)).toBe(true)
    // The terminal's signals do not stop it. It runs in a session of its own, so a terminal's
    // never reach it; its `trap` covers a signal sent to it directly, once the shell has run it.
    expect(await waitFor(() => ignores(watchdog, TERMINAL_SIGNALS), 3000)).toBe(true)
    for (const signal of ['SIGINT', 'SIGHUP', 'SIGTERM', 'SIGQUIT'] as const)
      process.kill(watchdog, signal)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(isAlive(watchdog)).toBe(true)
    expect(isGroupRunning(pgid)).toBe(true)

    harness.kill('SIGKILL')
    await exited
    const killedAt = Date.now()
    // SIGTERM is ignored, so the group lives through the grace period...
    await new Promise((resolve) => setTimeout(resolve, WATCHDOG_GRACE_MS / 2))
    expect(isGroupRunning(pgid)).toBe(true)
    // ...and then gets SIGKILL.
    expect(await waitFor(() => !isGroupRunning(pgid), WATCHDOG_GRACE_MS + 3000)).toBe(true)
    console.info(`[reaper] group gone ${Date.now() - killedAt} ms after the harness was killed`)
    expect(await waitFor(() => !isAlive(watchdog), 2000)).toBe(true)
  })

  it('leaves nothing behind when its harness ends with nothing running', async () => {
    const { harness, started, exited } = startHarness('sleep 0.2')
    const { pgid, watchdog } = await started
    expect(await waitFor(() => !isGroupRunning(pgid), 3000)).toBe(true)
    harness.kill('SIGTERM')
    await exited
    expect(await waitFor(() => !isAlive(watchdog), 2000)).toBe(true)
  })
})

describe('killAll and release', () => {
  it('signals every tracked group at once and forgets a released one once it is empty', async () => {
    const reaper = new ProcessReaper()
    const pgid = startStubborn()
    const release = reaper.track(pgid)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(reaper.killAll('SIGTERM')).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(isGroupRunning(pgid)).toBe(true) // it ignores SIGTERM
    release()
    expect(reaper.tracked).toEqual([pgid]) // still running: still tracked
    expect(reaper.killAll('SIGKILL')).toBe(1)
    expect(await waitFor(() => !isGroupRunning(pgid), 2000)).toBe(true)
    expect(reaper.killAll('SIGKILL')).toBe(0)
    reaper.track(startStubborn()) // a later look forgets the emptied group
    expect(reaper.tracked).not.toContain(pgid)
    reaper.killAll('SIGKILL')
  })

  it('refuses what is not a group it could have started', () => {
    const reaper = new ProcessReaper()
    for (const pgid of [0, 1, -5, 2.5, Number.NaN]) expect(() => reaper.track(pgid)).toThrow()
  })
})
