/**
 * Shared by the sandbox tests: temporary trees outside `/tmp` (the sandbox has a private `/tmp`,
 * so a sentinel there would prove nothing), hashing them, running a sandboxed command for real,
 * and finding leftover processes by a marker in their argv.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { sandboxCommand } from '../../../../main/core/tools/sandbox/bwrap.js'
import type { SandboxCommandOptions } from '../../../../main/core/tools/sandbox/bwrap.js'
import { probeSandbox } from '../../../../main/core/tools/sandbox/probe.js'
import type { SandboxStatus } from '../../../../main/core/tools/sandbox/probe.js'

export {
  hashTree,
  marker,
  processesMarked,
  waitFor,
  writeTree,
} from '../../../fixtures/host-state.js'

/** Probed once per test file; the reason is printed when the sandbox cannot run here. */
export async function sandboxStatus(): Promise<SandboxStatus> {
  const status = await probeSandbox()
  if (!status.available) console.warn(`sandbox tests skipped: ${status.why}`)
  return status
}

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/**
 * A fresh folder, removed after the test: by default outside `/tmp`, on the file system the
 * sandbox sees read-only (`/var/tmp` where it exists, else the temporary folder).
 */
export function scratch(parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(parent, 'bridle-sandbox-')))
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

export interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** stdout and stderr, interleaved as they came. */
  readonly output: string
}

export type RunOptions = Partial<Omit<SandboxCommandOptions, 'command'>> & {
  readonly bwrap: string
  readonly projectDir: string
  readonly env?: Record<string, string>
}

/** Runs `command` in the sandbox the way the bash tool does: detached, stdin closed. */
export function runSandboxed(command: string, opts: RunOptions): Promise<Ran> {
  const { file, args } = sandboxCommand({
    cwd: opts.projectDir,
    shell: '/bin/bash',
    network: false,
    hide: [],
    readOnly: [],
    ...opts,
    command,
  })
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: opts.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent' },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    }, 15_000)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, output })
    })
  })
}
