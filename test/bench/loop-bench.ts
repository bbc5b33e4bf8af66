import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { Agent } from '../../main/core/loop/agent.js'
import { defineTool } from '../../main/core/tools/types.js'
import { fullAutoTools } from '../fixtures/pipeline.js'
import { Session } from '../../main/core/log/index.js'
import type { ModelAdapter, StreamPart } from '../../main/core/models/types.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import type { SqliteStore } from '../../main/core/store/index.js'
import { figure, percentile } from './figures.js'
import type { Figure } from './figures.js'

/**
 * A model with no latency, in process: each request answers at once from a script, so what is
 * measured is the harness (log, derivation, tools, flushes), not a network or a model.
 */
function instantModel(script: (requestIndex: number) => StreamPart[]): ModelAdapter {
  let index = 0
  return {
    provider: 'bench',
    async *stream() {
      await Promise.resolve()
      yield* script(index++)
    },
  }
}

/**
 * The database's size in use, as pages: what the log and its index hold, WAL included, free
 * pages left out. Searching first makes the background index batch catch up.
 */
function storedBytes(store: SqliteStore): number {
  store.search('catch up', { limit: 1 })
  const db = new Database(store.path, { readonly: true })
  try {
    const pages =
      (db.pragma('page_count', { simple: true }) as number) -
      (db.pragma('freelist_count', { simple: true }) as number)
    return pages * (db.pragma('page_size', { simple: true }) as number)
  } finally {
    db.close()
  }
}

/** The loop's figures: overhead per step, and streaming throughput with chunks logged. */
export async function benchLoop(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-loop-'))
  const store = openStore(databasePath(dir))
  const figures: Figure[] = []
  try {
    // 100 steps: each answers with one tool call, the last with text.
    const steps = 100
    const stepTimes: number[] = []
    let last = performance.now()
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      kind: 'read',
      schema: z.object({ n: z.number() }),
      run: ({ n }) => {
        const now = performance.now()
        stepTimes.push(now - last)
        last = now
        return Promise.resolve({ output: String(n) })
      },
    })
    const session = Session.create(store, { projectDir: dir })
    const agent = new Agent({
      session,
      adapter: instantModel((i) =>
        i < steps - 1
          ? [
              { type: 'tool-call-start', index: 0, callId: `c${i}`, name: 'echo' },
              { type: 'tool-call-delta', index: 0, argsDelta: `{"n":${i}}` },
              { type: 'finish', reason: 'tool-calls' },
            ]
          : [
              { type: 'text', text: 'done' },
              { type: 'finish', reason: 'stop' },
            ],
      ),
      model: 'instant',
      tools: fullAutoTools([echo], { projectDir: dir, homeDir: dir }),
      prompt: () => [{ name: 'identity', text: 'bench' }],
      limits: { maxSteps: steps + 1 },
    })
    const before = store.counters()
    const bytesBefore = storedBytes(store)
    agent.send({ requestId: 'r1', text: 'go' })
    await agent.runUntilIdle()
    const after = store.counters()
    const bytesPerStep = (storedBytes(store) - bytesBefore) / steps
    const median = percentile(stepTimes.slice(5), 50)
    figures.push(
      figure(
        'loop overhead per step (instant model, one tool call, durable flushes), p50',
        median,
        'ms',
        {
          text: '< 5 ms',
          isMet: median < 5,
        },
      ),
    )
    const fsyncsPerStep = (after.syncedCommits - before.syncedCommits) / steps
    figures.push(
      figure('fsyncs per step (store counters, 100 one-call steps)', fsyncsPerStep, 'fsyncs', {
        text: '<= 1 (issue 21: one fsync where there were 2-3)',
        isMet: fsyncsPerStep <= 1,
      }),
    )
    figures.push(
      figure(
        '  commits per step, fsync-free index batches included',
        (after.commits - before.commits) / steps,
        'commits',
      ),
    )
    figures.push(
      figure('bytes stored per step (database pages, search index included)', bytesPerStep, 'B', {
        text: '<= 2,500 B (issue 21)',
        isMet: bytesPerStep <= 2500,
      }),
    )
    session.close()

    // Streaming: 20,000 one-token text parts through the loop, logged as batched chunks.
    const tokens = 20_000
    const streaming = Session.create(store, { projectDir: dir })
    const streamer = new Agent({
      session: streaming,
      adapter: instantModel(() => [
        ...Array.from({ length: tokens }, (_, i): StreamPart => ({
          type: 'text',
          text: `t${i % 10} `,
        })),
        { type: 'finish', reason: 'stop' },
      ]),
      model: 'instant',
      tools: fullAutoTools([], { projectDir: dir, homeDir: dir }),
      prompt: () => [{ name: 'identity', text: 'bench' }],
    })
    streamer.send({ requestId: 'r1', text: 'stream' })
    const started = performance.now()
    await streamer.runUntilIdle()
    const perSecond = tokens / ((performance.now() - started) / 1000)
    figures.push(
      figure('streaming through loop + log (chunks logged)', perSecond, 'tokens/s', {
        text: '>= 5,000 tokens/s',
        isMet: perSecond >= 5000,
      }),
    )
    streaming.close()
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return figures
}
