import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import type { ScriptedResponse } from '../fixtures/model-server/script.js'
import { rowToEvent } from '../../main/core/log/rows.js'
import type { LogEvent } from '../../main/core/log/index.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { cliArgv, runCli, spawnCli, waitForJsonEvent } from '../fixtures/cli.js'
import { waitFor } from '../fixtures/host-state.js'

// Subagents through the real CLI, real child sessions in a real SQLite file, and the scripted
// model server answering parent and children by what each request holds.

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-subagents-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

type Message = { role: string; content: string | null; tool_call_id?: string }
type Body = { messages: Message[]; tools?: { function: { name: string } }[] }

const task = (id: string, description: string, prompt: string, extra: object = {}) => ({
  toolCall: { id, name: 'task', args: JSON.stringify({ description, prompt, ...extra }) },
})

/** The user's words in a request (the turn context left out). */
const asked = (body: Body): string =>
  body.messages
    .filter((m) => m.role === 'user' && typeof m.content === 'string')
    .map((m) => m.content as string)
    .join('\n')

/** The latest input in a request (not the turn's context, which Bridle adds). */
const latest = (body: Body): string =>
  body.messages
    .filter(
      (m) =>
        m.role === 'user' &&
        typeof m.content === 'string' &&
        !m.content.startsWith('Context at the start'),
    )
    .at(-1)?.content ?? ''

/**
 * A model that answers by what it is asked: the parent (`go`) calls `task` as `plan` says, then
 * sums up its tool results; a child answers by `children[its prompt]`.
 */
function model(
  plan: ScriptedResponse,
  children: Record<string, (body: Body) => ScriptedResponse | string>,
) {
  return (request: unknown): ScriptedResponse | string => {
    const body = request as Body
    const words = latest(body)
    for (const [prompt, answer] of Object.entries(children))
      if (words.includes(prompt)) return answer(body)
    const results = body.messages.filter((m) => m.role === 'tool')
    if (results.length === 0) return plan
    return `Parent heard: ${results.map((m) => m.content).join(' | ')}`
  }
}

async function serve(entry: (request: unknown) => ScriptedResponse | string) {
  server = await startModelServer({ script: Array.from({ length: 12 }, () => entry) })
  return server
}

const run = (...rest: string[]) =>
  cliArgv(
    { home, project },
    'run',
    '--json',
    '--base-url',
    (server as ModelServer).url,
    '--model',
    'scripted',
    ...rest,
  )

function logOf(sessionId: string): LogEvent[] {
  const store = openStore(databasePath(home))
  try {
    return store.readEvents(sessionId).map((row) => rowToEvent(row, row.seq))
  } finally {
    store.close()
  }
}

function sessionRows() {
  const store = openStore(databasePath(home))
  try {
    return store.listTree()
  } finally {
    store.close()
  }
}

const bodies = () => chatRequests(server as ModelServer).map((r) => r.body as Body)

describe('bridle run: the task tool', () => {
  it("starts a child session with its lineage; the child's answer is the parent's result and reaches its next request", async () => {
    writeFileSync(join(project, 'notes.txt'), 'the secret word is heron\n')
    await serve(
      model(
        {
          steps: [
            task('t1', 'find the word', 'Read notes.txt and say the word'),
            { finish: 'tool_calls' },
          ],
        },
        {
          'Read notes.txt': (body) =>
            body.messages.some((m) => m.role === 'tool')
              ? 'The word is heron.'
              : {
                  steps: [
                    { toolCall: { id: 'r1', name: 'read', args: '{"path":"notes.txt"}' } },
                    { finish: 'tool_calls' },
                  ],
                },
        },
      ),
    )
    const result = await runCli(run('go'))
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    const rows = sessionRows()
    const parent = rows.find((row) => row.spawnedBy === null)
    const child = rows.find((row) => row.spawnedBy !== null)
    expect(child).toMatchObject({
      spawnedBy: { sessionId: parent?.id, callId: 't1' },
      parentId: null,
      forkSeq: null,
      title: 'find the word',
    })
    const childLog = logOf(child?.id ?? '')
    expect(childLog.find((e) => e.type === 'session/spawned')).toMatchObject({
      type: 'session/spawned',
      data: { by: { sessionId: parent?.id, callId: 't1' }, depth: 1, mode: 'fresh' },
    })
    // The child read the file in its own log, not the parent's.
    expect(childLog.some((e) => e.type === 'tool/call' && e.data.name === 'read')).toBe(true)
    const parentLog = logOf(parent?.id ?? '')
    expect(parentLog.filter((e) => e.type === 'tool/call').map((e) => e.data.callId)).toEqual([
      't1',
    ])
    expect(parentLog.find((e) => e.type === 'subagent/started')?.data).toEqual({
      callId: 't1',
      sessionId: child?.id,
      description: 'find the word',
    })
    expect(parentLog.find((e) => e.type === 'tool/result')?.data).toMatchObject({
      callId: 't1',
      ok: true,
      output: 'The word is heron.',
      metadata: { subagent: child?.id },
    })
    // The parent's next request carries the child's answer as the call's result.
    const last = bodies().at(-1) as Body
    expect(last.messages.find((m) => m.role === 'tool')).toMatchObject({
      tool_call_id: 't1',
      content: 'The word is heron.',
    })
    expect(result.stdout).toContain('Parent heard: The word is heron.')
    // The parent offers task; the child has every tool but task.
    const names = (body: Body) => (body.tools ?? []).map((t) => t.function.name)
    expect(names(bodies()[0] as Body)).toContain('task')
    const childRequest = bodies().find((b) => asked(b).includes('Read notes.txt')) as Body
    expect(names(childRequest)).toContain('read')
    expect(names(childRequest)).not.toContain('task')

    const listed = await runCli(cliArgv({ home }, 'sessions'))
    const lines = listed.stdout.trim().split('\n')
    const parentLine = lines.findIndex((line) => line.startsWith(parent?.id ?? '-'))
    expect(lines[parentLine + 1]).toMatch(
      new RegExp(`^  ${child?.id}\\b.*find the word \\(subagent of call t1\\)`),
    )
  }, 60_000)

  it('fork mode seeds the child with the finished turns; a tool subset limits its tools; an unknown tool is refused', async () => {
    await serve(
      model(
        {
          steps: [
            task('f1', 'recall it', 'child: what is the code?', { mode: 'fork', tools: ['read'] }),
            task('f2', 'bad tools', 'child: never runs', { tools: ['teleport'] }),
            { finish: 'tool_calls' },
          ],
        },
        {
          'child: what is the code?': () => 'The code is 7.',
          'remember this': () => 'Noted.',
        },
      ),
    )
    const first = await runCli(run('remember this: the code is 7'))
    expect(first.status).toBe(0)
    const parentId = sessionRows()[0]?.id ?? ''
    const second = await runCli(run('--session', parentId, 'go'))
    expect(second.status).toBe(0)
    const child = sessionRows().find((row) => row.spawnedBy !== null)
    // A forked subagent: both a fork point (its history) and a spawner (its lineage).
    expect(child?.spawnedBy).toEqual({ sessionId: parentId, callId: 'f1' })
    expect(child?.parentId).toBe(parentId)
    const childRequest = bodies().find((b) => asked(b).includes('child: what is the code?')) as Body
    // It saw the finished first turn, not the turn that is delegating to it.
    expect(asked(childRequest)).toContain('remember this: the code is 7')
    expect(childRequest.messages.some((m) => m.role === 'user' && m.content === 'go')).toBe(false)
    expect(childRequest.messages.some((m) => m.content === 'Noted.')).toBe(true)
    expect((childRequest.tools ?? []).map((t) => t.function.name).sort()).toEqual([
      'read',
      'read_output',
      'recall',
    ])
    const results = logOf(parentId).filter((e) => e.type === 'tool/result')
    expect(results.map((e) => [e.data.callId, e.data.ok])).toEqual([
      ['f1', true],
      ['f2', false],
    ])
    expect(JSON.stringify(results[1]?.data)).toContain('no tool named \\"teleport\\"')
    expect(sessionRows().filter((row) => row.spawnedBy !== null)).toHaveLength(1)
  }, 60_000)

  it("a code-mode parent's child runs in code mode, and its own log says so", async () => {
    await serve(
      model(
        { steps: [task('t1', 'coder', 'child: in code mode?'), { finish: 'tool_calls' }] },
        {
          'child: in code mode?': () => 'Yes.',
        },
      ),
    )
    const result = await runCli(run('--code-mode', 'go'))
    expect(result.status).toBe(0)
    const child = sessionRows().find((row) => row.spawnedBy !== null)
    const switches = logOf(child?.id ?? '').filter((e) => e.type === 'session/code-mode')
    expect(switches.map((e) => e.data)).toEqual([{ on: true }])
    const childRequest = bodies().find((b) => latest(b) === 'child: in code mode?') as Body
    const names = (childRequest.tools ?? []).map((t) => t.function.name)
    expect(names).toContain('run_code')
    expect(names).not.toContain('task')
  }, 60_000)

  it('runs two task calls of one reply in parallel; both answers come back in call order', async () => {
    let bArrived: () => void = () => undefined
    const bHere = new Promise<void>((resolve) => (bArrived = resolve))
    await serve(
      model(
        {
          steps: [
            task('a', 'first', 'child job A'),
            task('b', 'second', 'child job B'),
            { finish: 'tool_calls' },
          ],
        },
        {
          // A answers only once B has asked: with one child at a time this would never happen.
          'child job A': () => ({ wait: bHere, steps: [{ text: 'answer A' }] }),
          'child job B': () => {
            bArrived()
            return 'answer B'
          },
        },
      ),
    )
    const result = await runCli(run('go'))
    expect(result.status).toBe(0)
    const parent = sessionRows().find((row) => row.spawnedBy === null)
    const results = logOf(parent?.id ?? '').filter((e) => e.type === 'tool/result')
    expect(results.map((e) => [e.data.callId, e.data.ok && e.data.output])).toEqual([
      ['a', 'answer A'],
      ['b', 'answer B'],
    ])
    expect(sessionRows().filter((row) => row.spawnedBy?.sessionId === parent?.id)).toHaveLength(2)
  }, 60_000)

  it("Stop (Ctrl+C) in the parent ends the child's turn; the parent's call says it was stopped", async () => {
    let release: () => void = () => undefined
    const never = new Promise<void>((resolve) => (release = resolve))
    await serve(
      model(
        { steps: [task('t1', 'slow one', 'child slow job'), { finish: 'tool_calls' }] },
        {
          'child slow job': () => ({
            steps: [{ text: 'partial ' }, { wait: never }, { text: 'never' }],
          }),
        },
      ),
    )
    const cli = spawnCli(run('go'))
    try {
      const spawned = await waitForJsonEvent(cli, (e) => e.type === 'subagent/started')
      const started = await waitForJsonEvent(
        cli,
        (e) => e.type === 'assistant/chunk' && e.session === spawned.data['sessionId'],
      )
      const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve))
      cli.kill('SIGINT')
      expect(await exited).not.toBeNull()
      const rows = sessionRows()
      const parent = rows.find((row) => row.spawnedBy === null)
      const child = rows.find((row) => row.spawnedBy !== null)
      expect(started.session).toBe(child?.id)
      const childEnd = logOf(child?.id ?? '').filter((e) => e.type === 'turn/end')
      expect(childEnd.map((e) => e.data.reason)).toEqual(['cancelled'])
      const result = logOf(parent?.id ?? '').find((e) => e.type === 'tool/result')
      expect(result?.data).toMatchObject({
        callId: 't1',
        ok: false,
        error: { code: 'SUBAGENT_STOPPED' },
      })
      expect(JSON.stringify(result?.data)).toContain('partial')
    } finally {
      release()
      cli.kill('SIGKILL')
    }
  }, 60_000)

  it('a stop that comes while the child is being set up still ends it (no hang)', async () => {
    let release: () => void = () => undefined
    const never = new Promise<void>((resolve) => (release = resolve))
    await serve(
      model(
        { steps: [task('t1', 'early', 'child early job'), { finish: 'tool_calls' }] },
        {
          'child early job': () => ({ steps: [{ wait: never }] }),
        },
      ),
    )
    const cli = spawnCli(run('go'))
    try {
      await waitForJsonEvent(cli, (e) => e.type === 'subagent/started')
      const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve))
      cli.kill('SIGINT')
      expect(await exited).toBe(130)
      const parent = sessionRows().find((row) => row.spawnedBy === null)
      const result = logOf(parent?.id ?? '').find((e) => e.type === 'tool/result')
      expect(result?.data).toMatchObject({ ok: false, error: { code: 'SUBAGENT_STOPPED' } })
    } finally {
      release()
      cli.kill('SIGKILL')
    }
  }, 60_000)

  it('kill -9 during a child turn: reopening the parent repairs both sessions', async () => {
    let release: () => void = () => undefined
    const never = new Promise<void>((resolve) => (release = resolve))
    await serve(
      model(
        { steps: [task('t1', 'doomed', 'child doomed job'), { finish: 'tool_calls' }] },
        {
          'child doomed job': () => ({ steps: [{ text: 'halfway' }, { wait: never }] }),
        },
      ),
    )
    const cli = spawnCli(run('go'))
    let parentId: string
    try {
      const spawned = await waitForJsonEvent(cli, (e) => e.type === 'subagent/started')
      parentId = spawned.session
      const childId = String(spawned.data['sessionId'])
      // The child's streamed words are on disk (not only printed) before the kill.
      expect(
        await waitFor(() => logOf(childId).some((e) => e.type === 'assistant/chunk'), 20_000),
      ).toBe(true)
      const exited = new Promise((resolve) => cli.once('exit', resolve))
      cli.kill('SIGKILL')
      await exited
    } finally {
      release()
    }
    const childId = sessionRows().find((row) => row.spawnedBy !== null)?.id ?? ''
    const resumed = await runCli(run('--session', parentId, 'what happened?'))
    expect(resumed.status).toBe(0)
    const childLog = logOf(childId)
    expect(childLog.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual([
      'interrupted-by-crash',
    ])
    expect(childLog.some((e) => e.type === 'recovery/repaired')).toBe(true)
    const result = logOf(parentId).find((e) => e.type === 'tool/result')
    expect(result?.data).toMatchObject({
      callId: 't1',
      ok: false,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    })
    expect(JSON.stringify(result?.data)).toContain(
      `Its subagent (session ${childId}) did not finish`,
    )
    expect(JSON.stringify(result?.data)).toContain('halfway')
  }, 60_000)
})
