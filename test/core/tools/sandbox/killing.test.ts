/**
 * Stopping a sandboxed command ends everything it started, however it tried to get away: a
 * background job, a new session (`setsid`), a double fork, a process ignoring SIGTERM. They all
 * live in the sandbox's PID namespace, which dies with its init, and bwrap takes that init with
 * it. Leftovers are found by a unique marker in their argv.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { sandboxCommand } from '../../../../main/core/tools/sandbox/bwrap.js'
import { startParent } from './child.js'
import {
  marker,
  processesMarked,
  runSandboxed,
  sandboxStatus,
  scratch,
  waitFor,
} from './helpers.js'

const status = await sandboxStatus()
const bwrap = status.available ? status.bwrap : ''
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

const ESCAPES = ['background', 'setsid', 'double-fork', 'deaf'] as const

/** Starts one sleeper per escape route, each named `<mark>-<route>`, then waits. */
function escapingCommand(mark: string): string {
  const sleeper = (route: string) => `exec -a ${mark}-${route} sleep 1000`
  return [
    `bash -c '${sleeper('background')}' &`,
    `setsid bash -c '${sleeper('setsid')}' &`,
    `(bash -c '${sleeper('double-fork')}' &)`,
    `bash -c 'trap "" TERM; ${sleeper('deaf')}' &`,
    'wait',
  ].join('\n')
}

/** Whether every sleeper runs (its argv[0] is the marked name). */
const allStarted = (mark: string) =>
  ESCAPES.every((route) => processesMarked(`${mark}-${route}\0`).length === 1)

function spec(projectDir: string, command: string) {
  return sandboxCommand({
    bwrap,
    projectDir,
    cwd: projectDir,
    shell: '/bin/bash',
    command,
    network: false,
    hide: [],
    readOnly: [],
  })
}

describe.skipIf(!status.available)('stopping a sandboxed command', () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)(
    '%s to the process group ends every process the command started',
    async (signal) => {
      const mark = marker('group')
      const { file, args } = spec(scratch(), escapingCommand(mark))
      const child = spawn(file, args, { env, detached: true, stdio: 'ignore' })
      const exited = new Promise((resolve) => child.once('exit', resolve))
      try {
        expect(await waitFor(() => allStarted(mark))).toBe(true)
        // setsid really left the group: the bash tool alone could not reach it.
        const [escaped] = processesMarked(`${mark}-setsid\0`)
        expect(processGroup(escaped ?? 0)).not.toBe(child.pid)

        process.kill(-(child.pid ?? 0), signal)
        // No SIGKILL follow-up even for SIGTERM: bwrap dies at once and takes the namespace.
        expect(await waitFor(() => processesMarked(mark).length === 0, 2000)).toBe(true)
        await exited
      } finally {
        killMarked(mark)
      }
    },
  )

  it('the command stays in the process group the log records (no new session inside)', async () => {
    const mark = marker('own-group')
    const { file, args } = spec(scratch(), `exec -a ${mark} sleep 1000`)
    const child = spawn(file, args, { env, detached: true, stdio: 'ignore' })
    try {
      expect(await waitFor(() => processesMarked(`${mark}\0`).length === 1)).toBe(true)
      const [command] = processesMarked(`${mark}\0`)
      expect(processGroup(command ?? 0)).toBe(child.pid)
    } finally {
      process.kill(-(child.pid ?? 0), 'SIGKILL')
      killMarked(mark)
    }
  })

  it('SIGKILL of the Node parent leaves nothing running (die-with-parent)', async () => {
    const mark = marker('parent')
    const parent = startParent({ ...spec(scratch(), escapingCommand(mark)), env }, env)
    try {
      expect(await waitFor(() => allStarted(mark))).toBe(true)
      parent.kill('SIGKILL')
      expect(await waitFor(() => processesMarked(mark).length === 0, 2000)).toBe(true)
    } finally {
      parent.kill('SIGKILL')
      killMarked(mark)
    }
  })

  it('ends background jobs when the shell exits, even those that left the group', async () => {
    const mark = marker('exit')
    const started = Date.now()
    const ran = await runSandboxed(
      `setsid nohup bash -c 'exec -a ${mark}-nohup sleep 1000' >/dev/null 2>&1 & echo started`,
      { bwrap, projectDir: scratch() },
    )
    expect(ran.output).toBe('started\n')
    expect(Date.now() - started).toBeLessThan(2000)
    expect(await waitFor(() => processesMarked(mark).length === 0, 2000)).toBe(true)
  })
})

/** The process group of `pid`, from /proc. */
function processGroup(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
}

/** Cleanup after a failed test, so one failure does not leave sleepers behind. */
function killMarked(mark: string): void {
  for (const pid of processesMarked(mark)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // ESRCH: it ended on its own meanwhile.
    }
  }
}
