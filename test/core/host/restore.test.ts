import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { methods, notifications } from '../../../protocol/contract.js'
import type { NotificationOf, ParamsOf, ResultOf, TopicName } from '../../../protocol/contract.js'
import type { CallContext } from '../../../main/core/host/host.js'
import { createRuntime } from '../../../main/core/host/runtime/runtime.js'
import type { ModelChoice, RuntimeMethods } from '../../../main/core/host/services.js'
import { Config } from '../../../main/core/host/settings/config.js'
import { Session } from '../../../main/core/log/index.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

let home: string
let project: string
let store: Store
let server: ModelServer
let runtime: ReturnType<typeof createRuntime>
let events: NotificationOf<'session/event'>['event'][]

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-restore-host-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  store = openStore(databasePath(home))
  server = await startModelServer()
  events = []
  const config = Config.parse({ approval: 'full-auto' })
  runtime = createRuntime(
    {
      home,
      store,
      notify: <T extends TopicName>(topic: T, payload: NotificationOf<T>) => {
        notifications[topic].parse(payload)
        if (topic === 'session/event')
          events.push((payload as NotificationOf<'session/event'>).event)
      },
    },
    {
      current: () => config,
      defaults: () => ({}),
      resolveModel: (ref) =>
        Promise.resolve<ModelChoice>({
          endpointId: ref.endpointId ?? 'local',
          baseUrl: server.url,
          adapter: createOpenAiCompatibleAdapter({ baseUrl: server.url }),
          model: ref.model ?? 'scripted',
        }),
      rememberApprovalRule: () => undefined,
      revision: () => 0,
      probeReport: () => undefined,
    },
  )
})

afterEach(async () => {
  await runtime.service.close()
  await server.close()
  store.close()
  rmSync(home, { recursive: true, force: true })
})

/** A runtime method as the bridge calls it: params parsed, the result checked by the contract. */
async function call<M extends RuntimeMethods>(
  method: M,
  params: ParamsOf<M>,
): Promise<ResultOf<M>> {
  const handler = runtime.handlers[method] as (p: unknown, c: CallContext) => unknown
  const value = await handler(methods[method].params.parse(params), { transport: 'in-process' })
  return methods[method].result.parse(value) as ResultOf<M>
}

async function codeOf<M extends RuntimeMethods>(method: M, params: ParamsOf<M>): Promise<string> {
  return call(method, params).then(
    () => 'no error',
    (error: unknown) => (error as { code: string }).code,
  )
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

const write = (id: string, path: string, content: string) => ({
  steps: [
    { toolCall: { id, name: 'write', args: JSON.stringify({ path, content }) } },
    { finish: 'tool_calls' },
  ],
})

/** Sends one message whose turn writes `path`, and waits for the turn and the run to end. */
async function turnWriting(sessionId: string, n: number, path: string, content: string) {
  server.enqueue(write(`c${n}`, path, content))
  server.enqueue('Written.')
  await call('turn/send', { sessionId, requestId: `r${n}`, text: `write ${path}` })
  const end = await waitFor(
    () => events.filter((e) => e.type === 'turn/end')[n - 1],
    `turn/end #${n}`,
  )
  await waitFor(() => !runtime.service.isRunning(sessionId), 'the run to settle')
  return end.seq
}

const read = (path: string) => readFileSync(join(project, path), 'utf8')

describe('workspace/restore and workspace/undoRestore on the bridge', () => {
  it('restores, stops on drift, goes ahead with force and undoes; the events are forwarded', async () => {
    const created = Session.create(store, { projectDir: project, model: 'scripted' })
    created.close()
    const sessionId = created.id
    const turn1 = await turnWriting(sessionId, 1, 'a.txt', 'one\n')
    await turnWriting(sessionId, 2, 'a.txt', 'two\n')
    await turnWriting(sessionId, 3, 'b.txt', 'bee\n')

    expect(await call('workspace/restore', { sessionId, toSeq: turn1, dryRun: true })).toEqual({
      status: 'planned',
      written: ['a.txt'],
      removed: ['b.txt'],
      skipped: [],
      drifted: [],
    })
    expect(read('a.txt')).toBe('two\n')
    const restored = await call('workspace/restore', { sessionId, toSeq: turn1 })
    expect(restored).toMatchObject({ status: 'restored', written: ['a.txt'], removed: ['b.txt'] })
    expect(read('a.txt')).toBe('one\n')
    expect(events.at(-1)).toMatchObject({ type: 'workspace/restored', turn: 0 })

    writeFileSync(join(project, 'a.txt'), 'by hand\n')
    expect(await call('workspace/undoRestore', { sessionId })).toEqual({
      status: 'drifted',
      drifted: ['a.txt'],
    })
    expect(read('a.txt')).toBe('by hand\n')
    const undone = await call('workspace/undoRestore', { sessionId, force: true })
    expect(undone).toMatchObject({
      status: 'restored',
      written: ['a.txt', 'b.txt'],
      drifted: ['a.txt'],
    })
    expect(read('a.txt')).toBe('two\n')
    expect(read('b.txt')).toBe('bee\n')
    expect(events.at(-1)).toMatchObject({ type: 'workspace/restore-undone' })

    expect(await codeOf('workspace/undoRestore', { sessionId })).toBe('NOT_FOUND')
    expect(await codeOf('workspace/restore', { sessionId, toSeq: 10_000 })).toBe('NOT_FOUND')
  }, 30_000)

  it('is refused with CONFLICT while a turn runs', async () => {
    const created = Session.create(store, { projectDir: project, model: 'scripted' })
    created.close()
    const sessionId = created.id
    const turn1 = await turnWriting(sessionId, 1, 'a.txt', 'one\n')
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    server.enqueue({ steps: [{ wait: held }, { text: 'Slow answer.' }] })
    await call('turn/send', { sessionId, requestId: 'r2', text: 'take your time' })
    await waitFor(() => events.some((e) => e.type === 'request/start' && e.turn === 2), 'turn 2')
    expect(await codeOf('workspace/restore', { sessionId, toSeq: turn1 })).toBe('CONFLICT')
    release()
    await waitFor(() => !runtime.service.isRunning(sessionId), 'the run to settle')
    expect((await call('workspace/restore', { sessionId, toSeq: 0 })).status).toBe('restored')
  }, 30_000)
})
