/**
 * Shared by the sandbox tests: temporary trees outside `/tmp` (the sandbox has a private `/tmp`,
 * so a sentinel there would prove nothing), hashing them, running a sandboxed command for real,
 * and finding leftover processes by a marker in their argv.
 */
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach } from 'vitest'
import { sandboxCommand } from '../../../../main/core/tools/sandbox/bwrap.js'
import type { SandboxCommandOptions } from '../../../../main/core/tools/sandbox/bwrap.js'
import { probeSandbox } from '../../../../main/core/tools/sandbox/probe.js'
import type { SandboxStatus } from '../../../../main/core/tools/sandbox/probe.js'

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

/** Writes `files` (relative path -> content) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

/** Every entry under `root` with its type, mode and content hash (links by their target). */
export function hashTree(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      const info = lstatSync(path)
      const key = path.slice(root.length)
      if (info.isDirectory()) {
        out[key] = `dir ${info.mode.toString(8)}`
        walk(path)
      } else if (info.isSymbolicLink()) out[key] = `link ${readlinkSync(path)}`
      else {
        const hash = createHash('sha256').update(readFileSync(path)).digest('hex')
        out[key] = `file ${info.mode.toString(8)} ${hash}`
      }
    }
  }
  walk(root)
  return out
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

/** A marker unique to this run, to find processes by their argv. */
export function marker(label: string): string {
  return `bridle-${label}-${randomBytes(6).toString('hex')}`
}

/** Pids of running (not zombie) processes whose command line contains `mark`. */
export function processesMarked(mark: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || entry === String(process.pid)) continue
    let cmdline: string
    let stat: string
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // It exited while we looked.
    }
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    if (cmdline.includes(mark) && state !== 'Z' && state !== 'X') found.push(Number(entry))
  }
  return found
}

/** Polls `check` every 20 ms until it returns true or `ms` pass; returns its last answer. */
export async function waitFor(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms
  for (;;) {
    if (check()) return true
    if (Date.now() >= deadline) return false
    await delay(20)
  }
}
