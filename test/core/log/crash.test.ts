/**
 * SIGKILL crash test (docs/ARCHITECTURE.md 3.7): a child process writes a
 * scripted session (test/fixtures/log/crash-writer.ts) and is killed at a random point. The
 * parent then reopens the database like the next launch would and checks that nothing durable
 * was lost or torn, and that repair appends exactly what the raw log calls for: an expectation
 * computed here from the raw events, independently of the Lifecycle class.
 *
 * Reproduce a run with BRIDLE_CRASH_SEED=<the printed seed>; BRIDLE_CRASH_KILLS sets the count.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { Session, TOOL_NOT_STARTED, TOOL_OUTCOME_UNKNOWN } from '../../../main/core/log/index.js'
import type { AssistantBlock, LogEvent } from '../../../main/core/log/index.js'
import { rowToEvent } from '../../../main/core/log/rows.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import { prng } from '../../fixtures/prng.js'

const repoRoot = join(import.meta.dirname, '..', '..', '..')
/**
 * tsx as a loader in the child itself: the tsx CLI would run the script in a grandchild, which a
 * SIGKILL to the CLI leaves running.
 */
const tsxLoader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href
const writer = join(repoRoot, 'test/fixtures/log/crash-writer.ts')

const KILLS = Number(process.env['BRIDLE_CRASH_KILLS'] ?? 30)
/** Two children at a time: the machine has two cores and a child is mostly tsx start-up. */
const PARALLEL = 2
/** A child that is never killed finishes well within this; it bounds a hung child. */
const CHILD_TIMEOUT_MS = 20_000

/** When to kill: after the n-th `flushed` line plus a delay, or a delay after the session exists. */
type KillPlan =
  | { readonly kind: 'after-flush'; readonly flushes: number; readonly delayMs: number }
  | { readonly kind: 'after-start'; readonly delayMs: number }
  /** The child kills itself between its first tool call's grouped commit and the tool's body. */
  | { readonly kind: 'at-tool-start' }

interface ChildRun {
  readonly sessionId: string
  /** The largest `flushed N`: at least N events are durable. */
  readonly flushed: number
  readonly isDone: boolean
  readonly stderr: string
}

function runAndKill(dbPath: string, seed: number, plan: KillPlan): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const mode = plan.kind === 'at-tool-start' ? ['kill-at-tool-start'] : []
    const args = ['--import', tsxLoader, writer, dbPath, String(seed), ...mode]
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let sessionId: string | undefined
    let flushed = 0
    let flushLines = 0
    let isDone = false
    let isArmed = false
    let pending = ''
    let stderr = ''
    const kill = (delayMs: number) => {
      if (isArmed) return
      isArmed = true
      setTimeout(() => child.kill('SIGKILL'), delayMs)
    }
    let isTimedOut = false
    const timer = setTimeout(() => {
      isTimedOut = true
      child.kill('SIGKILL')
    }, CHILD_TIMEOUT_MS)
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      pending += text
      let newline: number
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline)
        pending = pending.slice(newline + 1)
        const [word, value] = line.split(' ')
        if (word === 'session' && value !== undefined) {
          sessionId = value
          if (plan.kind === 'after-start') kill(plan.delayMs)
        } else if (word === 'flushed') {
          flushed = Math.max(flushed, Number(value))
          if (plan.kind === 'after-flush' && ++flushLines === plan.flushes) kill(plan.delayMs)
        } else if (word === 'done') {
          isDone = true
        }
      }
    })
    child.on('error', reject)
    // 'close', not 'exit': every line the child wrote before it died has been read by then,
    // and the dead child has been reaped, so its session lock is visibly abandoned.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (isTimedOut) {
        reject(new Error(`the writer hung for ${CHILD_TIMEOUT_MS} ms: ${stderr}`))
      } else if (sessionId === undefined) {
        reject(
          new Error(`the writer never created its session (code ${code}, ${signal}): ${stderr}`),
        )
      } else if (!isDone && signal !== 'SIGKILL') {
        reject(new Error(`the writer failed (code ${code}, ${signal}): ${stderr}`))
      } else {
        resolve({ sessionId, flushed, isDone, stderr })
      }
    })
  })
}

interface Expected {
  readonly type: LogEvent['type']
  readonly turn: number
  readonly step: number
  readonly data: Record<string, unknown>
}

/**
 * What repair must append to `events`, derived from docs/ARCHITECTURE.md 3.7 alone: the text and
 * reasoning streamed into an unfinished reply as an interrupted message (partial tool calls
 * dropped), TOOL_NOT_STARTED for proposed calls never started, TOOL_OUTCOME_UNKNOWN for started
 * calls without a result, then step/end and turn/end `interrupted-by-crash`, then exactly one
 * `recovery/repaired` listing them. Nothing when nothing is open.
 */
function expectedRepair(events: readonly LogEvent[]): Expected[] {
  let turn = 0
  let step = 0
  let isTurnOpen = false
  let isStepOpen = false
  let isStreaming = false
  let stream: { type: 'text' | 'reasoning'; text: string }[] = []
  let calls: { callId: string; isStarted: boolean; isDone: boolean }[] = []
  for (const event of events) {
    switch (event.type) {
      case 'turn/start':
        isTurnOpen = true
        turn = event.turn
        break
      case 'turn/end':
        isTurnOpen = false
        break
      case 'step/start':
        isStepOpen = true
        step = event.step
        isStreaming = false
        stream = []
        calls = []
        break
      case 'step/end':
        isStepOpen = false
        break
      case 'request/start':
        isStreaming = true
        stream = []
        break
      case 'assistant/chunk':
        for (const delta of event.data.deltas) {
          if (delta.kind === 'tool-call') continue
          if (delta.kind === 'text-is-reasoning') {
            stream = [{ type: 'reasoning', text: stream.map((piece) => piece.text).join('') }]
            continue
          }
          const last = stream.at(-1)
          if (last?.type === delta.kind) last.text += delta.text
          else stream.push({ type: delta.kind, text: delta.text })
        }
        break
      case 'assistant/message':
        isStreaming = false
        stream = []
        calls = event.data.blocks.flatMap((block) =>
          block.type === 'tool-call'
            ? [{ callId: block.callId, isStarted: false, isDone: false }]
            : [],
        )
        break
      case 'tool/call':
        for (const call of calls) if (call.callId === event.data.callId) call.isStarted = true
        break
      case 'tool/result':
        for (const call of calls) if (call.callId === event.data.callId) call.isDone = true
        break
      case 'session/created':
      case 'session/title':
      case 'session/model':
      case 'session/code-mode':
      case 'inbox/queued':
      case 'inbox/claimed':
      case 'user/message':
      case 'request/header':
      case 'compaction/checkpoint':
      case 'compaction/undone':
      case 'compaction/pruned':
      case 'approval/requested':
      case 'approval/decided':
      case 'process/started':
      case 'subagent/started':
      case 'session/spawned':
      case 'session/imported':
      case 'workspace/diff':
      case 'workspace/restored':
      case 'workspace/restore-undone':
      case 'deliverable/present':
      case 'recovery/repaired':
      case 'error':
      case 'notice':
        break
    }
  }
  const out: Expected[] = []
  if (isStepOpen && isStreaming && stream.length > 0) {
    const blocks: AssistantBlock[] = stream.map((block) => ({ ...block }))
    out.push({
      type: 'assistant/message',
      turn,
      step,
      data: { blocks, finish: 'other', interrupted: true },
    })
  }
  if (isStepOpen) {
    for (const call of calls.filter((c) => !c.isDone)) {
      const code = call.isStarted ? TOOL_OUTCOME_UNKNOWN : TOOL_NOT_STARTED
      out.push({
        type: 'tool/result',
        turn,
        step,
        data: { callId: call.callId, ok: false, error: { code } },
      })
    }
    out.push({ type: 'step/end', turn, step, data: { reason: 'interrupted-by-crash' } })
  }
  if (isTurnOpen)
    out.push({ type: 'turn/end', turn, step: 0, data: { reason: 'interrupted-by-crash' } })
  if (out.length > 0) {
    const items = out.map((_, i) => ({ seq: events.length + i }))
    out.push({ type: 'recovery/repaired', turn: 0, step: 0, data: { cause: 'crash', items } })
  }
  return out
}

/** The state the raw log was left in, for the summary line. */
function stateOf(
  run: ChildRun,
  events: readonly LogEvent[],
  expected: readonly Expected[],
): string {
  if (run.isDone) return 'finished'
  if (expected.length === 0) return 'between-turns'
  const types = new Set(expected.map((e) => e.type))
  const results = expected
    .filter((e) => e.type === 'tool/result')
    .map((e) => (e.data['error'] as { code: string }).code)
  if (types.has('assistant/message')) return 'mid-stream'
  if (results.includes(TOOL_OUTCOME_UNKNOWN)) return 'tool-running'
  if (results.includes(TOOL_NOT_STARTED)) return 'calls-proposed'
  if (types.has('step/end'))
    return events.at(-1)?.type === 'request/start' ? 'request-sent' : 'in-step'
  return 'between-steps'
}

interface Verdict {
  readonly state: string
  readonly length: number
  readonly flushed: number
}

/** Reopens the killed child's database and checks every invariant; returns what it found. */
function verify(dbPath: string, run: ChildRun): Verdict {
  const store = openStore(dbPath)
  let raw: LogEvent[]
  let expected: Expected[]
  try {
    // Every stored row parses and the seqs are contiguous from 0: nothing torn, nothing lost.
    const rows = store.readEvents(run.sessionId)
    rows.forEach((row, seq) => rowToEvent(row, seq))
    expect(rows.length).toBeGreaterThanOrEqual(run.flushed)

    const reader = Session.open(store, run.sessionId, { mode: 'read' })
    raw = reader.slice()
    reader.close()
    expect(raw.length).toBe(rows.length)
    expected = expectedRepair(raw)

    const repaired = Session.open(store, run.sessionId, { mode: 'write' })
    const added = repaired.slice(raw.length)
    repaired.close()
    expect(
      added.map((event) => ({ type: event.type, turn: event.turn, step: event.step })),
    ).toEqual(expected.map(({ type, turn, step }) => ({ type, turn, step })))
    added.forEach((event, i) => {
      expect(event.seq).toBe(raw.length + i)
      expect(event.data).toMatchObject(expected[i]?.data ?? {})
    })
    if (run.isDone) expect(added).toEqual([])

    // Repair is idempotent: a second open (another crash during the next launch) adds nothing.
    const again = Session.open(store, run.sessionId, { mode: 'write' })
    expect(again.length).toBe(raw.length + added.length)
    again.close()
  } finally {
    store.close()
  }
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
  } finally {
    db.close()
  }
  return { state: stateOf(run, raw, expected), length: raw.length, flushed: run.flushed }
}

describe('crash recovery under SIGKILL', () => {
  it(`repairs ${KILLS} sessions killed at random points, losing nothing that was flushed`, async () => {
    const seed = Number(process.env['BRIDLE_CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31))
    console.log(`crash test seed: ${seed} (BRIDLE_CRASH_SEED=${seed} replays the plan)`)
    const random = prng(seed)
    const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
    const plans = Array.from({ length: KILLS }, (_, i) => ({
      index: i,
      childSeed: int(1, 2 ** 31 - 1),
      plan:
        random() < 0.75
          ? ({ kind: 'after-flush', flushes: int(1, 90), delayMs: int(0, 3) } as const)
          : ({ kind: 'after-start', delayMs: int(0, 400) } as const),
    }))

    const verdicts: (Verdict & { index: number })[] = []
    const queue = [...plans]
    const worker = async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const dir = mkdtempSync(join(tmpdir(), 'bridle-crash-'))
        try {
          const dbPath = databasePath(dir)
          const run = await runAndKill(dbPath, item.childSeed, item.plan)
          try {
            verdicts.push({ index: item.index, ...verify(dbPath, run) })
          } catch (error) {
            const where = `kill ${item.index} (seed ${seed}, child seed ${item.childSeed}, ${JSON.stringify(item.plan)})`
            throw new Error(`${where}: ${error instanceof Error ? error.message : String(error)}`, {
              cause: error,
            })
          }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    }
    await Promise.all(Array.from({ length: PARALLEL }, worker))

    const states = new Map<string, number>()
    for (const verdict of verdicts) states.set(verdict.state, (states.get(verdict.state) ?? 0) + 1)
    console.log(`crash states: ${JSON.stringify(Object.fromEntries(states))}`)
    expect(verdicts).toHaveLength(KILLS)
    // The plan must actually reach the states repair exists for, or the test proves little.
    if (KILLS >= 20) expect(states.size).toBeGreaterThanOrEqual(3)
  }, 120_000)

  it('keeps the grouped commit of a tool call killed before its body started', async () => {
    for (const childSeed of [1, 2, 3]) {
      const dir = mkdtempSync(join(tmpdir(), 'bridle-crash-'))
      try {
        const dbPath = databasePath(dir)
        const run = await runAndKill(dbPath, childSeed, { kind: 'at-tool-start' })
        expect(run.isDone).toBe(false)
        expect(verify(dbPath, run).state).toBe('tool-running')
        const store = openStore(dbPath)
        try {
          const events = store.readEvents(run.sessionId).map((row, seq) => rowToEvent(row, seq))
          const call = events.findIndex((event) => event.type === 'tool/call')
          // The reply and the request before it were committed with the call, the call is on
          // disk, and repair could not claim it never started.
          expect(events[call - 1]?.type).toBe('assistant/message')
          expect(events.slice(0, call).some((event) => event.type === 'request/start')).toBe(true)
          expect(events[call + 1]).toMatchObject({
            type: 'tool/result',
            data: { ok: false, error: { code: TOOL_OUTCOME_UNKNOWN } },
          })
        } finally {
          store.close()
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }, 60_000)
})
