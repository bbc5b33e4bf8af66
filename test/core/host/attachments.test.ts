import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { methods } from '../../../protocol/contract.js'
import type { ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { MAX_FILE_ATTACHMENT_BYTES } from '../../../protocol/attachments.js'
import { Config } from '../../../main/core/host/settings/config.js'
import { HostError } from '../../../main/core/host/host.js'
import type { CallContext } from '../../../main/core/host/host.js'
import { createRuntime } from '../../../main/core/host/runtime/runtime.js'
import type { SettingsService } from '../../../main/core/host/services.js'
import { Session } from '../../../main/core/log/index.js'
import { toWireMessage } from '../../../main/core/models/chat-request.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

/** One pixel of PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

let home: string
let project: string
let store: Store
let server: ModelServer
let config: Config
let runtime: ReturnType<typeof createRuntime>

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-attach-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  store = openStore(databasePath(home))
  server = await startModelServer()
  config = Config.parse({ approval: 'ask' })
  const settings: SettingsService = {
    current: () => config,
    defaults: () => ({}),
    resolveModel: (ref) =>
      Promise.resolve({
        endpointId: ref.endpointId ?? 'local',
        baseUrl: server.url,
        adapter: createOpenAiCompatibleAdapter({ baseUrl: server.url }),
        model: ref.model ?? 'scripted',
      }),
    rememberApprovalRule: () => undefined,
    revision: () => 0,
    probeReport: () => undefined,
  }
  runtime = createRuntime({ home, store, notify: () => undefined }, settings)
})

afterEach(async () => {
  await runtime.service.close()
  await server.close()
  store.close()
  rmSync(home, { recursive: true, force: true })
})

function newSession(model = 'scripted'): string {
  const session = Session.create(store, { projectDir: project, model, endpoint: 'local' })
  session.close()
  return session.id
}

async function send(params: ParamsOf<'turn/send'>): Promise<ResultOf<'turn/send'>> {
  const parsed: unknown = methods['turn/send'].params.parse(params)
  const handler = runtime.handlers['turn/send'] as (p: unknown, c: CallContext) => unknown
  return methods['turn/send'].result.parse(await handler(parsed, { transport: 'in-process' }))
}

async function refusal(params: ParamsOf<'turn/send'>): Promise<HostError> {
  const error: unknown = await send(params).then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!(error instanceof HostError)) throw new Error(`expected a HostError, got ${String(error)}`)
  return error
}

async function idle(sessionId: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (runtime.service.isRunning(sessionId)) {
    if (Date.now() > deadline) throw new Error('the turn did not end')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const storedEvents = (sessionId: string) => {
  const session = Session.open(store, sessionId, { mode: 'read' })
  try {
    return { events: session.slice(), messages: session.deriveMessages() }
  } finally {
    session.close()
  }
}

describe('attachments on turn/send', () => {
  it('logs a file as read at send time and sends it as a <file> block, re-derived byte for byte', async () => {
    mkdirSync(join(project, 'src'))
    writeFileSync(join(project, 'src', 'notes.md'), 'alpha\nbeta\n')
    server.enqueue({ steps: [{ text: 'Read it.' }] })
    const sessionId = newSession()
    const sent = await send({
      sessionId,
      requestId: 'r1',
      text: 'summarise this',
      attachments: [{ kind: 'file', path: 'src/notes.md' }],
    })
    expect(sent.accepted).toBe(true)
    // Changed after sending: the log keeps what was read then.
    writeFileSync(join(project, 'src', 'notes.md'), 'changed\n')
    await idle(sessionId)

    const { events, messages } = storedEvents(sessionId)
    const queued = events.find((e) => e.type === 'inbox/queued')
    const user = events.find((e) => e.type === 'user/message' && e.data.kind === 'input')
    const file = { kind: 'file', path: 'src/notes.md', text: 'alpha\nbeta\n' }
    expect(queued?.data).toMatchObject({ attachments: [file] })
    expect(user?.data).toMatchObject({ content: 'summarise this', attachments: [file] })

    const [request] = chatRequests(server)
    const body = request?.body as { messages: { role: string; content: unknown }[] }
    const sentUser = body.messages.findLast((m) => m.role === 'user')
    expect(sentUser?.content).toBe(
      'summarise this\n\n<file path="src/notes.md">\nalpha\nbeta\n</file>',
    )
    // Everything the model was sent, rebuilt from the log alone (the reply left out).
    const rebuilt = messages.filter((m) => m.role !== 'assistant').map((m) => toWireMessage(m))
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(body.messages))
  })

  it('sends an image to a vision model as an image_url part with a data URL', async () => {
    server.enqueue({ steps: [{ text: 'A pixel.' }] })
    const sessionId = newSession('llava:7b')
    await send({
      sessionId,
      requestId: 'r1',
      text: 'what is this?',
      attachments: [{ kind: 'image', mime: 'image/png', data: PNG }],
    })
    await idle(sessionId)
    const body = chatRequests(server)[0]?.body as { messages: { role: string; content: unknown }[] }
    expect(body.messages.findLast((m) => m.role === 'user')?.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ])
    const { messages } = storedEvents(sessionId)
    const rebuilt = messages.filter((m) => m.role !== 'assistant').map((m) => toWireMessage(m))
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(body.messages))
  })

  it('refuses images for a model not known to take them, with how to say it does', async () => {
    const sessionId = newSession('scripted')
    const image = { kind: 'image' as const, mime: 'image/png' as const, data: PNG }
    const error = await refusal({ sessionId, requestId: 'r1', text: 'look', attachments: [image] })
    expect(error.code).toBe('ATTACHMENT_REFUSED')
    expect(error.message).toContain(
      'scripted does not accept images; remove the image or pick a model that does',
    )
    expect(error.message).toContain('"vision": true')
    expect(storedEvents(sessionId).events.some((e) => e.type === 'inbox/queued')).toBe(false)

    // The per-model setting says yes: the same image goes.
    config = Config.parse({
      approval: 'ask',
      endpoints: { local: { baseUrl: server.url, models: { scripted: { vision: true } } } },
    })
    server.enqueue({ steps: [{ text: 'Seen.' }] })
    expect(await send({ sessionId, requestId: 'r2', text: 'look', attachments: [image] })).toEqual({
      accepted: true,
    })
    await idle(sessionId)
  })

  it('refuses paths outside the project, through a symlink too, binary files and big files', async () => {
    const outside = join(home, 'secret.txt')
    writeFileSync(outside, 'secret')
    symlinkSync(outside, join(project, 'link.txt'))
    writeFileSync(join(project, 'blob.bin'), Buffer.from([1, 0, 2, 3]))
    writeFileSync(join(project, 'big.txt'), 'x'.repeat(MAX_FILE_ATTACHMENT_BYTES + 1))
    const sessionId = newSession()
    const attempt = (path: string, requestId: string) =>
      refusal({ sessionId, requestId, text: 'see', attachments: [{ kind: 'file', path }] })

    expect((await attempt('../secret.txt', 'r1')).code).toBe('INVALID_PATH')
    expect((await attempt(outside, 'r2')).code).toBe('INVALID_PATH')
    expect((await attempt('link.txt', 'r3')).code).toBe('INVALID_PATH')
    expect((await attempt('missing.txt', 'r4')).code).toBe('INVALID_PATH')
    const binary = await attempt('blob.bin', 'r5')
    expect(binary.code).toBe('ATTACHMENT_REFUSED')
    expect(binary.message).toContain('binary')
    const big = await attempt('big.txt', 'r6')
    expect(big.code).toBe('ATTACHMENT_REFUSED')
    expect(big.message).toContain('at most 256 KB')
    // Nothing refused reached the log, so nothing refused can reach the model.
    expect(storedEvents(sessionId).events.map((e) => e.type)).toEqual(['session/created'])
  })

  it('refuses more attachments than a message can carry, before the host sees them', () => {
    const attachments = Array.from({ length: 9 }, () => ({ kind: 'file' as const, path: 'a' }))
    const parsed = methods['turn/send'].params.safeParse({
      sessionId: 's',
      requestId: 'r',
      text: 't',
      attachments,
    })
    expect(parsed.success).toBe(false)
  })
})
