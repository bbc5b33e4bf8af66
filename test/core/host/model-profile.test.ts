/**
 * The Host and what it knows of a model: `model/probe` against personas of real servers, the
 * report kept and listed with the models, and the profile a session talks to its model with,
 * including what a refusal taught, which the next session starts from.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MethodName, NotificationOf, ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import { llamaCppNoJinja, ollamaNew } from '../../fixtures/model-server/persona-catalog.js'
import type { Persona } from '../../fixtures/model-server/personas.js'
import { probeAnswers } from '../../fixtures/model-server/probe-script.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer, ModelServerOptions } from '../../fixtures/model-server/server.js'

let base: string
let home: string
let project: string
let server: ModelServer | undefined
let host: Host | undefined
const heard: { topic: string; payload: unknown }[] = []

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-profile-')))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(project)
  mkdirSync(home)
  writeFileSync(join(project, 'a.txt'), 'hello\n')
})

afterEach(async () => {
  await host?.close()
  await server?.close()
  host = undefined
  server = undefined
  heard.length = 0
  rmSync(base, { recursive: true, force: true })
})

async function startWith(persona: Persona, options: ModelServerOptions): Promise<void> {
  server = await startModelServer({ persona, ...options })
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      endpoints: { local: { baseUrl: server.url } },
      defaultEndpoint: 'local',
      defaultModel: persona.model,
    }),
  )
  host = await boot({ home, version: '0.0.0', versions: {}, env: {} })
  host.onNotification((topic, payload) => heard.push({ topic, payload }))
}

async function call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  if (!host) throw new Error('no host')
  const result = await dispatchCall(host, method, params, { transport: 'in-process' })
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

async function turn(sessionId: string, requestId: string, text: string): Promise<void> {
  const ends = () =>
    heard.filter(({ topic, payload }) => {
      if (topic !== 'session/event') return false
      const note = payload as NotificationOf<'session/event'>
      return note.sessionId === sessionId && note.event.type === 'turn/end'
    }).length
  const before = ends()
  await call('turn/send', { sessionId, requestId, text })
  const deadline = Date.now() + 20_000
  while (ends() === before) {
    if (Date.now() > deadline) throw new Error('the turn did not end')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const readA = { steps: [{ toolCall: { name: 'read', args: '{"path":"a.txt"}' } }] }

describe('model/probe', () => {
  it('probes through the contract, keeps the report, and lists it with the model', async () => {
    await startWith(ollamaNew, { script: [probeAnswers(ollamaNew)], loop: true })
    const { report } = await call('model/probe', { endpointId: 'local', model: 'qwen3:8b' })
    expect(report).toMatchObject({
      model: 'qwen3:8b',
      kind: 'ollama',
      serverVersion: '0.12.3',
      api: 'ollama',
      toolCalls: { streamed: 'structured', chosen: 'native' },
      reasoning: 'thinking',
      context: { verdict: 'cut', honoured: 4096 },
    })
    const { models } = await call('model/list', { endpointId: 'local' })
    // The probe loaded the model: /api/ps now says the window it runs.
    expect(models.find((m) => m.id === 'qwen3:8b')).toMatchObject({
      contextWindow: 4096,
      contextSource: 'server',
      probe: { probedAt: report.probedAt, context: { verdict: 'cut' } },
    })
    // Kept on disk for the CLI and the next start.
    const kept = JSON.parse(readFileSync(join(home, 'capabilities.json'), 'utf8')) as unknown
    expect(kept).toMatchObject({ records: [{ model: 'qwen3:8b', probe: { api: 'ollama' } }] })
  })

  it('fails in words when nothing listens', async () => {
    await startWith(ollamaNew, {})
    await server?.close()
    const result = await dispatchCall(
      host as Host,
      'model/probe',
      { endpointId: 'local', model: 'qwen3:8b' },
      { transport: 'in-process' },
    )
    expect(result).toMatchObject({ ok: false, error: { code: 'ENDPOINT_FAILED' } })
    expect(!result.ok && result.error.message).toContain('nothing answered at')
  })
})

describe("a session's profile", () => {
  it('shows what a refusal taught, and the next session starts from it without asking again', async () => {
    await startWith(llamaCppNoJinja, {
      script: [readA, 'It says hello.', readA, 'Still hello.'],
    })
    const first = await call('session/create', { projectDir: project })
    await turn(first.id, 'r1', 'what is in a.txt?')
    const { profile } = await call('session/get', { sessionId: first.id })
    expect(profile).toMatchObject({
      model: llamaCppNoJinja.model,
      endpointId: 'local',
      serverKind: 'llama.cpp',
      serverVersion: 'b4500-8f1d81a0',
      api: 'openai',
      toolCalls: 'text',
      contextWindow: 8192,
      windowSource: 'server',
    })
    // One refusal (tools need --jinja), then the text mode.
    const sent = chatRequests(server as ModelServer)
    expect(sent.map((r) => (r.body as { tools?: unknown }).tools === undefined)).toEqual([
      false,
      true,
      true,
    ])

    const second = await call('session/create', { projectDir: project })
    await turn(second.id, 'r2', 'and now?')
    const later = chatRequests(server as ModelServer).slice(3)
    expect(later).toHaveLength(2)
    for (const request of later) expect((request.body as { tools?: unknown }).tools).toBeUndefined()
  })

  it('a probe changes how an idle session talks to its model from its next turn', async () => {
    await startWith(llamaCppNoJinja, {
      script: [probeAnswers(llamaCppNoJinja), readA, 'It says hello.'],
    })
    const session = await call('session/create', { projectDir: project })
    const { report } = await call('model/probe', {
      endpointId: 'local',
      model: llamaCppNoJinja.model,
    })
    expect(report.toolCalls).toMatchObject({ streamed: 'refused', asText: 'text', chosen: 'text' })
    const probeRequests = chatRequests(server as ModelServer).length
    // The probe script answers one request per entry: give the turn its own.
    server?.setScript([readA, 'It says hello.'])
    await turn(session.id, 'r1', 'what is in a.txt?')
    const turnRequests = chatRequests(server as ModelServer).slice(probeRequests)
    // No refusal to learn from: the first request already went as text.
    expect(turnRequests).toHaveLength(2)
    for (const request of turnRequests) {
      expect((request.body as { tools?: unknown }).tools).toBeUndefined()
    }
  })
})

describe('a server that was down when the session started', () => {
  it('is looked at again at the next turn: Ollama then gets its native API', async () => {
    await startWith(ollamaNew, { script: [] })
    const port = (server as ModelServer).port
    await server?.close()
    const session = await call('session/create', { projectDir: project })
    await turn(session.id, 'r1', 'hello?')
    const failed = await call('session/events', { sessionId: session.id, types: ['error'] })
    expect(JSON.stringify(failed)).toContain('nothing is listening at')

    server = await startModelServer({ persona: ollamaNew, port, script: ['Hello again.'] })
    await turn(session.id, 'r2', 'hello now?')
    const paths = server.requests.map((r) => `${r.method} ${r.path}`)
    expect(paths).toContain('POST /api/chat')
    expect(paths).not.toContain('POST /v1/chat/completions')
  })
})
