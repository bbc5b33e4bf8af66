/**
 * Output that could swamp the model or the log, through the real CLI: binary command output
 * (megabytes of random bytes, of zeros) reaches the model as a short summary and the log as a
 * small row, with the bytes kept in a `.bin` spill; and a reply that gives two calls the same id
 * runs both, each with its own result, instead of crashing or dropping one.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  chatMessages,
  disposeWorld,
  eventsOf,
  makeWorld,
  runBridle,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  toolCalls,
  turnEnds,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

/** The stored size (its data column) of every tool/result row of the newest session. */
function resultRowSizes(w: World): number[] {
  const store = openStore(databasePath(w.data))
  try {
    const [session] = store.listSessions({ limit: 1 }).items
    if (!session) return []
    return store
      .readEvents(session.id)
      .filter((row) => row.type === 'tool/result')
      .map((row) => Buffer.byteLength(row.data))
  } finally {
    store.close()
  }
}

/** Every file under `dir` whose name ends in `.bin`, with its size. */
function binSpills(dir: string): { path: string; size: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.bin'))
    .map((entry) => {
      const path = join(entry.parentPath, entry.name)
      return { path, size: statSync(path).size }
    })
}

describe('binary command output', () => {
  it('5 MB of random bytes and 1 MB of zeros: a short summary for the model, small log rows, the bytes in .bin spills', async () => {
    world = makeWorld('output-binary')
    const before = snapshotSentinels(world)
    server = await startModelServer({
      script: [
        toolCalls(
          bash('random', 'head -c 5000000 /dev/urandom'),
          bash('zeros', 'head -c 1000000 /dev/zero'),
        ),
        'That was binary.',
      ],
    })
    const run = await runBridle(world, server, 'dump some bytes', { approval: 'full-auto' })
    expect(run.status, run.stderr).toBe(0)
    const events = sessionEvents(world)
    expect(turnEnds(events)).toEqual(['completed'])

    const next = chatMessages(server, 1)
    for (const id of ['random', 'zeros']) {
      const outcome = callOutcome(events, id)
      expect(outcome.code, JSON.stringify(outcome).slice(0, 2000)).toBe('ok')
      const message = next.find((m) => m.tool_call_id === id)
      const content = message?.content ?? ''
      expect(content.length, content.slice(0, 500)).toBeGreaterThan(0)
      // What the model gets for the call, as JSON on the wire: a summary, not the bytes.
      expect(Buffer.byteLength(JSON.stringify(message)), content.slice(0, 500)).toBeLessThan(2048)
      const ref = outcome.result?.outputRef ?? ''
      expect(ref, JSON.stringify(outcome.result)).toMatch(/\.bin$/)
      // The summary names the hash of the bytes kept, and the spill holds exactly those bytes.
      const spill = binSpills(world.data).find((s) => s.path.endsWith(ref))
      expect(spill, ref).toBeDefined()
      const sha = createHash('sha256')
        .update(readFileSync(spill?.path ?? ''))
        .digest('hex')
      expect(content).toContain(sha)
    }
    // The request as a whole stays small too (no stray copy of the bytes elsewhere in it).
    const secondRequest = server.requests.filter((r) => r.path.endsWith('/chat/completions'))[1]
    expect(secondRequest?.rawBody.length).toBeLessThan(64 * 1024)
    for (const size of resultRowSizes(world)) expect(size).toBeLessThan(2048)
    // The exact bytes are kept, once each, in the data folder (not in the project).
    const spills = binSpills(world.data)
      .map((s) => s.size)
      .sort((a, b) => a - b)
    expect(spills).toEqual([1_000_000, 5_000_000])
    expect(binSpills(world.project)).toEqual([])
    expect(existsSync(databasePath(world.data))).toBe(true)
    expect(statSync(databasePath(world.data)).size).toBeLessThan(1_000_000)
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })
})

describe('duplicate tool call ids', () => {
  it('two calls with the id call_0 in one reply: both run, each has its result, a DUPLICATE_CALL_ID notice, the turn completes', async () => {
    world = makeWorld('output-duplicate')
    server = await startModelServer({
      script: [toolCalls(bash('call_0', 'echo first'), bash('call_0', 'echo second')), 'Both ran.'],
    })
    const run = await runBridle(world, server, 'echo twice', { approval: 'full-auto' })
    expect(run.status, run.stderr).toBe(0)
    const events = sessionEvents(world)
    expect(turnEnds(events)).toEqual(['completed'])

    const calls = eventsOf(events, 'tool/call').map((e) => e.data.callId)
    expect(calls).toHaveLength(2)
    expect(new Set(calls).size).toBe(2)
    const results = eventsOf(events, 'tool/result').map((e) => e.data)
    expect(results.map((r) => r.callId).sort()).toEqual([...calls].sort())
    expect(results.map((r) => (r.ok ? r.output : r.error.code))).toEqual(['first\n', 'second\n'])
    const notices = eventsOf(events, 'notice').filter((e) => e.data.code === 'DUPLICATE_CALL_ID')
    expect(notices).toHaveLength(1)

    // The next request pairs each tool message with a call of the assistant message, one to one.
    const next = chatMessages(server, 1) as {
      role: string
      tool_call_id?: string
      tool_calls?: { id: string }[]
    }[]
    const assistantIds = next.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? [])
    const toolIds = next.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : []))
    expect(new Set(assistantIds).size).toBe(2)
    expect(toolIds).toEqual(assistantIds)
  })
})
