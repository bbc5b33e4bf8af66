/**
 * What code mode costs: one `run_code` whose program makes 10 inner `read` calls, against the
 * same 10 reads as direct tool calls, both through the real pipeline (full-auto, logged to SQLite)
 * on real files in a temp project, driven by the loop with an instant model. The figure is the
 * tool phase of a step: from the model's answer to the next request (logging the calls, running
 * them, logging the results). Plus the engine's start: a new worker thread and QuickJS, paid
 * once per worker (a worker is kept for the next program).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { Agent } from '../../main/core/loop/agent.js'
import { Session } from '../../main/core/log/index.js'
import type { ModelAdapter, StreamPart } from '../../main/core/models/types.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { readTool } from '../../main/core/tools/builtin/read.js'
import { DEFAULT_CODE_MEMORY_MB, runCodeTool } from '../../main/core/tools/code/run-code.js'
import { CODE_WORKER_FILE, runProgram } from '../../main/core/tools/code/sandbox.js'
import type { FromWorker, ToWorker } from '../../main/core/tools/code/messages.js'
import { fullAutoTools } from '../fixtures/pipeline.js'
import { figure, percentile, printFigures, time } from './figures.js'
import type { Figure } from './figures.js'

const FILES = 10
const ROUNDS = 30
const WARMUP = 3
const limits = {
  timeoutMs: 30_000,
  memoryBytes: DEFAULT_CODE_MEMORY_MB * 1024 * 1024,
  maxCalls: 50,
}
const names = Array.from({ length: FILES }, (_, i) => `src/file-${i}.ts`)
const PROGRAM = `const out = []
for (const path of ${JSON.stringify(names)}) out.push(await tools.read({ path }))
return out.join('\\n').length`

const toolCalls = (calls: { id: string; name: string; args: string }[]): StreamPart[] => [
  ...calls.flatMap((call, index): StreamPart[] => [
    { type: 'tool-call-start', index, callId: call.id, name: call.name },
    { type: 'tool-call-delta', index, argsDelta: call.args },
  ]),
  { type: 'finish', reason: 'tool-calls' },
]

export async function benchCodeMode(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-code-'))
  const project = join(dir, 'project')
  mkdirSync(join(project, 'src'), { recursive: true })
  for (const [i, name] of names.entries())
    writeFileSync(
      join(project, name),
      Array.from({ length: 60 }, (_, line) => `export const v${i}_${line} = ${line}\n`).join(''),
    )
  const store = openStore(databasePath(dir))
  try {
    const figures = await engineStart()

    // Turns alternate: even ones answer with 10 direct reads, odd ones with one run_code.
    const phases: { direct: number[]; code: number[] } = { direct: [], code: [] }
    let answeredAt = 0
    let request = 0
    const adapter: ModelAdapter = {
      provider: 'bench',
      async *stream() {
        const index = request++
        const turn = Math.floor(index / 2)
        if (index % 2 === 1) {
          const tookMs = performance.now() - answeredAt
          if (turn >= 2 * WARMUP) (turn % 2 === 0 ? phases.direct : phases.code).push(tookMs)
          await Promise.resolve()
          yield* [
            { type: 'text', text: 'done' },
            { type: 'finish', reason: 'stop' },
          ] satisfies StreamPart[]
          return
        }
        await Promise.resolve()
        const parts = toolCalls(
          turn % 2 === 0
            ? names.map((path, n) => ({
                id: `t${turn}r${n}`,
                name: 'read',
                args: JSON.stringify({ path }),
              }))
            : [{ id: `t${turn}p`, name: 'run_code', args: JSON.stringify({ code: PROGRAM }) }],
        )
        const finish = parts.pop() as StreamPart
        yield* parts
        // The reply is complete when the loop takes its finish: the tool phase starts here.
        answeredAt = performance.now()
        yield finish
      },
    }
    const session = Session.create(store, { projectDir: project })
    const agent = new Agent({
      session,
      adapter,
      model: 'instant',
      tools: fullAutoTools([readTool(), runCodeTool()], { projectDir: project, homeDir: dir }),
      prompt: () => [{ name: 'identity', text: 'bench' }],
    })
    for (let turn = 0; turn < 2 * (ROUNDS + WARMUP); turn++) {
      agent.send({ requestId: `r${turn}`, text: 'go' })
      await agent.runUntilIdle()
    }
    const failed = session.slice().filter((e) => e.type === 'tool/result' && !e.data.ok)
    if (failed.length > 0) throw new Error(`${failed.length} calls failed in the code-mode bench`)
    session.close()

    const direct = percentile(phases.direct, 50)
    const code = percentile(phases.code, 50)
    figures.push(
      figure(`code mode: ${FILES} direct reads, tool phase p50`, direct, 'ms', undefined, {
        description: `${FILES} read calls in one model reply, through the pipeline (run together: reads are concurrency-safe)`,
      }),
      figure(`code mode: one run_code of ${FILES} reads, tool phase p50`, code, 'ms', undefined, {
        description: `one run_code whose program reads the same ${FILES} files, each read a linked call through the pipeline (one at a time), the program in a warm worker`,
      }),
      figure('code mode: run_code / direct reads', code / direct, 'x', undefined, {
        description: 'the overhead of doing the same reads from a program',
      }),
    )
    return figures
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The engine's start: a first program against the next ones, and the built worker's start. */
async function engineStart(): Promise<Figure[]> {
  const host = { toolNames: [], call: () => Promise.resolve({ ok: true as const, output: '' }) }
  const never = new AbortController().signal
  const cold = await time(() => runProgram('return 1', host, limits, never))
  const warm: number[] = []
  for (let i = 0; i < 20; i++)
    warm.push(await time(() => runProgram('return 1', host, limits, never)))
  const warmMs = percentile(warm, 50)
  const figures = [
    figure('code mode: a program in a warm worker, p50', warmMs, 'ms', undefined, {
      description: '`return 1` in a kept worker: a new QuickJS runtime, the messages, the end',
    }),
    figure('code mode: engine start from sources, once', cold - warmMs, 'ms', undefined, {
      description:
        'the first program against the next: a new worker thread with tsx loading worker.ts, and QuickJS (bench and tests run from sources)',
    }),
  ]
  const built = join(import.meta.dirname, '..', '..', 'out', 'main', CODE_WORKER_FILE)
  if (!existsSync(built)) {
    console.log(`skipping the built worker's start: ${built} is missing (npm run build)`)
    return figures
  }
  const starts: number[] = []
  for (let i = 0; i < 10; i++) starts.push(await time(() => firstProgram(built)))
  figures.push(
    figure(
      'code mode: engine start, built worker, p50',
      percentile(starts, 50) - warmMs,
      'ms',
      undefined,
      {
        description: `what the app pays once per worker: ${CODE_WORKER_FILE} in a new thread, QuickJS loaded, less a warm program`,
      },
    ),
  )
  return figures
}

/** Starts the built worker, runs `return 1` in it, and ends it. */
function firstProgram(file: string): Promise<void> {
  // No execArgv: the bench's own (tsx's loader) is not what the app's worker starts with.
  const worker = new Worker(file, { workerData: { heapBytes: limits.memoryBytes }, execArgv: [] })
  return new Promise<void>((resolve, reject) => {
    worker.once('error', reject)
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'end') resolve()
    })
    const run: ToWorker = { type: 'run', code: 'return 1', toolNames: [], limits }
    worker.postMessage(run)
  }).finally(() => void worker.terminate())
}

// Alone: `npx tsx test/bench/code-mode-bench.ts` (after `npm run build` for the built worker).
if (import.meta.url === `file://${process.argv[1] ?? ''}`) printFigures(await benchCodeMode())
