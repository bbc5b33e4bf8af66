/**
 * The `bridle` command as a user runs it: a child process against the scripted model server over
 * real HTTP. What is measured is CPU time (user + system, read from /proc when each request
 * arrives), because the machine is shared and wall time says more about the neighbours:
 * - CPU to the first model request: start-up, boot, the session, the first request derived and
 *   sent; for the bundled bin (`out/main/cli.js`, what `npx bridle` runs) and for the sources
 *   through tsx (`npm run bridle`), whose ratio says what the bundle saves. One unmeasured run
 *   first: the first start after a build fills the user's caches (compiled code, the sandbox
 *   probe), and every later start is what a user feels;
 * - CPU of `bridle --help`, which loads no command's code;
 * - CPU per step: a 100-step run (each step one `read` call), from the first request to the last.
 */
import { spawn } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ScriptEntry, ScriptedResponse } from '../fixtures/model-server/script.js'
import { figure, percentile } from './figures.js'
import type { Figure } from './figures.js'

const repoRoot = join(import.meta.dirname, '..', '..')
const BUNDLED = join(repoRoot, 'out/main/cli.js')
const TSX_LOADER = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href
const SOURCES = join(repoRoot, 'main/cli/index.ts')
const RUNS = 5
const STEPS = 100

/** The command's argv before `run …`: the bin as npx runs it, or the sources through tsx. */
const BINS = {
  bundled: [BUNDLED],
  sources: ['--import', TSX_LOADER, SOURCES],
} as const

/** Clock ticks per second, for /proc's utime and stime. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100

/** A process's CPU seconds so far (user + system), from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

interface Measured {
  /** CPU seconds of the child when each model request arrived, in order. */
  readonly atRequest: number[]
}

/**
 * Runs `bridle run` once: `steps` requests answered with a `read` call, then a text answer. The
 * CPU is read as each request arrives (the script's entries are functions of the request, called
 * on arrival), before the answer is sent.
 */
async function runOnce(bin: readonly string[], steps: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-cli-'))
  const project = join(dir, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'README.md'), '# Bench\n\nA small file to read.\n')
  const atRequest: number[] = []
  let pid = 0
  const note = (response: ScriptedResponse | string) => (): ScriptedResponse | string => {
    atRequest.push(cpuSeconds(pid))
    return response
  }
  // Two spellings of the call in turn: one call a hundred times in a row is a loop, which the
  // loop guard stops at the third.
  const read = (limit: number): ScriptedResponse => ({
    steps: [
      { toolCall: { name: 'read', args: JSON.stringify({ path: 'README.md', limit }) } },
      { finish: 'tool_calls' },
    ],
  })
  const script: ScriptEntry[] = [
    ...Array.from({ length: steps }, (_, i) => note(read(i % 2 === 0 ? 10 : 20))),
    note('Done.'),
  ]
  const server = await startModelServer({ script, title: 'Bench' })
  try {
    const child = spawn(
      process.execPath,
      [
        ...bin,
        'run',
        '--home',
        join(dir, 'home'),
        '--project',
        project,
        '--base-url',
        server.url,
        '--model',
        'scripted',
        '--approval',
        'full-auto',
        '--max-steps',
        String(steps + 1),
        'Read the README.',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    pid = child.pid ?? 0
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    if (code !== 0 || atRequest.length !== steps + 1) {
      throw new Error(
        `bridle run ended with ${code} after ${atRequest.length} of ${steps + 1} requests: ${stderr.slice(-400)}`,
      )
    }
    return { atRequest }
  } finally {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const median = (samples: readonly number[]) => percentile(samples, 50)

/**
 * CPU seconds of one `bridle --help` through the bundled bin, its whole life: what this process's
 * reaped children used (/proc/self/stat's cutime and cstime) grows by exactly that, as nothing
 * else is started meanwhile.
 */
async function helpCpu(): Promise<number> {
  const before = reapedChildrenCpu()
  const child = spawn(process.execPath, [BUNDLED, '--help'], { stdio: 'ignore' })
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  if (code !== 0) throw new Error(`bridle --help ended with ${code}`)
  return reapedChildrenCpu() - before
}

function reapedChildrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[13]) + Number(fields[14])) / TICKS
}

/**
 * CPU seconds to the first request of `runs` runs of the bundled bin, after an unmeasured one
 * (for quick checks).
 */
export async function firstRequestCpu(runs: number, bin: 'bundled' | 'sources' = 'bundled') {
  await runOnce(BINS[bin], 0)
  const samples: number[] = []
  for (let run = 0; run < runs; run++)
    samples.push((await runOnce(BINS[bin], 0)).atRequest[0] ?? Number.NaN)
  return samples
}

/** CPU seconds of `runs` runs of `bridle --help` (bundled bin). */
export async function helpCpuSamples(runs: number): Promise<number[]> {
  const samples: number[] = []
  for (let run = 0; run < runs; run++) samples.push(await helpCpu())
  return samples
}

export async function benchCli(): Promise<Figure[]> {
  if (!existsSync(BUNDLED)) {
    console.log('skipping the CLI benchmarks: out/main/cli.js is not built (npm run build)')
    return []
  }
  await runOnce(BINS.bundled, 0)
  await runOnce(BINS.sources, 0)
  const firstBundled: number[] = []
  const firstSources: number[] = []
  const help = await helpCpuSamples(RUNS)
  for (let run = 0; run < RUNS; run++) {
    firstBundled.push((await runOnce(BINS.bundled, 0)).atRequest[0] ?? Number.NaN)
    firstSources.push((await runOnce(BINS.sources, 0)).atRequest[0] ?? Number.NaN)
  }
  const perStep: number[] = []
  for (let run = 0; run < 3; run++) {
    const { atRequest } = await runOnce(BINS.bundled, STEPS)
    perStep.push((((atRequest.at(-1) ?? 0) - (atRequest[0] ?? 0)) / STEPS) * 1000)
  }
  const bundled = median(firstBundled)
  const sources = median(firstSources)
  const step = median(perStep)
  const helpMedian = median(help)
  return [
    figure(
      'cli: CPU to the first model request (bundled bin)',
      bundled * 1000,
      'ms',
      { text: '<= 690 ms (half of the 1.38 s measured before the bin)', isMet: bundled <= 0.69 },
      { description: `median of ${RUNS} runs of \`bridle run\`; the sources through tsx below` },
    ),
    figure('cli: CPU to the first model request (sources via tsx)', sources * 1000, 'ms'),
    figure(
      'cli: CPU of bridle --help (bundled bin)',
      helpMedian * 1000,
      'ms',
      { text: '<= 250 ms (it loads no command: about Node itself)', isMet: helpMedian <= 0.25 },
      { description: `median of ${RUNS} runs, the whole process` },
    ),
    figure('cli: bundled / sources, CPU to the first request', bundled / sources, 'x'),
    figure(
      'cli: CPU per step (100 read steps, bundled bin)',
      step,
      'ms',
      { text: "<= 9 ms (pi's, measured side by side)", isMet: step <= 9 },
      { description: 'from the first request to the last of a 101-request run, median of 3' },
    ),
  ]
}
