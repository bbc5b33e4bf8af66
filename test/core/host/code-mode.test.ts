import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { methods, notifications } from '../../../protocol/contract.js'
import type { NotificationOf, ParamsOf, ResultOf, TopicName } from '../../../protocol/contract.js'
import { Config } from '../../../main/core/host/settings/config.js'
import { HostError } from '../../../main/core/host/host.js'
import type { CallContext } from '../../../main/core/host/host.js'
import { createRuntime } from '../../../main/core/host/runtime/runtime.js'
import type {
  ModelChoice,
  RuntimeMethods,
  SettingsService,
} from '../../../main/core/host/services.js'
import { Session } from '../../../main/core/log/index.js'
import type { LogEvent } from '../../../main/core/log/index.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

// session/setCodeMode through the runtime's handler, a real SQLite log and the scripted server:
// what the next request offers is what the log's last switch says.

let home: string
let project: string
let store: Store
let server: ModelServer
let heard: { topic: TopicName; payload: unknown }[]
let runtime: ReturnType<typeof createRuntime>

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-code-switch-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  store = openStore(databasePath(home))
  server = await startModelServer()
  heard = []
  runtime = createRuntime(
    {
      home,
      store,
      notify: <T extends TopicName>(topic: T, payload: NotificationOf<T>) => {
        notifications[topic].parse(payload)
        heard.push({ topic, payload })
      },
    },
    fakeSettings(server),
  )
})

afterEach(async () => {
  await runtime.service.close()
  await server.close()
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

/** Calls a runtime method as the bridge would: params parsed, result checked by the contract. */
async function call<M extends RuntimeMethods>(
  method: M,
  params: ParamsOf<M>,
): Promise<ResultOf<M>> {
  const parsed: unknown = methods[method].params.parse(params)
  const handler = runtime.handlers[method] as (p: unknown, c: CallContext) => unknown
  const value = await handler(parsed, { transport: 'in-process' })
  return methods[method].result.parse(value) as ResultOf<M>
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

const forwarded = (sessionId: string): NotificationOf<'session/event'>['event'][] =>
  heard.flatMap(({ topic, payload }) => {
    if (topic !== 'session/event') return []
    const note = payload as NotificationOf<'session/event'>
    return note.sessionId === sessionId ? [note.event] : []
  })

async function turn(sessionId: string, requestId: string, count: number): Promise<void> {
  expect(await call('turn/send', { sessionId, requestId, text: requestId })).toEqual({
    accepted: true,
  })
  await waitFor(
    () => forwarded(sessionId).filter((e) => e.type === 'turn/end')[count - 1],
    `turn/end #${count}`,
  )
  await waitFor(() => !runtime.service.isRunning(sessionId), 'the run to settle')
}

const offered = (index: number): string[] => {
  const body = chatRequests(server)[index]?.body as { tools?: { function: { name: string } }[] }
  return body.tools?.map((tool) => tool.function.name) ?? []
}

function storedEvents(sessionId: string): LogEvent[] {
  const session = Session.open(store, sessionId, { mode: 'read' })
  const events = session.slice()
  session.close()
  return events
}

const switches = (sessionId: string) =>
  storedEvents(sessionId).flatMap((e) => (e.type === 'session/code-mode' ? [e.data.on] : []))

describe('session/setCodeMode', () => {
  it('an idle session switched on offers run_code in its next request; off removes it', async () => {
    server.enqueue('Plain.')
    server.enqueue('With code.')
    server.enqueue('Plain again.')
    const sessionId = newSession()
    await turn(sessionId, 'r1', 1)
    expect(offered(0)).not.toContain('run_code')

    expect(await call('session/setCodeMode', { sessionId, on: true })).toEqual({ on: true })
    await turn(sessionId, 'r2', 2)
    expect(offered(1)).toContain('run_code')
    const system = (chatRequests(server)[1]?.body as { messages: { content: string }[] })
      .messages[0]?.content
    expect(system).toContain('Code mode:')

    expect(await call('session/setCodeMode', { sessionId, on: false })).toEqual({ on: false })
    await turn(sessionId, 'r3', 3)
    expect(offered(2)).not.toContain('run_code')
    expect(offered(2)).toContain('read')

    // Each switch is in the log, outside turns, and was forwarded to the renderer.
    expect(switches(sessionId)).toEqual([true, false])
    const logged = storedEvents(sessionId).filter((e) => e.type === 'session/code-mode')
    expect(forwarded(sessionId).filter((e) => e.type === 'session/code-mode')).toHaveLength(2)
    for (const event of logged) {
      const end = storedEvents(sessionId).findLast(
        (e) => e.seq < event.seq && (e.type === 'turn/end' || e.type === 'turn/start'),
      )
      expect(end?.type).toBe('turn/end')
    }
  })

  it('logs nothing for a switch that changes nothing', async () => {
    const sessionId = newSession()
    expect(await call('session/setCodeMode', { sessionId, on: false })).toEqual({ on: false })
    expect(await call('session/setCodeMode', { sessionId, on: true })).toEqual({ on: true })
    expect(await call('session/setCodeMode', { sessionId, on: true })).toEqual({ on: true })
    expect(switches(sessionId)).toEqual([true])
  })

  it('a running turn keeps its tools; the next turn has the new mode', async () => {
    // The turn waits on an approval (ask mode, a write): the switch comes while it runs.
    server.enqueue({
      steps: [
        {
          toolCall: {
            id: 'w1',
            name: 'write',
            args: JSON.stringify({ path: 'x.txt', content: 'x' }),
          },
        },
        { finish: 'tool_calls' },
      ],
    })
    server.enqueue('Refused, fine.')
    server.enqueue('Now with code.')
    const sessionId = newSession()
    await call('turn/send', { sessionId, requestId: 'r1', text: 'write it' })
    await waitFor(
      () => forwarded(sessionId).find((e) => e.type === 'approval/requested'),
      'the approval request',
    )
    expect(await call('session/setCodeMode', { sessionId, on: true })).toEqual({ on: true })
    await call('approval/respond', { sessionId, callId: 'w1', decision: 'deny' })
    await waitFor(() => forwarded(sessionId).find((e) => e.type === 'turn/end'), 'turn/end')
    await waitFor(() => !runtime.service.isRunning(sessionId), 'the run to settle')
    expect(offered(0)).not.toContain('run_code')
    expect(offered(1)).not.toContain('run_code')
    await turn(sessionId, 'r2', 2)
    expect(offered(2)).toContain('run_code')
  })

  it('a program of the switched-on session reads files through inner calls', async () => {
    writeFileSync(join(project, 'a.txt'), 'alpha\n')
    server.enqueue({
      steps: [
        {
          toolCall: {
            id: 'p1',
            name: 'run_code',
            args: JSON.stringify({ code: "return await tools.read({ path: 'a.txt' })" }),
          },
        },
        { finish: 'tool_calls' },
      ],
    })
    server.enqueue('Done.')
    const sessionId = newSession()
    await call('session/setCodeMode', { sessionId, on: true })
    await turn(sessionId, 'r1', 1)
    const calls = storedEvents(sessionId).flatMap((e) => (e.type === 'tool/call' ? [e.data] : []))
    expect(calls.map((c) => [c.callId, c.name, c.parent?.callId])).toEqual([
      ['p1', 'run_code', undefined],
      ['p1.1', 'read', 'p1'],
    ])
  })

  it('refuses an unknown session with NOT_FOUND in plain words', async () => {
    const error = await call('session/setCodeMode', { sessionId: 'nope', on: true }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HostError)
    expect((error as HostError).code).toBe('NOT_FOUND')
    expect((error as HostError).message).toBe('no session nope')
  })
})
