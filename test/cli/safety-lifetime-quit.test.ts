/**
 * No way out through quitting, through the real CLI: a command that ignores SIGINT and SIGTERM
 * and forks children that ignore them too is gone, sandboxed or not, after one Ctrl+C, a second
 * Ctrl+C that forces the quit, a SIGTERM and a SIGHUP, and the turn is closed in the log (its
 * reason, the call's result) by the CLI itself before it exits. After a SIGKILL of the CLI the
 * unsandboxed command is ended by the reaper's watchdog, and the next run still repairs the log.
 * Commands are found by a marker in their argv (`exec -a`); that they really ignore the signals
 * is read from /proc before the CLI is signalled.
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { waitForJsonEvent } from '../fixtures/cli.js'
import {
  bash,
  callOutcome,
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
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  spawnBridle,
  toolCalls,
  turnEnds,
  waitFor,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-lifetime-quit')

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

/** Processes of the stubborn command: its shell's last `sleep` and two forked subshells' ones. */
const STUBBORN_PROCESSES = 3

/** A command that ignores SIGINT and SIGTERM, with two children that ignore them too. */
const stubborn = (mark: string) =>
  `trap "" INT TERM; for i in 1 2; do (exec -a ${mark} sleep 300) & done; exec -a ${mark} sleep 300`

/** SIGINT and SIGTERM (signals 2 and 15) as bits of /proc/<pid>/status's SigIgn mask. */
const INT_AND_TERM = (1n << 1n) | (1n << 14n)

function ignoresIntAndTerm(pid: number): boolean {
  try {
    const line = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return line !== null && (BigInt(`0x${line[1]}`) & INT_AND_TERM) === INT_AND_TERM
  } catch {
    return false // gone
  }
}

/**
 * Starts `bridle run --json` in full-auto whose model runs the stubborn command, and resolves
 * once all of its processes run, each ignoring SIGINT and SIGTERM.
 */
async function startStubborn(mode: 'auto' | 'off', label: string) {
  const mark = marker(label)
  marks.push(mark)
  world = makeWorld(label, { sandbox: mode })
  server = await startModelServer({
    script: [toolCalls(bash('stubborn', stubborn(mark))), 'Continued after the crash.'],
  })
  const child = spawnBridle(world, [
    ...runArgs(server, 'run something stubborn', { approval: 'full-auto' }),
    '--json',
  ])
  const done = finished(child)
  try {
    const started = await waitForJsonEvent(child, (e) => e.type === 'process/started', 20_000)
    const allRunning = await waitFor(() => {
      const pids = processesMarked(mark, true)
      return pids.length === STUBBORN_PROCESSES && pids.every(ignoresIntAndTerm)
    }, 10_000)
    if (!allRunning) throw new Error('the stubborn command never ran in full in /proc')
    return { mark, child, done, world, sessionId: started.session }
  } catch (error) {
    child.kill('SIGKILL')
    const run = await done
    throw new Error(`${String(error)}; stderr:\n${run.stderr}`, { cause: error })
  }
}

const stillRunning = (mark: string) => processesMarked(mark).join(', ')

const modes = [
  { mode: 'auto', sandboxed: true },
  { mode: 'off', sandboxed: false },
] as const

/** What is done to the CLI, and how it must end. */
const quits = [
  { what: 'one Ctrl+C', signals: ['SIGINT'], status: 130, reason: 'cancelled' },
  { what: 'a second Ctrl+C', signals: ['SIGINT', 'SIGINT'], status: 130, reason: 'cancelled' },
  { what: 'SIGTERM', signals: ['SIGTERM'], status: 143, reason: 'interrupted' },
  { what: 'SIGHUP', signals: ['SIGHUP'], status: 143, reason: 'interrupted' },
  {
    what: 'SIGTERM, then a second SIGTERM',
    signals: ['SIGTERM', 'SIGTERM'],
    status: 143,
    reason: 'interrupted',
  },
] as const

/** Between two signals: well inside the first one's grace period (1 s) before its SIGKILL. */
const BETWEEN_SIGNALS_MS = 150

describe('quitting bridle run while a command ignores SIGINT and SIGTERM', () => {
  for (const { mode, sandboxed } of modes) {
    for (const quit of quits) {
      it.skipIf(sandboxed && !sandbox.available)(
        `sandbox ${mode}, ${quit.what}: every process ends and the turn closes as ${quit.reason} before exit ${quit.status}`,
        async () => {
          const { mark, child, done, world: w } = await startStubborn(mode, `quit-${mode}`)
          const before = snapshotSentinels(w)
          for (const [i, signal] of quit.signals.entries()) {
            if (i > 0) await new Promise((resolve) => setTimeout(resolve, BETWEEN_SIGNALS_MS))
            child.kill(signal)
          }
          const signalledAt = Date.now()
          const run = await done
          // Sandboxed, bwrap ends on the first signal's SIGTERM, so the run may be over when a
          // second signal lands: it then finds the process exiting or gone, and an end by that
          // signal is what a shell reports as the same code (128 + 2, 128 + 15).
          const lateSignal = sandboxed && run.signal === quit.signals.at(-1)
          expect(lateSignal ? quit.status : run.status, run.stderr).toBe(quit.status)
          const gone = await waitFor(() => processesMarked(mark).length === 0, 3000)
          expect(gone, `still running: ${stillRunning(mark)}`).toBe(true)

          // Written by the CLI before it exited: nothing was left for a repair to do.
          const events = sessionEvents(w)
          expect(turnEnds(events)).toEqual([quit.reason])
          expect(eventsOf(events, 'recovery/repaired')).toEqual([])
          expect(eventsOf(events, 'process/started')[0]?.data).toMatchObject({ sandboxed })
          expect(callOutcome(events, 'stubborn').code).toBe('ABORTED')
          expect(sentinelChanges(before, snapshotSentinels(w))).toEqual([])
          if (quit.signals.length > 1) {
            // Unsandboxed, the first signal's SIGTERM was ignored and its SIGKILL is a second
            // away: the second signal is what ended it. Sandboxed, bwrap may be gone already.
            if (!sandboxed) expect(run.stderr).toContain('quitting: 1 running command killed')
            // The measured figure, for the record (no bound: the machine is shared).
            const closedAfter = (eventsOf(events, 'turn/end')[0]?.at ?? NaN) - signalledAt
            console.info(`[${quit.what}, sandbox ${mode}] turn/end ${closedAfter} ms after it`)
          }
        },
      )
    }
  }
})

describe('SIGKILL of bridle run while a command ignores SIGINT and SIGTERM', () => {
  it('sandbox off: the watchdog ends every process; the next run repairs the log and finds it ended', async () => {
    const { mark, child, done, world: w, sessionId } = await startStubborn('off', 'crash-off')
    child.kill('SIGKILL')
    const killed = await done
    expect(killed.signal).toBe('SIGKILL')
    // The watchdog's SIGTERM is ignored; its SIGKILL follows a second later.
    const gone = await waitFor(() => processesMarked(mark).length === 0, 5000)
    expect(gone, `still running: ${stillRunning(mark)}`).toBe(true)

    const resumed = await runBridle(w, server, 'continue', {
      approval: 'full-auto',
      session: sessionId,
    })
    expect(resumed.status, resumed.stderr).toBe(0)
    const events = sessionEvents(w, sessionId)
    const repaired = eventsOf(events, 'recovery/repaired')
    expect(repaired).toHaveLength(1)
    expect(repaired[0]?.data.cause).toBe('crash')
    const said = repaired[0]?.data.items.map((item) => item.what).join('\n') ?? ''
    expect(said).toContain('had already ended')
    expect(callOutcome(events, 'stubborn').code).toBe('TOOL_OUTCOME_UNKNOWN')
    expect(turnEnds(events).at(-1)).toBe('completed')
  })
})
