import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type {
  ErrorCode,
  MethodName,
  NotificationOf,
  ParamsOf,
  ResultOf,
} from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import { sessionHandlers } from '../../../main/core/host/sessions/handlers.js'
import type { RuntimeService, SettingsService } from '../../../main/core/host/services.js'
import { deriveMessagesAt, Session } from '../../../main/core/log/index.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { EventRow, SqliteStore } from '../../../main/core/store/index.js'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import { editTool } from '../../../main/core/tools/builtin/edit.js'
import { writeTool } from '../../../main/core/tools/builtin/write.js'
import { createToolPipeline } from '../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../main/core/tools/spill.js'
import { defineTool } from '../../../main/core/tools/types.js'
import { SnapshotStore } from '../../../main/core/workspace/snapshot.js'
import { TurnWorkspace } from '../../../main/core/workspace/turn-workspace.js'
import { appendTurn } from '../log/helpers.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let base: string
let home: string
let project: string
let host: Host
let changes: string[][]
const extraStores: SqliteStore[] = []

async function start(opts: { pickFolder?: () => Promise<string | undefined> } = {}) {
  host = await boot({ home, version: '0.0.0', versions: {}, ...opts })
  changes = []
  host.onNotification((topic, payload) => {
    if (topic === 'sessions/changed') {
      changes.push((payload as NotificationOf<'sessions/changed'>).sessionIds)
    }
  })
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-sessions-')))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(project)
  await start()
})

afterEach(async () => {
  await host.close()
  for (const store of extraStores.splice(0)) store.close()
  rmSync(base, { recursive: true, force: true })
})

const call = <M extends MethodName>(method: M, params: ParamsOf<M>, on: Host = host) =>
  dispatchCall(on, method, params, { transport: 'in-process' })

/** The method's value; fails the test with the error's code and message otherwise. */
async function ok<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await call(method, params)
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

/** The error code of a call that must fail. */
async function codeOf<M extends MethodName>(
  method: M,
  params: ParamsOf<M>,
  on: Host = host,
): Promise<ErrorCode | 'ok'> {
  const result = await call(method, params, on)
  return result.ok ? 'ok' : result.error.code
}

/** Another connection to the database, as a second process (or the loop) would have. */
function sideStore(): SqliteStore {
  const store = openStore(databasePath(home))
  extraStores.push(store)
  return store
}

/** Appends to a session through its own writer, closed afterwards so the Host can write. */
function withWriter(sessionId: string, body: (session: Session) => void): void {
  const session = Session.open(sideStore(), sessionId)
  try {
    body(session)
  } finally {
    session.close()
  }
}

async function createSession(title?: string, dir = project) {
  return ok('session/create', { projectDir: dir, ...(title === undefined ? {} : { title }) })
}

async function allEvents(sessionId: string) {
  return (await ok('session/events', { sessionId, limit: 5000 })).events
}

describe('projects', () => {
  it('opens a folder by its real path and lists recent ones newest first, missing ones left out', async () => {
    const other = join(base, 'other')
    mkdirSync(other)
    const link = join(base, 'link')
    symlinkSync(project, link)
    const opened = await ok('project/open', { path: link })
    expect(opened.project).toMatchObject({ path: project, name: 'project' })
    await ok('project/open', { path: other })
    await ok('project/open', { path: project })
    expect((await ok('project/recent', {})).projects.map((p) => p.path)).toEqual([project, other])
    rmSync(other, { recursive: true })
    expect((await ok('project/recent', {})).projects.map((p) => p.path)).toEqual([project])
    expect(JSON.parse(readFileSync(join(home, 'projects.json'), 'utf8'))).toMatchObject({
      projects: [{ path: project }, { path: other }],
    })
  })

  it('refuses paths that are relative, missing or files with INVALID_PATH', async () => {
    writeFileSync(join(base, 'file.txt'), 'x')
    expect(await codeOf('project/open', { path: 'relative/dir' })).toBe('INVALID_PATH')
    expect(await codeOf('project/open', { path: join(base, 'missing') })).toBe('INVALID_PATH')
    expect(await codeOf('project/open', { path: join(base, 'file.txt') })).toBe('INVALID_PATH')
  })

  it('needs a path in serve mode, and uses the picker in the app (cancel: null)', async () => {
    expect(await codeOf('project/open', {})).toBe('UNSUPPORTED')
    await host.close()
    // The user cancels the first time, then picks the project.
    const answers: (string | undefined)[] = [undefined, project]
    await start({ pickFolder: () => Promise.resolve(answers.shift()) })
    expect(await ok('project/open', {})).toEqual({ project: null })
    expect((await ok('project/open', {})).project?.path).toBe(project)
  })

  it('keeps the list readable when projects.json is damaged', async () => {
    mkdirSync(home, { recursive: true })
    writeFileSync(join(home, 'projects.json'), '{ not json')
    expect(await ok('project/recent', {})).toEqual({ projects: [] })
    await ok('project/open', { path: project })
    expect((await ok('project/recent', {})).projects).toHaveLength(1)
  })
})

describe('session/create, get, rename, delete, restore', () => {
  it('creates a session with the configured defaults and records the project', async () => {
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
        defaultEndpoint: 'local',
        defaultModel: 'qwen3:8b',
      }),
    )
    const created = await ok('session/create', { projectDir: project, title: 'First' })
    expect(created).toMatchObject({
      parentId: null,
      forkSeq: null,
      title: 'First',
      projectDir: project,
      model: 'qwen3:8b',
      eventCount: 2,
      messageCount: 0,
      deletedAt: null,
      isRunning: false,
    })
    const [first, second] = await allEvents(created.id)
    expect(first).toMatchObject({
      seq: 0,
      type: 'session/created',
      data: { projectDir: project, model: 'qwen3:8b', endpoint: 'local' },
    })
    expect(second).toMatchObject({ type: 'session/title', data: { title: 'First' } })
    expect(changes).toEqual([[created.id]])
    expect((await ok('project/recent', {})).projects[0]?.path).toBe(project)

    const chosen = await ok('session/create', {
      projectDir: project,
      endpointId: 'local',
      model: 'llama3',
    })
    expect(chosen.model).toBe('llama3')
    expect(await codeOf('session/create', { projectDir: join(base, 'missing') })).toBe(
      'INVALID_PATH',
    )
  })

  it("gives a project's new sessions its own endpoint and model, others the global ones", async () => {
    const other = join(base, 'other')
    mkdirSync(other)
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        endpoints: {
          local: { baseUrl: 'http://127.0.0.1:11434/v1' },
          studio: { baseUrl: 'http://127.0.0.1:1234/v1' },
        },
        defaultEndpoint: 'local',
        defaultModel: 'qwen3:8b',
        projects: {
          [project]: { endpoint: 'studio', model: 'gemma-3' },
          [other]: { model: 'llama3' },
        },
      }),
    )
    const own = await ok('session/create', { projectDir: project })
    expect((await allEvents(own.id))[0]?.data).toMatchObject({
      endpoint: 'studio',
      model: 'gemma-3',
    })
    // Only a model: the global endpoint with the project's model.
    const modelOnly = await ok('session/create', { projectDir: other })
    expect((await allEvents(modelOnly.id))[0]?.data).toMatchObject({
      endpoint: 'local',
      model: 'llama3',
    })
    // What the caller asks for still wins; the project's model is not carried to another
    // endpoint (that endpoint's model is resolved at the first turn).
    const asked = await ok('session/create', { projectDir: project, endpointId: 'local' })
    expect((await allEvents(asked.id))[0]?.data).toMatchObject({ endpoint: 'local' })
    expect(asked.model).toBeNull()
  })

  it('gets a session with what is pending in it', async () => {
    const created = await createSession()
    expect(created.model).toBeNull()
    expect(await ok('session/get', { sessionId: created.id })).toEqual({
      session: created,
      pendingApprovals: [],
      codeMode: false,
    })
    expect(await codeOf('session/get', { sessionId: 'missing' })).toBe('NOT_FOUND')
  })

  it("says whether code mode is on from the whole history's last switch, a fork's prefix too", async () => {
    const parent = await createSession()
    const codeMode = async (sessionId: string) => (await ok('session/get', { sessionId })).codeMode
    withWriter(parent.id, (session) => {
      session.append('session/code-mode', { on: true })
      // Far more history after the switch than the app's chat reads at open.
      for (let i = 0; i < 40; i++) appendTurn(session, `question ${i}`, [{ calls: [`c${i}`] }, {}])
    })
    expect(await codeMode(parent.id)).toBe(true)
    const { eventCount } = (await ok('session/get', { sessionId: parent.id })).session
    const fork = await ok('session/fork', { sessionId: parent.id, atSeq: eventCount - 1 })
    withWriter(parent.id, (session) => session.append('session/code-mode', { on: false }))
    expect(await codeMode(parent.id)).toBe(false)
    expect(await codeMode(fork.id)).toBe(true)
  })

  it('renames through the log and the row together; an empty title clears it', async () => {
    const created = await createSession('Old')
    const renamed = await ok('session/rename', { sessionId: created.id, title: '  New name ' })
    expect(renamed.title).toBe('New name')
    const cleared = await ok('session/rename', { sessionId: created.id, title: '' })
    expect(cleared.title).toBeNull()
    const titles = (await allEvents(created.id)).filter((e) => e.type === 'session/title')
    expect(titles.map((e) => e.data)).toEqual([
      { title: 'Old', source: 'user' },
      { title: 'New name', source: 'user' },
      { title: '', source: 'user' },
    ])
    expect(changes).toEqual([[created.id], [created.id], [created.id]])
    expect(await codeOf('session/rename', { sessionId: 'missing', title: 'x' })).toBe('NOT_FOUND')
  })

  it('moves a session to the trash and back', async () => {
    const kept = await createSession('kept')
    const binned = await createSession('binned')
    const deleted = await ok('session/delete', { sessionId: binned.id })
    expect(deleted.deletedAt).toEqual(expect.any(Number))
    const ids = async (includeDeleted: boolean) =>
      (await ok('session/list', { includeDeleted })).items.map((s) => s.id)
    expect(await ids(false)).toEqual([kept.id])
    expect(await ids(true)).toContain(binned.id)
    expect((await ok('session/tree', {})).sessions.map((s) => s.id)).toEqual([kept.id])
    const restored = await ok('session/restore', { sessionId: binned.id })
    expect(restored.deletedAt).toBeNull()
    expect((await ids(false)).sort()).toEqual([kept.id, binned.id].sort())
    expect(changes.slice(2)).toEqual([[binned.id], [binned.id]])
    expect(await codeOf('session/delete', { sessionId: 'missing' })).toBe('NOT_FOUND')
    expect(await codeOf('session/restore', { sessionId: 'missing' })).toBe('NOT_FOUND')
  })

  it('refuses to delete a running session with CONFLICT', async () => {
    const created = await createSession()
    const store = sideStore()
    const running: RuntimeService = {
      session: () => {
        throw new Error('not used')
      },
      isRunning: () => true,
      pendingApprovals: () => [],
      contextWindow: () => undefined,
      profile: () => undefined,
      switchModel: () => Promise.resolve(),
      close: () => Promise.resolve(),
    }
    const settings: SettingsService = {
      current: () => {
        throw new Error('not used')
      },
      defaults: () => ({}),
      revision: () => 0,
      probeReport: () => undefined,
      resolveModel: () => Promise.reject(new Error('not used')),
      rememberApprovalRule: () => undefined,
    }
    const handlers = sessionHandlers(
      { home, store, notify: () => undefined },
      { settings, runtime: running },
    )
    const busy: Host = { ...host, handlers: { ...host.handlers, ...handlers } }
    expect(await codeOf('session/delete', { sessionId: created.id }, busy)).toBe('CONFLICT')
    expect((await ok('session/get', { sessionId: created.id })).session.deletedAt).toBeNull()
  })
})

describe('session/list', () => {
  it('pages by cursor with no gaps or repeats, and filters by project', async () => {
    const elsewhere = join(base, 'elsewhere')
    mkdirSync(elsewhere)
    const made: string[] = []
    for (let i = 0; i < 5; i++) made.push((await createSession(`p${i}`)).id)
    for (let i = 0; i < 2; i++) made.push((await createSession(`e${i}`, elsewhere)).id)
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: ResultOf<'session/list'> = await ok('session/list', { cursor, limit: 3 })
      seen.push(...page.items.map((s) => s.id))
      cursor = page.nextCursor
      pages++
    } while (cursor !== null && pages < 10)
    expect(pages).toBe(3)
    expect(seen.sort()).toEqual([...made].sort())

    const inProject: string[] = []
    cursor = null
    do {
      const page: ResultOf<'session/list'> = await ok('session/list', {
        cursor,
        limit: 2,
        projectDir: project,
      })
      inProject.push(...page.items.map((s) => s.id))
      expect(page.items.every((s) => s.projectDir === project)).toBe(true)
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(inProject.sort()).toEqual(made.slice(0, 5).sort())
    // The filter matches however the folder is spelled (a link to it).
    const link = join(base, 'link')
    symlinkSync(elsewhere, link)
    expect((await ok('session/list', { projectDir: link })).items).toHaveLength(2)
    expect(await codeOf('session/list', { cursor: 'forged' })).toBe('INVALID_PARAMS')
  })
})

describe('session/fork and session/tree', () => {
  it("counts the user's words and the answers as messages, not the context the harness adds", async () => {
    const parent = await createSession('counted')
    withWriter(parent.id, (session) => {
      session.append('turn/start', {})
      session.append('user/message', { content: 'Date: today', kind: 'context' })
      session.append('turn/end', { reason: 'completed' })
      appendTurn(session, 'a question')
    })
    expect((await ok('session/get', { sessionId: parent.id })).session.messageCount).toBe(2)
    const length = (await allEvents(parent.id)).length
    const fork = await ok('session/fork', { sessionId: parent.id, atSeq: length })
    expect(fork.messageCount).toBe(2)
  })

  it('forks at a turn boundary and inside a turn; the tree shows both under the parent', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ defaultModel: 'qwen3:8b' }))
    const parent = await createSession('parent')
    let secondTurn = 0
    let insideSecond = 0
    withWriter(parent.id, (session) => {
      appendTurn(session, 'first question')
      secondTurn = session.length
      appendTurn(session, 'second question', [{ calls: ['c1'] }, { reply: 'done' }])
      insideSecond = session.slice().findIndex((e) => e.type === 'tool/call')
    })
    const atBoundary = await ok('session/fork', {
      sessionId: parent.id,
      atSeq: secondTurn,
      title: 'alternative',
    })
    expect(atBoundary).toMatchObject({
      parentId: parent.id,
      forkSeq: secondTurn,
      title: 'alternative',
      model: 'qwen3:8b',
      eventCount: secondTurn,
      messageCount: 2,
    })
    const inside = await ok('session/fork', { sessionId: parent.id, atSeq: insideSecond })
    // A fork starts untitled: its own first message names it (host/runtime/titles.ts).
    expect(inside.title).toBeNull()
    // The open call, step and turn are closed in the child.
    const childEvents = await allEvents(inside.id)
    expect(childEvents.slice(insideSecond).map((e) => e.type)).toEqual([
      'tool/result',
      'step/end',
      'turn/end',
      'recovery/repaired',
    ])
    expect(childEvents.slice(0, insideSecond)).toEqual(
      (await allEvents(parent.id)).slice(0, insideSecond),
    )
    expect(changes.slice(-2)).toEqual([[atBoundary.id], [inside.id]])

    const tree = (await ok('session/tree', { projectDir: project })).sessions
    expect(tree.map((s) => [s.id, s.parentId])).toEqual([
      [parent.id, null],
      [atBoundary.id, parent.id],
      [inside.id, parent.id],
    ])
    expect(tree[0]?.messageCount).toBe(5)
    expect((await ok('session/tree', { projectDir: join(base, 'none') })).sessions).toEqual([])
    await ok('session/delete', { sessionId: inside.id })
    expect((await ok('session/tree', {})).sessions).toHaveLength(2)
    expect((await ok('session/tree', { includeDeleted: true })).sessions).toHaveLength(3)
  })

  it('refuses a fork point out of range and an unknown session', async () => {
    const parent = await createSession()
    expect(await codeOf('session/fork', { sessionId: parent.id, atSeq: 0 })).toBe('INVALID_PARAMS')
    expect(await codeOf('session/fork', { sessionId: parent.id, atSeq: 2 })).toBe('INVALID_PARAMS')
    expect(await codeOf('session/fork', { sessionId: 'missing', atSeq: 1 })).toBe('NOT_FOUND')
    expect((await ok('session/fork', { sessionId: parent.id, atSeq: 1 })).eventCount).toBe(1)
  })
})

describe('session/events', () => {
  it('pages through the history with filters, across a fork', async () => {
    const parent = await createSession()
    withWriter(parent.id, (session) => {
      for (let i = 0; i < 4; i++) appendTurn(session, `question ${i}`, [{ calls: [`c${i}`] }, {}])
    })
    const all = await allEvents(parent.id)
    const length = (await ok('session/get', { sessionId: parent.id })).session.eventCount
    expect(all).toHaveLength(length)
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i))

    const paged: typeof all = []
    let fromSeq: number | null = 0
    while (fromSeq !== null) {
      const page: ResultOf<'session/events'> = await ok('session/events', {
        sessionId: parent.id,
        fromSeq,
        limit: 7,
      })
      expect(page.length).toBe(length)
      paged.push(...page.events)
      fromSeq = page.nextSeq
    }
    expect(paged).toEqual(all)

    const calls = await ok('session/events', {
      sessionId: parent.id,
      types: ['tool/call', 'tool/result'],
      limit: 3,
    })
    expect(calls.events.map((e) => e.type)).toEqual(['tool/call', 'tool/result', 'tool/call'])
    expect(calls.nextSeq).toBe(all.filter((e) => e.type === 'tool/result')[1]?.seq)
    expect(calls.events[0]?.data).toEqual({ callId: 'c0', name: 'read', args: { path: 'a' } })

    const turnTwoStepTwo = await ok('session/events', { sessionId: parent.id, turn: 2, step: 2 })
    expect(turnTwoStepTwo.events.length).toBeGreaterThan(0)
    expect(turnTwoStepTwo.events.every((e) => e.turn === 2 && e.step === 2)).toBe(true)
    const turnThree = await ok('session/events', { sessionId: parent.id, turn: 3, limit: 5 })
    const expected = all.filter((e) => e.turn === 3)
    expect(turnThree.events).toEqual(expected.slice(0, 5))
    expect(turnThree.nextSeq).toBe(expected[5]?.seq)
    expect((await ok('session/events', { sessionId: parent.id, turn: 9 })).events).toEqual([])
    const bounded = await ok('session/events', { sessionId: parent.id, fromSeq: 3, toSeq: 6 })
    expect(bounded.events.map((e) => e.seq)).toEqual([3, 4, 5])
    expect(bounded.nextSeq).toBeNull()

    // Seq 18 is the second turn's start: the child has no rows of its own yet.
    expect(all[18]?.type).toBe('turn/start')
    const child = await ok('session/fork', { sessionId: parent.id, atSeq: 18 })
    const childPage = await ok('session/events', { sessionId: child.id, fromSeq: 15, limit: 10 })
    expect(childPage.events).toEqual(all.slice(15, 18))
    expect(childPage.nextSeq).toBeNull()
    expect(await codeOf('session/events', { sessionId: 'missing' })).toBe('NOT_FOUND')
  })

  it('reads from the end (tail): the last page, then older pages back to the start, across a fork', async () => {
    const parent = await createSession()
    withWriter(parent.id, (session) => {
      for (let i = 0; i < 4; i++) appendTurn(session, `question ${i}`, [{ calls: [`c${i}`] }, {}])
    })
    const all = await allEvents(parent.id)
    const last = await ok('session/events', { sessionId: parent.id, tail: true, limit: 7 })
    expect(last.events).toEqual(all.slice(-7))
    expect(last.coveredFrom).toBe(all.at(-7)?.seq)
    expect(last.nextSeq).toBeNull()
    expect(last.length).toBe(all.length)

    // Page back from the end: every event once, in order, down to coveredFrom 0.
    const walked: typeof all = []
    let toSeq = last.coveredFrom ?? 0
    walked.unshift(...last.events)
    while (toSeq > 0) {
      const page: ResultOf<'session/events'> = await ok('session/events', {
        sessionId: parent.id,
        tail: true,
        toSeq,
        limit: 7,
      })
      walked.unshift(...page.events)
      toSeq = page.coveredFrom ?? 0
    }
    expect(walked).toEqual(all)

    // A sparse filter: the last two calls, however far back they are.
    const calls = all.filter((e) => e.type === 'tool/call')
    const lastCalls = await ok('session/events', {
      sessionId: parent.id,
      tail: true,
      types: ['tool/call'],
      limit: 2,
    })
    expect(lastCalls.events).toEqual(calls.slice(-2))
    expect(lastCalls.coveredFrom).toBe(calls.at(-2)?.seq)
    const whole = await ok('session/events', { sessionId: parent.id, tail: true, limit: 5000 })
    expect(whole.events).toEqual(all)
    expect(whole.coveredFrom).toBe(0)

    // A fork's tail reads its parent's events below the fork point.
    const child = await ok('session/fork', { sessionId: parent.id, atSeq: 18 })
    const childTail = await ok('session/events', { sessionId: child.id, tail: true, limit: 4 })
    expect(childTail.events).toEqual(all.slice(14, 18))
    expect(childTail.coveredFrom).toBe(14)
  })

  it('reads a page deep in a 100k-event history without loading it', async () => {
    const store = sideStore()
    const id = 'big'
    const rows: EventRow[] = [
      row(id, 0, 'session/created', JSON.stringify({ projectDir: project, model: 'm' })),
    ]
    for (let seq = 1; seq < 100_000; seq++) {
      rows.push(
        seq % 1000 === 0
          ? row(id, seq, 'error', '{"scope":"session","code":"X","message":"a marker"}')
          : row(id, seq, 'deliverable/present', '{"paths":["x"]}'),
      )
    }
    store.write(() => {
      store.createSession({
        id,
        parentId: null,
        forkSeq: null,
        projectDir: project,
        title: null,
        createdAt: 1,
      })
      store.appendEvents(id, rows)
    })
    const started = performance.now()
    const page = await ok('session/events', { sessionId: id, fromSeq: 98_500, limit: 1000 })
    const filtered = await ok('session/events', { sessionId: id, types: ['error'], limit: 10 })
    const elapsed = performance.now() - started
    expect(page.events[0]?.seq).toBe(98_500)
    expect(page.nextSeq).toBe(99_500)
    expect(page.length).toBe(100_000)
    expect(filtered.events.map((e) => e.seq)).toEqual(
      Array.from({ length: 10 }, (_, i) => (i + 1) * 1000),
    )
    expect(elapsed).toBeLessThan(1000)
    expect((await ok('session/get', { sessionId: id })).session.model).toBe('m')
  })
})

function row(sessionId: string, seq: number, type: string, data: string): EventRow {
  return { sessionId, seq, type, v: 1, turn: 0, step: 0, at: 1_000 + seq, data }
}

describe('session/search', () => {
  it('finds text across sessions or in one, with titles, and leaves out the trash', async () => {
    const a = await createSession('About parsers')
    const b = await createSession()
    withWriter(a.id, (session) => appendTurn(session, 'the parser drops trailing commas'))
    withWriter(b.id, (session) => appendTurn(session, 'the parser is fine here'))
    const everywhere = await ok('session/search', { query: 'parser' })
    expect(everywhere.hits.map((h) => h.sessionId).sort()).toEqual([a.id, b.id].sort())
    const inA = await ok('session/search', { query: 'parser', sessionId: a.id })
    expect(inA.hits).toEqual([
      expect.objectContaining({
        sessionId: a.id,
        title: 'About parsers',
        type: 'user/message',
        snippet: expect.stringContaining('«parser»') as string,
      }),
    ])
    await ok('session/delete', { sessionId: b.id })
    expect((await ok('session/search', { query: 'parser' })).hits.map((h) => h.sessionId)).toEqual([
      a.id,
    ])
    expect(await codeOf('session/search', { query: 'x', sessionId: 'missing' })).toBe('NOT_FOUND')
  })
})

describe('session/request', () => {
  const tools = [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }]

  /** A turn of one step with tools in its header and the server's usage on the answer. */
  function usageTurn(session: Session, text: string): number {
    session.append('turn/start', {})
    session.append('step/start', {})
    session.append('user/message', { content: text })
    const header = session.append('request/header', {
      sections: [{ name: 'identity', text: 'You are Bridle, a careful agent.' }],
      tools,
      reason: 'change',
    })
    const start = session.append('request/start', {
      provider: 'test',
      model: 'm',
      params: { temperature: 0.2 },
      headerSeq: header.seq,
    })
    session.append('assistant/message', {
      blocks: [{ type: 'text', text: 'All clear.' }],
      usage: { inputTokens: 321 },
      finish: 'stop',
    })
    session.append('step/end', { reason: 'completed' })
    session.append('turn/end', { reason: 'completed' })
    return start.seq
  }

  it('rebuilds a request with tool outputs, and one after a checkpoint with its summary', async () => {
    const created = await createSession()
    let starts: number[] = []
    let afterCheckpoint = 0
    let events: ReturnType<Session['slice']> = []
    withWriter(created.id, (session) => {
      appendTurn(session, 'read the file please', [{ calls: ['c1'] }, { reply: 'it says hello' }])
      appendTurn(session, 'and now?')
      const visible = session.slice().filter((e) => e.type === 'user/message')
      const firstAnswer = session
        .slice()
        .filter((e) => e.type === 'assistant/message' && e.turn === 1)
        .at(-1)
      session.append('compaction/checkpoint', {
        fromSeq: visible[0]?.seq ?? 0,
        toSeq: firstAnswer?.seq ?? 0,
        summary: 'The user asked to read a file; it said hello.',
        tokensBefore: 120,
        tokensAfter: 20,
      })
      afterCheckpoint = usageTurn(session, 'what next?')
      events = session.slice()
      starts = events.filter((e) => e.type === 'request/start').map((e) => e.seq)
    })

    const withTools = await ok('session/request', {
      sessionId: created.id,
      startSeq: starts[1] ?? 0,
    })
    expect(withTools.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(withTools.messages[2]?.toolCalls).toEqual([
      { callId: 'c1', name: 'read', args: '{"path":"a"}' },
    ])
    expect(withTools.messages[3]).toMatchObject({ callId: 'c1', content: 'contents for c1' })
    expect(withTools.tokens.toolOutputs).toBeGreaterThan(0)
    expect(withTools.tokens.checkpoint).toBe(0)
    expect(withTools.reportedInputTokens).toBeUndefined()

    const view = await ok('session/request', { sessionId: created.id, startSeq: afterCheckpoint })
    const derived = deriveMessagesAt(events, afterCheckpoint)
    expect(view.messages.map((m) => [m.role, m.seq])).toEqual(derived.map((m) => [m.role, m.seq]))
    expect(view.messages[1]).toMatchObject({ role: 'user', kind: 'summary' })
    expect(view.messages[1]?.content).toContain('it said hello')
    expect(view).toMatchObject({
      startSeq: afterCheckpoint,
      model: 'm',
      params: { temperature: 0.2 },
      tools,
      reportedInputTokens: 321,
    })
    const { tokens } = view
    expect(tokens.checkpoint).toBeGreaterThan(0)
    expect(tokens.toolOutputs).toBe(0)
    expect(tokens.method).toBe('estimate')
    expect(tokens.tools).toBeGreaterThan(0)
    expect(tokens.total).toBeGreaterThan(tokens.system + tokens.tools + tokens.history - 1)
    expect(tokens.history).toBe(
      view.messages.filter((m) => m.role !== 'system').reduce((sum, m) => sum + m.tokens, 0),
    )

    expect(await codeOf('session/request', { sessionId: created.id, startSeq: 0 })).toBe(
      'NOT_FOUND',
    )
    expect(await codeOf('session/request', { sessionId: created.id, startSeq: 10_000 })).toBe(
      'NOT_FOUND',
    )
    expect(await codeOf('session/request', { sessionId: 'missing', startSeq: 1 })).toBe('NOT_FOUND')
  })
})

describe('output/read', () => {
  it('reads a spilled output in ranges that never split a character', async () => {
    const text = 'héllo wörld 😀 ünïcode '.repeat(40)
    const spill = new OutputSpill(join(home, 'outputs'), 16)
    const { outputRef } = spill.cap('s1', 'call-1', text)
    if (outputRef === undefined) throw new Error('expected a spill')
    let joined = ''
    let offset: number | null = 0
    let reads = 0
    while (offset !== null) {
      const part: ResultOf<'output/read'> = await ok('output/read', {
        outputRef,
        offset,
        length: 5,
      })
      expect(part.offset).toBe(offset)
      expect(part.totalBytes).toBe(Buffer.byteLength(text))
      expect(part.text).not.toContain('\uFFFD')
      joined += part.text
      offset = part.nextOffset
      reads++
    }
    expect(joined).toBe(text)
    expect(reads).toBeGreaterThan(100)
    // A length smaller than a character still moves on by a whole character.
    const emoji = Buffer.from(text).indexOf(Buffer.from('😀'))
    expect(await ok('output/read', { outputRef, offset: emoji, length: 1 })).toMatchObject({
      text: '😀',
      nextOffset: emoji + 4,
    })
    // A start inside a character moves to the next one.
    expect((await ok('output/read', { outputRef, offset: emoji + 1, length: 8 })).offset).toBe(
      emoji + 4,
    )
    const whole = await ok('output/read', { outputRef })
    expect(whole).toMatchObject({ text, offset: 0, nextOffset: null })
  })

  it('refuses refs that leave the outputs folder, and answers NOT_FOUND for missing ones', async () => {
    writeFileSync(join(base, 'secret.txt'), 'secret')
    mkdirSync(join(home, 'outputs', 's1'), { recursive: true })
    symlinkSync(join(base, 'secret.txt'), join(home, 'outputs', 's1', 'link.txt'))
    for (const outputRef of [
      '../x',
      '../../secret.txt',
      's1/../../secret.txt',
      join(base, 'secret.txt'),
      's1/link.txt',
    ]) {
      expect(await codeOf('output/read', { outputRef })).toBe('INVALID_PATH')
    }
    expect(await codeOf('output/read', { outputRef: 's1/none.txt' })).toBe('NOT_FOUND')
  })
})

describe('workspace/diff', () => {
  it('shows a recorded turn exactly, even after the files changed again', async () => {
    const created = await createSession()
    writeFileSync(join(project, 'a.txt'), 'one\ntwo\nthree\n')
    writeFileSync(join(project, 'gone.txt'), 'bye\n')
    writeFileSync(join(project, 'image.bin'), Buffer.from([1, 0, 2]))
    writeFileSync(join(project, 'huge.txt'), 'x\n'.repeat(600_000))
    const workspace = new TurnWorkspace(project, new SnapshotStore(join(home, 'snapshots')))
    withWriter(created.id, (session) => {
      session.append('turn/start', {})
      workspace.turnHooks.start()
      const change = (path: string, content: string | Buffer | undefined) => {
        workspace.beforeWrite(join(project, path))
        if (content === undefined) rmSync(join(project, path))
        else writeFileSync(join(project, path), content)
      }
      change('a.txt', 'one\n2\nthree\n')
      change('new.txt', 'fresh\n')
      change('gone.txt', undefined)
      change('image.bin', Buffer.from([1, 0, 3]))
      change('huge.txt', 'y\n'.repeat(600_000))
      workspace.turnHooks.end(session.turn, session)
      session.append('turn/end', { reason: 'completed' })
      appendTurn(session, 'nothing changes in this one')
    })
    writeFileSync(join(project, 'a.txt'), 'later\n')

    const diff = await ok('workspace/diff', { sessionId: created.id, turn: 1 })
    const byPath = new Map(diff.files.map((file) => [file.path, file]))
    expect([...byPath.keys()]).toEqual(['a.txt', 'gone.txt', 'huge.txt', 'image.bin', 'new.txt'])
    expect(byPath.get('a.txt')).toMatchObject({ status: 'modified', additions: 1, deletions: 1 })
    expect(byPath.get('a.txt')?.patch).toBe(
      '--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n',
    )
    expect(byPath.get('new.txt')?.patch).toContain('+fresh\n')
    expect(byPath.get('gone.txt')?.patch).toContain('-bye\n')
    expect(byPath.get('image.bin')).toMatchObject({ isBinary: true })
    expect(byPath.get('image.bin')?.patch).toBeUndefined()
    expect(byPath.get('huge.txt')?.patch).toBeUndefined()

    expect(await codeOf('workspace/diff', { sessionId: created.id, turn: 2 })).toBe('NOT_FOUND')
    expect(await codeOf('workspace/diff', { sessionId: 'missing', turn: 1 })).toBe('NOT_FOUND')
    // A fork reads its inherited turn's record from the parent.
    const child = await ok('session/fork', { sessionId: created.id, atSeq: 8 })
    expect((await ok('workspace/diff', { sessionId: child.id, turn: 1 })).files).toEqual(diff.files)
  })

  it('gives counts only for an event logged without snapshot hashes (an older log)', async () => {
    const created = await createSession()
    writeFileSync(join(project, 'b.txt'), 'bee\n')
    const files = [
      { path: 'a.txt', status: 'modified' as const, additions: 1, deletions: 1 },
      { path: 'b.txt', status: 'added' as const, additions: 1, deletions: 0 },
    ]
    withWriter(created.id, (session) => {
      session.append('turn/start', {})
      session.append('workspace/diff', { files })
      session.append('turn/end', { reason: 'completed' })
    })
    const diff = await ok('workspace/diff', { sessionId: created.id, turn: 1 })
    expect(diff.files).toEqual(files)
  })
})

describe('project/files-exist', () => {
  it('says which paths are files or folders in the project now, and never looks outside it', async () => {
    const created = await createSession()
    mkdirSync(join(project, 'docs'))
    writeFileSync(join(project, 'docs', 'report.md'), '# Report\n')
    writeFileSync(join(project, 'gone.txt'), 'soon gone\n')
    writeFileSync(join(base, 'secret.txt'), 'outside\n')
    symlinkSync(join(base, 'secret.txt'), join(project, 'link-out.txt'))
    symlinkSync(join(project, 'docs', 'report.md'), join(project, 'link-in.md'))
    symlinkSync(base, join(project, 'up'))
    rmSync(join(project, 'gone.txt'))
    const paths = [
      'docs/report.md',
      join(project, 'docs', 'report.md'),
      'gone.txt',
      'docs',
      '../secret.txt',
      join(base, 'secret.txt'),
      'link-out.txt',
      'link-in.md',
      'docs/../../secret.txt',
      'docs/report.md/x',
      'up/secret.txt',
      'up',
    ]
    expect(await ok('project/files-exist', { sessionId: created.id, paths })).toEqual({
      exists: [true, true, false, true, false, false, false, true, false, false, false, false],
    })
    expect(await codeOf('project/files-exist', { sessionId: 'missing', paths: ['a'] })).toBe(
      'NOT_FOUND',
    )
  })
})

describe('a real turn through the agent loop', () => {
  let h: LoopHarness | undefined
  let loopHost: Host | undefined
  afterEach(async () => {
    await loopHost?.close()
    await h?.close()
    loopHost = undefined
    h = undefined
  })

  const step = (name: string, args: unknown) => ({
    steps: [
      { toolCall: { id: `call_${name}`, name, args: JSON.stringify(args) } },
      { finish: 'tool_calls' },
    ],
  })

  it('serves its request, its spilled output and its diff', async () => {
    h = await startHarness(
      [
        step('edit', { path: 'a.txt', oldText: 'bug', newText: 'fix' }),
        step('write', { path: 'b.txt', content: 'new file\n' }),
        step('big', {}),
        {
          steps: [
            { text: 'Done.' },
            { usage: { prompt_tokens: 500, completion_tokens: 2 } },
            { finish: 'stop' },
          ],
        },
      ],
      {
        makeTools: ({ projectDir, homeDir }) => {
          const registry = new ToolRegistry()
          for (const tool of [writeTool(), editTool(), bigTool()]) registry.register(tool)
          const workspace = new TurnWorkspace(
            projectDir,
            new SnapshotStore(join(homeDir, 'snapshots')),
          )
          const runner = createToolPipeline({
            registry,
            approvals: new ApprovalPolicy('full-auto'),
            spill: new OutputSpill(join(homeDir, 'outputs')),
            projectDir,
            workspace,
          })
          return Object.assign(runner, { turnHooks: workspace.turnHooks })
        },
      },
    )
    h.agent.send({ requestId: 'r1', text: 'fix the bug and add b.txt' })
    expect(await h.agent.runUntilIdle()).toEqual([{ turn: 1, reason: 'completed' }])
    await h.session.flush()
    loopHost = await boot({ home: h.home.dir, version: '0.0.0', versions: {} })
    const sessionId = h.session.id
    const onLoop = <M extends MethodName>(method: M, params: ParamsOf<M>) =>
      dispatchCall(loopHost as Host, method, params, { transport: 'in-process' })
    const value = async <M extends MethodName>(method: M, params: ParamsOf<M>) => {
      const result = await onLoop(method, params)
      if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
      return result.value as ResultOf<M>
    }

    const diff = await value('workspace/diff', { sessionId, turn: 1 })
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ['a.txt', 'modified'],
      ['b.txt', 'added'],
    ])
    expect(diff.files[0]?.patch).toContain('-there is a bug here\n+there is a fix here\n')

    const events = (await value('session/events', { sessionId, types: ['tool/result'] })).events
    const spilled = events
      .map((e) => (e.type === 'tool/result' && e.data.ok ? e.data.outputRef : undefined))
      .find((ref) => typeof ref === 'string')
    if (typeof spilled !== 'string') throw new Error('expected a spilled output')
    const output = await value('output/read', { outputRef: spilled, length: 1024 * 1024 })
    expect(output.text).toBe('é'.repeat(40_000))

    const starts = (await value('session/events', { sessionId, types: ['request/start'] })).events
    const last = starts.at(-1)?.seq ?? 0
    const view = await value('session/request', { sessionId, startSeq: last })
    expect(view.model).toBe('scripted')
    expect(view.messages.filter((m) => m.role === 'tool')).toHaveLength(3)
    expect(view.tools.map((t) => t.name).sort()).toEqual(['big', 'edit', 'write'])
    expect(view.tokens.toolOutputs).toBeGreaterThan(10_000)
    expect(view.reportedInputTokens).toBe(500)
  })
})

/** A tool whose output is over the 50 KB cap, so the pipeline spills it. */
function bigTool() {
  return defineTool({
    name: 'big',
    description: 'Print a lot',
    kind: 'read',
    schema: z.object({}),
    run: () => Promise.resolve({ output: 'é'.repeat(40_000) }),
  })
}
