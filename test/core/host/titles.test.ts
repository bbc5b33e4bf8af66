import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Config } from '../../../main/core/host/settings/config.js'
import { createRuntime } from '../../../main/core/host/runtime/runtime.js'
import {
  cleanTitle,
  TITLE_SYSTEM_PROMPT,
  wordsTitle,
} from '../../../main/core/host/runtime/titles.js'
import type {
  ModelChoice,
  RuntimeService,
  SettingsService,
} from '../../../main/core/host/services.js'
import { forkSession, Session } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer, ModelServerOptions } from '../../fixtures/model-server/server.js'

let home: string
let project: string
let store: Store
let server: ModelServer
/** What afterEach undoes of `start`, once a test started the server and the runtime. */
let stop: (() => Promise<void>) | undefined
let runtime: ReturnType<typeof createRuntime>
let service: RuntimeService
let changed: string[]

async function start(options: ModelServerOptions = {}): Promise<void> {
  server = await startModelServer(options)
  runtime = createRuntime(
    {
      home,
      store,
      notify: (topic, payload) => {
        if (topic === 'sessions/changed')
          changed.push(...(payload as { sessionIds: string[] }).sessionIds)
      },
    },
    fakeSettings(server),
  )
  service = runtime.service
  stop = async () => {
    await service.close()
    await server.close()
  }
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-titles-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  store = openStore(databasePath(home))
  changed = []
})

afterEach(async () => {
  await stop?.()
  stop = undefined
  store.close()
  rmSync(home, { recursive: true, force: true })
})

function fakeSettings(model: ModelServer): SettingsService {
  const config = Config.parse({ approval: 'ask' })
  return {
    current: () => config,
    defaults: () => ({}),
    resolveModel: (ref) => {
      const choice: ModelChoice = {
        endpointId: ref.endpointId ?? 'local',
        baseUrl: model.url,
        adapter: createOpenAiCompatibleAdapter({ baseUrl: model.url }),
        model: ref.model ?? 'scripted',
      }
      return Promise.resolve(choice)
    },
    rememberApprovalRule: () => undefined,
    revision: () => 0,
    probeReport: () => undefined,
  }
}

function newSession(): string {
  const session = Session.create(store, {
    projectDir: project,
    model: 'scripted',
    endpoint: 'local',
  })
  session.close()
  return session.id
}

async function waitFor<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The session's own events as the store has them (read without the writer lock). */
function storedEvents(sessionId: string): LogEvent[] {
  const session = Session.open(store, sessionId, { mode: 'read' })
  const events = session.slice(store.getSession(sessionId)?.forkSeq ?? 0)
  session.close()
  return events
}

const titles = (sessionId: string) =>
  storedEvents(sessionId).flatMap((e) => (e.type === 'session/title' ? [e.data] : []))

const turnEnds = (sessionId: string) =>
  storedEvents(sessionId).filter((e) => e.type === 'turn/end').length

async function send(sessionId: string, text: string, turns: number): Promise<void> {
  await service.session(sessionId).flush()
  const { accepted } = (await runtime.handlers['turn/send'](
    { sessionId, requestId: `r-${text}`, text },
    { transport: 'in-process' },
  )) as { accepted: boolean }
  expect(accepted).toBe(true)
  await waitFor(() => turnEnds(sessionId) >= turns && !service.isRunning(sessionId), 'the turn')
}

describe('wordsTitle and cleanTitle', () => {
  it('make one short line without markdown', () => {
    expect(wordsTitle('  Fix the **parser**\nin `src/parse.ts` please, it drops commas')).toBe(
      'Fix the parser in src/parse.ts please…',
    )
    expect(wordsTitle('hi')).toBe('hi')
    expect(wordsTitle('```\ncode only\n```')).toBeUndefined()
    expect(wordsTitle('a'.repeat(100))).toHaveLength(48)
    expect(cleanTitle('<think>Hmm, a title.</think>\n"Parser Comma Fix."')).toBe('Parser Comma Fix')
    expect(cleanTitle('Title: **Faster builds**!')).toBe('Faster builds')
    expect(cleanTitle('<think>never closed')).toBeUndefined()
    expect(cleanTitle('x'.repeat(200))).toBeUndefined()
  })
})

describe('session titles', () => {
  it("logs the first words at once, then the model's title, asked outside the script", async () => {
    await start({ script: ['The parser drops commas.', 'Fixed.'], title: '"Parser comma bug."' })
    const sessionId = newSession()
    await send(sessionId, 'Why does the parser drop commas in lists?', 1)
    await waitFor(() => titles(sessionId).length === 2, 'two titles')
    expect(titles(sessionId)).toEqual([
      { title: 'Why does the parser drop commas…', source: 'words' },
      { title: 'Parser comma bug', source: 'auto' },
    ])
    expect(store.getSession(sessionId)?.title).toBe('Parser comma bug')
    expect(changed).toContain(sessionId)

    const [asked] = server.titleRequests
    const body = asked?.body as Record<string, unknown>
    expect((body['messages'] as { content: string }[])[0]?.content).toBe(TITLE_SYSTEM_PROMPT)
    expect(body['tools']).toBeUndefined()
    expect(body['max_tokens'] ?? body['max_completion_tokens']).toBe(64)
    expect(asked?.rawBody).toContain('The parser drops commas.')

    // Asked once; and the titles are never part of what the model is sent.
    await send(sessionId, 'Fix it', 2)
    expect(server.titleRequests).toHaveLength(1)
    expect(chatRequests(server)).toHaveLength(2)
    expect(chatRequests(server)[1]?.rawBody).not.toContain('Parser comma bug')
    expect(chatRequests(server)[1]?.rawBody).not.toContain(TITLE_SYSTEM_PROMPT)
  })

  it('never replaces a rename, even with a title request already in flight', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await start({ script: ['Answer.'], title: { steps: [{ text: 'Model title' }], wait: held } })
    const sessionId = newSession()
    await send(sessionId, 'First words here', 1)
    await waitFor(() => server.titleRequests.length === 1, 'the title request')
    const session = service.session(sessionId)
    session.append('session/title', { title: 'Mine', source: 'user' })
    await session.flush()
    release()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(titles(sessionId).map((t) => t.source)).toEqual(['words', 'user'])
  })

  it("titles a fork from its own first message, not the parent's title", async () => {
    await start({ script: ['One.', 'Two.'], title: 'Parent topic' })
    const parentId = newSession()
    await send(parentId, 'Parent question about caching', 1)
    await waitFor(() => store.getSession(parentId)?.title === 'Parent topic', 'the parent title')
    const forkId = forkSession(store, parentId, store.getSession(parentId)?.nextSeq ?? 0)
    expect(store.getSession(forkId)?.title).toBeNull()
    await send(forkId, 'Branch question about eviction', 1)
    await waitFor(() => titles(forkId).length === 2, 'the fork titles')
    expect(titles(forkId)[0]).toEqual({ title: 'Branch question about eviction', source: 'words' })
    expect(store.getSession(forkId)?.title).toBe('Parent topic')
    expect(server.titleRequests[1]?.rawBody).toContain('Branch question about eviction')
    expect(server.titleRequests[1]?.rawBody).not.toContain('Parent question')
  })

  it('fails silently: the words title stays, nothing is logged about it', async () => {
    await start({
      script: ['Answer.'],
      title: { status: 500, body: { error: { message: 'down' } } },
    })
    const sessionId = newSession()
    await send(sessionId, 'Words stay', 1)
    await waitFor(() => server.titleRequests.length === 1, 'the title request')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(titles(sessionId)).toEqual([{ title: 'Words stay', source: 'words' }])
    expect(
      storedEvents(sessionId).filter((e) => e.type === 'error' || e.type === 'notice'),
    ).toEqual([])
  })

  it('never delays a turn: turns run and end while the title request hangs', async () => {
    await start({
      script: ['One.', 'Two.'],
      title: { steps: [{ text: 'never' }], wait: new Promise(() => {}) },
    })
    const sessionId = newSession()
    await send(sessionId, 'First', 1)
    await waitFor(() => server.titleRequests.length === 1, 'the title request')
    await send(sessionId, 'Second', 2)
    expect(
      storedEvents(sessionId)
        .filter((e) => e.type === 'turn/end')
        .map((e) => e.data),
    ).toEqual([{ reason: 'completed' }, { reason: 'completed' }])
    // Closing abandons the request rather than waiting its 30 s.
    const closing = Date.now()
    await service.close()
    expect(Date.now() - closing).toBeLessThan(5_000)
  })
})

describe('session/model', () => {
  it('switches the model of the next turn, logged in the session', async () => {
    await start({ script: ['One.', 'Two.'] })
    const sessionId = newSession()
    await send(sessionId, 'First', 1)
    await service.switchModel(sessionId, { endpointId: 'local', model: 'other-model' })
    await send(sessionId, 'Second', 2)
    const models = chatRequests(server).map((r) => (r.body as { model: string }).model)
    expect(models).toEqual(['scripted', 'other-model'])
    const switched = storedEvents(sessionId).find((e) => e.type === 'session/model')
    expect(switched?.data).toEqual({ endpointId: 'local', model: 'other-model' })
    const starts = storedEvents(sessionId).flatMap((e) => (e.type === 'request/start' ? [e] : []))
    expect(starts.map((e) => e.data.model)).toEqual(['scripted', 'other-model'])
  })
})
