/**
 * `bridle import` is bounded (main/core/import/bounded-read.ts): the real CLI is given what an
 * attacker or an accident would give it (a device, a pipe, a file past each limit) and must
 * refuse it quickly, in a sentence naming the limit, while its memory is sampled from
 * /proc/<pid>/status the whole time. Big files are made sparse or streamed, never held here.
 */
import { execFileSync, spawn } from 'node:child_process'
import {
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IMPORT_LIMITS } from '../../main/core/import/index.js'
import { cliArgv } from '../fixtures/cli.js'

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'import')
/** What the CLI may use at most while refusing: far below any file it was given. */
const MAX_RSS_MB = 300
/** How long a refusal may take: the CLI's own start (tsx) is most of it. */
const MAX_SECONDS = 8
const procAvailable = existsSync('/proc/self/status')
const mkfifoAvailable = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()
if (!procAvailable) console.warn('import-limits: skipped, no /proc to sample memory from')
if (!mkfifoAvailable) console.warn('import-limits: FIFO cases skipped, no mkfifo here')

let root: string
let home: string
let project: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-import-limits-')))
  home = join(root, 'data')
  project = join(root, 'project')
  mkdirSync(project)
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

interface Sampled {
  status: number | null
  stdout: string
  stderr: string
  seconds: number
  peakRssMb: number
  killed: boolean
}

/**
 * Runs the CLI, reading its VmRSS every 20 ms; kills it (and says so) after `killAfterMs`, so a
 * CLI that hangs on a pipe or grows without end fails the test instead of stalling it.
 */
function sampled(argv: string[], env: NodeJS.ProcessEnv = {}, killAfterMs = 20_000) {
  return new Promise<Sampled>((resolve) => {
    const started = Date.now()
    const child = spawn(process.execPath, argv, {
      cwd: project,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let peakKb = 0
    let killed = false
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const sample = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
        peakKb = Math.max(peakKb, kb)
      } catch {
        // The process ended between two samples.
      }
    }, 20)
    const timer = setTimeout(() => {
      killed = true
      child.kill('SIGKILL')
    }, killAfterMs)
    child.once('close', (status) => {
      clearInterval(sample)
      clearTimeout(timer)
      resolve({
        status,
        stdout,
        stderr,
        seconds: (Date.now() - started) / 1000,
        peakRssMb: peakKb / 1024,
        killed,
      })
    })
  })
}

/** A refusal: exit 1, quick, small, with `sentence` on stderr, and no session written. */
function expectRefused(run: Sampled, sentence: RegExp, maxSeconds = MAX_SECONDS): void {
  expect(run.killed, `killed after hanging or growing; stderr: ${run.stderr}`).toBe(false)
  expect(run.stderr).toMatch(sentence)
  expect(run.status).toBe(1)
  expect(run.seconds).toBeLessThan(maxSeconds)
  expect(run.peakRssMb).toBeGreaterThan(0) // the sampler saw the process
  expect(run.peakRssMb).toBeLessThan(MAX_RSS_MB)
  expect(run.stdout).toBe('')
}

/** A Codex rollout's first line, then `lines` entries Codex's reader counts and leaves out. */
function codexFile(path: string, lines: number): number {
  const fd = openSync(path, 'w')
  try {
    const header = readFileSync(join(fixtures, 'codex-rollout.jsonl'), 'utf8').split('\n')[0]
    writeSync(fd, `${header}\n`)
    const entry = `${JSON.stringify({ type: 'turn_context', payload: {} })}\n`
    for (let written = 0; written < lines; written += 10_000)
      writeSync(fd, entry.repeat(Math.min(10_000, lines - written)))
    return fstatSync(fd).size
  } finally {
    closeSync(fd)
  }
}

/** Makes `path` `bytes` long without writing them: a sparse tail of NUL bytes, no newline. */
function extendSparse(path: string, bytes: number): void {
  const fd = openSync(path, 'r+')
  try {
    ftruncateSync(fd, bytes)
  } finally {
    closeSync(fd)
  }
}

describe.skipIf(!procAvailable)('bridle import refuses what is not a bounded session file', () => {
  it.each([['/dev/zero'], ['/dev/urandom']])(
    '%s: refused as a device at once, memory flat',
    async (device) => {
      const run = await sampled(cliArgv({ home, project }, 'import', device))
      expectRefused(run, new RegExp(`${device} is not a regular file \\(it is a device\\)`))
    },
  )

  it('a session-named symlink to /dev/zero: the opened file is checked, not the name', async () => {
    const link = join(root, 'rollout.jsonl')
    symlinkSync('/dev/zero', link)
    const run = await sampled(cliArgv({ home, project }, 'import', link))
    expectRefused(run, /rollout\.jsonl is not a regular file \(it is a device\)/)
  })

  it.skipIf(!mkfifoAvailable)('a FIFO with no writer: refused as a pipe, no hang', async () => {
    const fifo = join(root, 'session.jsonl')
    execFileSync('mkfifo', [fifo])
    const run = await sampled(cliArgv({ home, project }, 'import', fifo), {}, 10_000)
    expectRefused(run, /session\.jsonl is not a regular file \(it is a pipe\)/)
  })

  it('a line past the line limit is refused naming its line, without reading it whole', async () => {
    const file = join(root, 'long.jsonl')
    // Line 1 the header, lines 2..12,344 entries; line 12,345 a sparse run of NULs past the limit.
    const size = codexFile(file, 12_343)
    extendSparse(file, size + IMPORT_LIMITS.maxLineBytes + 1)
    const run = await sampled(cliArgv({ home, project }, 'import', file))
    expectRefused(
      run,
      /line 12,345 of \S*long\.jsonl is longer than 64 MiB, the most an import reads in one line/,
    )
  })

  it('a file past the size limit is refused on fstat, before a byte is read', async () => {
    const file = join(root, 'huge.jsonl')
    const size = codexFile(file, 10)
    extendSparse(file, size + IMPORT_LIMITS.maxFileBytes)
    const run = await sampled(cliArgv({ home, project }, 'import', file))
    expectRefused(
      run,
      /huge\.jsonl holds 536,\d{3},\d{3} bytes, more than the 512 MiB an import reads at most/,
    )
  })

  it('a file past the record limit is refused naming the limit', async () => {
    const file = join(root, 'many.jsonl')
    codexFile(file, IMPORT_LIMITS.maxRecords) // with the header: one record too many
    const run = await sampled(cliArgv({ home, project }, 'import', file), {}, 60_000)
    // Reading a million records takes seconds (6 s on a busy 2-core machine): time is not the point.
    expectRefused(run, /many\.jsonl has more than 1,000,000 records \(line 1,000,001\)/, 55)
  }, 70_000)

  it('--scan passes over a FIFO and a device under a tool folder, and lists the real file', async () => {
    const fakeHome = join(root, 'home')
    const dir = join(fakeHome, '.codex', 'sessions', '2026', '12', '06')
    mkdirSync(dir, { recursive: true })
    copyFileSync(join(fixtures, 'codex-rollout.jsonl'), join(dir, 'rollout-real.jsonl'))
    if (mkfifoAvailable) execFileSync('mkfifo', [join(dir, 'rollout-fifo.jsonl')])
    symlinkSync('/dev/zero', join(dir, 'rollout-zero.jsonl'))
    const run = await sampled(cliArgv({ home }, 'import', '--scan', '--json'), { HOME: fakeHome })
    expect(run.killed).toBe(false)
    expect(run.status).toBe(0)
    expect(run.peakRssMb).toBeLessThan(MAX_RSS_MB)
    const paths = run.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { path: string }).path)
    expect(paths).toEqual([join(dir, 'rollout-real.jsonl')])
  })
})
