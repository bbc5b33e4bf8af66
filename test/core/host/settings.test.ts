import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NotificationOf, Result, TopicName } from '../../../protocol/contract.js'
import { boot, dispatchCall, HostError } from '../../../main/core/host/index.js'
import type { BootOptions, Host } from '../../../main/core/host/index.js'
import type { HostContext, SecretBox, SettingsService } from '../../../main/core/host/services.js'
import { createSettings, NO_ENDPOINT_MESSAGE } from '../../../main/core/host/settings/service.js'
import type { SettingsOptions } from '../../../main/core/host/settings/service.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { closedPort, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer, ModelServerOptions } from '../../fixtures/model-server/server.js'

const KEY = 'sk-test-Very-Secret-Key-0123456789'

let home: string
let host: Host | undefined
let store: Store | undefined
let server: ModelServer | undefined
let notes: { topic: TopicName; payload: unknown }[]

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-settings-'))
  notes = []
})

afterEach(async () => {
  await host?.close()
  store?.close()
  await server?.close()
  host = undefined
  store = undefined
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

async function start(opts: Partial<BootOptions> = {}): Promise<Host> {
  host = await boot({ home, version: '1.0.0', versions: {}, env: {}, ...opts })
  host.onNotification(<T extends TopicName>(topic: T, payload: NotificationOf<T>) =>
    notes.push({ topic, payload }),
  )
  return host
}

/** The settings service itself, for what the bridge does not expose (resolveModel). */
function settingsService(opts: Partial<SettingsOptions> = {}): SettingsService {
  store = openStore(databasePath(home))
  const ctx: HostContext = {
    home,
    store,
    notify: <T extends TopicName>(topic: T, payload: NotificationOf<T>) =>
      void notes.push({ topic, payload }),
  }
  return createSettings(ctx, { env: {}, ...opts }).service
}

async function call(method: string, params: unknown = {}): Promise<Result<unknown>> {
  if (host === undefined) throw new Error('start() the host first')
  return dispatchCall(host, method, params, { transport: 'in-process' })
}

async function value<T = Record<string, unknown>>(
  method: string,
  params: unknown = {},
): Promise<T> {
  const result = await call(method, params)
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as T
}

async function failure(method: string, params: unknown = {}) {
  const result = await call(method, params)
  if (result.ok) throw new Error(`${method} unexpectedly succeeded`)
  return result.error
}

const configFile = () => join(home, 'config.json')
const writeConfig = (config: unknown) => writeFileSync(configFile(), JSON.stringify(config))
const credentialsFile = () => join(home, 'credentials.json')

async function modelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  server = await startModelServer(options)
  return server
}

interface View {
  config: Record<string, unknown>
  endpoints: { id: string; isDefault: boolean; key: string; apiKeyEnv?: string }[]
  path: string
}

describe('settings/get and settings/update', () => {
  it('returns the defaults when there is no config.json', async () => {
    await start()
    const view = await value<View>('settings/get')
    expect(view.config).toMatchObject({
      endpoints: {},
      approval: 'ask',
      approvalRules: [],
      compaction: { threshold: 0.8, keepUserTurns: 2, prune: { keepSteps: 4, minBytes: 4096 } },
    })
    expect(view.endpoints).toEqual([])
    expect(view.path).toBe(configFile())
  })

  it('writes what was given (not the defaults) and announces settings/changed', async () => {
    await start()
    const config = {
      endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
      defaultEndpoint: 'local',
      approval: 'auto-edit',
    }
    const view = await value<View>('settings/update', { config })
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual(config)
    expect(view.endpoints).toEqual([
      { id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', isDefault: true, key: 'none' },
    ])
    expect(notes).toEqual([{ topic: 'settings/changed', payload: view }])
    expect(await value('settings/get')).toEqual(view)
  })

  it('sent back whole (as the settings UI does), untouched defaults stay out of the file', async () => {
    writeConfig({ approval: 'ask' })
    await start()
    const { config } = await value<{ config: Record<string, unknown> }>('settings/get')
    const edited = { ...config, endpoints: { local: { baseUrl: 'http://127.0.0.1:8080/v1' } } }
    await value('settings/update', { config: edited })
    // `approval` was in the file (kept even at its default); compaction and the rest were not.
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({
      endpoints: { local: { baseUrl: 'http://127.0.0.1:8080/v1' } },
      approval: 'ask',
    })
    const changed = { ...edited, compaction: { threshold: 0.6, keepUserTurns: 2, prune: false } }
    await value('settings/update', { config: changed })
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toMatchObject({
      compaction: { threshold: 0.6, prune: false },
    })
  })

  it('refuses a bad base URL with its field path and writes nothing', async () => {
    writeConfig({ approval: 'full-auto' })
    const before = readFileSync(configFile(), 'utf8')
    await start()
    const error = await failure('settings/update', {
      config: { endpoints: { local: { baseUrl: 'localhost:11434' } } },
    })
    expect(error.code).toBe('INVALID_SETTINGS')
    expect(error.fields?.[0]?.path).toBe('endpoints.local.baseUrl')
    expect(error.fields?.[0]?.message).toMatch(/http\(s\) URL/)
    expect(readFileSync(configFile(), 'utf8')).toBe(before)
    expect(notes).toEqual([])
  })

  it('refuses a key in config.json, pointing at the credential store, without echoing it', async () => {
    await start()
    const error = await failure('settings/update', {
      config: { endpoints: { remote: { baseUrl: 'https://api.example.com/v1', apiKey: KEY } } },
    })
    expect(error.code).toBe('INVALID_SETTINGS')
    expect(error.fields).toEqual([
      {
        path: 'endpoints.remote.apiKey',
        message: expect.stringMatching(/API keys never go in config\.json/),
      },
    ])
    expect(JSON.stringify(error)).not.toContain(KEY)
    expect(existsSync(configFile())).toBe(false)
  })

  it('refuses a default endpoint that does not exist', async () => {
    await start()
    const error = await failure('settings/update', {
      config: {
        endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
        defaultEndpoint: 'lcoal',
      },
    })
    expect(error.fields).toEqual([
      { path: 'defaultEndpoint', message: expect.stringContaining('local') },
    ])
  })

  it("refuses a project's default endpoint that does not exist, at the project's field", async () => {
    await start()
    const project = join(home, 'app')
    const error = await failure('settings/update', {
      config: {
        endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
        projects: { [project]: { endpoint: 'studio', model: 'gemma-3' } },
      },
    })
    expect(error.fields).toEqual([
      { path: `projects.${project}.endpoint`, message: expect.stringContaining('local') },
    ])
    expect(existsSync(configFile())).toBe(false)
  })

  it('reports a broken config.json as INVALID_SETTINGS with the field, and can replace it', async () => {
    writeConfig({ endpoints: { local: { baseUrl: 'nope' } } })
    await start()
    const error = await failure('settings/get')
    expect(error.code).toBe('INVALID_SETTINGS')
    expect(error.fields?.[0]?.path).toBe('endpoints.local.baseUrl')
    await value('settings/update', { config: { endpoints: {} } })
    expect((await value<View>('settings/get')).endpoints).toEqual([])
  })

  it("removing an endpoint deletes its stored key; the other endpoints' keys stay", async () => {
    writeConfig({
      endpoints: {
        remote: { baseUrl: 'https://api.example.com/v1' },
        other: { baseUrl: 'https://api.other.example/v1' },
      },
    })
    await start()
    await value('credential/set', { endpointId: 'remote', value: KEY })
    await value('credential/set', { endpointId: 'other', value: `${KEY}-other` })
    await value('settings/update', {
      config: { endpoints: { other: { baseUrl: 'https://api.other.example/v1' } } },
    })
    const stored = readFileSync(credentialsFile(), 'utf8')
    expect(stored).not.toContain(`${KEY}"`)
    expect(stored).toContain(`${KEY}-other`)
    expect((await value<View>('settings/get')).endpoints).toEqual([
      expect.objectContaining({ id: 'other', key: 'stored' }),
    ])
  })

  it('passes the failing fields of invalid params through', async () => {
    await start()
    const error = await failure('credential/set', { endpointId: 'x', value: '' })
    expect(error.code).toBe('INVALID_PARAMS')
    expect(error.fields?.[0]?.path).toBe('value')
  })
})

describe('credentials', () => {
  const remote = { endpoints: { remote: { baseUrl: 'https://api.example.com/v1' } } }

  it('keeps the key in a 0600 file and out of every view, notification and config.json', async () => {
    writeConfig(remote)
    await start()
    expect(await value('credential/set', { endpointId: 'remote', value: KEY })).toEqual({
      endpointId: 'remote',
      stored: true,
    })
    expect(statSync(credentialsFile()).mode & 0o777).toBe(0o600)
    expect(readFileSync(credentialsFile(), 'utf8')).toContain(KEY)

    const view = await value<View>('settings/get')
    expect(view.endpoints).toEqual([
      { id: 'remote', baseUrl: 'https://api.example.com/v1', isDefault: true, key: 'stored' },
    ])
    const list = await value('endpoint/list')
    expect(notes.map((n) => n.topic)).toEqual(['settings/changed'])
    for (const shown of [view, list, ...notes, readFileSync(configFile(), 'utf8')]) {
      expect(JSON.stringify(shown)).not.toContain(KEY)
    }

    expect(await value('credential/delete', { endpointId: 'remote' })).toEqual({
      endpointId: 'remote',
      deleted: true,
    })
    expect((await value<View>('endpoint/list')).endpoints[0]?.key).toBe('none')
    expect(readFileSync(credentialsFile(), 'utf8')).not.toContain(KEY)
    expect((await value('credential/delete', { endpointId: 'remote' }))['deleted']).toBe(false)
    expect(notes).toHaveLength(2)
  })

  it('needs the endpoint to exist before its key is set', async () => {
    await start()
    const error = await failure('credential/set', { endpointId: 'remote', value: KEY })
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain('save the endpoint')
    expect(existsSync(credentialsFile())).toBe(false)
  })

  it('refuses a credentials.json that others can read, saying how to fix it', async () => {
    writeConfig(remote)
    writeFileSync(credentialsFile(), JSON.stringify({ version: 1, keys: {} }))
    chmodSync(credentialsFile(), 0o644)
    await start()
    const error = await failure('credential/set', { endpointId: 'remote', value: KEY })
    expect(error.message).toContain(credentialsFile())
    expect(error.message).toContain('mode 0644')
    expect(error.message).toContain('chmod 600')
    expect(readFileSync(credentialsFile(), 'utf8')).not.toContain(KEY)
  })

  it('reports env keys: present, missing, or none', async () => {
    writeConfig({
      endpoints: {
        a: { baseUrl: 'https://a.example.com/v1', apiKeyEnv: 'A_KEY' },
        b: { baseUrl: 'https://b.example.com/v1', apiKeyEnv: 'B_KEY' },
        c: { baseUrl: 'https://c.example.com/v1' },
      },
    })
    await start({ env: { A_KEY: KEY } })
    const { endpoints } = await value<View>('endpoint/list')
    expect(endpoints.map((e) => [e.id, e.key, e.isDefault])).toEqual([
      ['a', 'env', false],
      ['b', 'env-missing', false],
      ['c', 'none', false],
    ])
    expect(JSON.stringify(endpoints)).not.toContain(KEY)
  })

  it('seals the key with a SecretBox and sends it to the server it was set for', async () => {
    const server = await modelServer({ script: ['hi'] })
    writeConfig({ endpoints: { local: { baseUrl: server.url } } })
    const box = xorBox()
    await start({ secretBox: box })
    await value('credential/set', { endpointId: 'local', value: KEY })
    const file = readFileSync(credentialsFile(), 'utf8')
    expect(file).not.toContain(KEY)
    expect(file).toContain(box.encrypt(KEY).toString('base64'))
    await host?.close()
    host = undefined

    const settings = settingsService({ secretBox: box })
    const choice = await settings.resolveModel({})
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`)
    for await (const part of choice.adapter.stream(
      {
        model: choice.model,
        messages: [{ role: 'user', content: 'hello', seq: 0, kind: 'input' }],
        tools: [],
        params: {},
      },
      AbortSignal.timeout(5000),
    )) {
      if (part.type === 'error') throw new Error(part.error.message)
    }
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`)
  })

  it('does not send a stored key to an endpoint that moved to another server', async () => {
    const server = await modelServer()
    writeConfig({ endpoints: { local: { baseUrl: 'https://api.example.com/v1' } } })
    await start()
    await value('credential/set', { endpointId: 'local', value: KEY })
    await value('settings/update', { config: { endpoints: { local: { baseUrl: server.url } } } })
    expect((await value<View>('endpoint/list')).endpoints[0]?.key).toBe('none')
    const tested = await value('endpoint/test', { endpointId: 'local' })
    expect(tested).toMatchObject({
      ok: false,
      message: expect.stringContaining('set the key again'),
    })
    expect(JSON.stringify(server.requests)).not.toContain(KEY)
  })
})

describe('resolveModel', () => {
  it('takes the only endpoint, the first model it lists and the window it reports', async () => {
    const server = await modelServer({
      models: [{ id: 'scripted', max_model_len: 32768 }, { id: 'other' }],
    })
    writeConfig({ endpoints: { local: { baseUrl: server.url } } })
    const choice = await settingsService().resolveModel({})
    expect(choice).toMatchObject({
      endpointId: 'local',
      baseUrl: server.url,
      model: 'scripted',
      contextWindow: 32768,
    })
  })

  it('takes the window from config.json when the server does not say, and caches the listing', async () => {
    const server = await modelServer({ models: [{ id: 'scripted' }] })
    writeConfig({
      endpoints: { local: { baseUrl: server.url, models: { scripted: { contextWindow: 8192 } } } },
      defaultEndpoint: 'local',
      defaultModel: 'scripted',
    })
    const settings = settingsService()
    expect((await settings.resolveModel({})).contextWindow).toBe(8192)
    expect((await settings.resolveModel({ model: 'scripted' })).contextWindow).toBe(8192)
    expect(server.requests.filter((r) => r.path === '/v1/models')).toHaveLength(1)
  })

  it('says how to get an endpoint when none is configured, and names the unknown one', async () => {
    const settings = settingsService()
    await expect(settings.resolveModel({})).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: NO_ENDPOINT_MESSAGE,
    })
    writeConfig({ endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } } })
    const error: unknown = await settings
      .resolveModel({ endpointId: 'remote' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HostError)
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('local') })
  })

  it('fails with what to do when the key variable is not set', async () => {
    writeConfig({
      endpoints: { remote: { baseUrl: 'https://api.example.com/v1', apiKeyEnv: 'NOPE_KEY' } },
    })
    await expect(settingsService().resolveModel({ model: 'm' })).rejects.toMatchObject({
      code: 'ENDPOINT_FAILED',
      message: expect.stringContaining('NOPE_KEY'),
    })
  })

  it('makes the command-line endpoint the default, with its model and window', async () => {
    const server = await modelServer({ models: [{ id: 'scripted', max_model_len: 32768 }] })
    writeConfig({
      endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
      defaultEndpoint: 'local',
    })
    const modelOverride = { baseUrl: server.url, model: 'scripted', contextWindow: 4096 }
    await start({ modelOverride })
    const { endpoints } = await value<View>('endpoint/list')
    expect(endpoints.map((e) => [e.id, e.isDefault])).toEqual([
      ['cli', true],
      ['local', false],
    ])
    const choice = await settingsService({ modelOverride }).resolveModel({})
    expect(choice).toMatchObject({ endpointId: 'cli', model: 'scripted', contextWindow: 4096 })
    expect((await failure('credential/set', { endpointId: 'cli', value: KEY })).code).toBe(
      'UNSUPPORTED',
    )
    // New sessions get it too, without asking any server.
    expect(settingsService({ modelOverride }).defaults()).toEqual({
      endpointId: 'cli',
      model: 'scripted',
    })
    expect(settingsService().defaults()).toEqual({ endpointId: 'local' })
  })

  it('remembers an approval rule in config.json and announces it', () => {
    writeConfig({ approval: 'ask' })
    const settings = settingsService()
    const rule = { tool: 'bash', prefix: 'npm test', effect: 'allow' as const, project: '/p' }
    settings.rememberApprovalRule(rule)
    settings.rememberApprovalRule(rule)
    expect(JSON.parse(readFileSync(configFile(), 'utf8'))).toEqual({
      approval: 'ask',
      approvalRules: [rule],
    })
    expect(settings.current().approvalRules).toEqual([rule])
    expect(notes.map((n) => n.topic)).toEqual(['settings/changed'])
  })
})

describe('endpoint/test, model/list, endpoint/discover', () => {
  it('lists the models of a live endpoint', async () => {
    const server = await modelServer({ models: [{ id: 'scripted', max_model_len: 32768 }] })
    await start()
    const tested = await value('endpoint/test', { baseUrl: server.url })
    expect(tested).toMatchObject({
      ok: true,
      models: [{ id: 'scripted', contextWindow: 32768 }],
      message: expect.stringContaining('1 model'),
    })
  })

  it('says nothing answered, and what to start, for a dead port', async () => {
    const port = await closedPort()
    await start()
    const tested = await value('endpoint/test', { baseUrl: `http://127.0.0.1:${port}/v1` })
    expect(tested).toMatchObject({
      ok: false,
      models: [],
      message: `nothing answered at http://127.0.0.1:${port}: is the server running, and is the address right?`,
    })
  })

  it('says the server refused the key', async () => {
    const server = await modelServer({
      routes: {
        'GET /v1/models': () => ({ status: 401, body: { error: { message: 'bad key' } } }),
      },
    })
    writeConfig({ endpoints: { local: { baseUrl: server.url } } })
    await start()
    await value('credential/set', { endpointId: 'local', value: KEY })
    const tested = await value('endpoint/test', { endpointId: 'local' })
    expect(tested).toMatchObject({
      ok: false,
      message: expect.stringContaining('the server refused the API key'),
    })
    expect(JSON.stringify(tested)).not.toContain(KEY)
  })

  it('tests an address not saved yet with the key given, and says when the server refuses it', async () => {
    const server = await modelServer({
      routes: {
        'GET /v1/models': () => ({ status: 401, body: { error: { message: 'bad key' } } }),
      },
    })
    await start()
    const tested = await value('endpoint/test', { baseUrl: server.url, apiKey: KEY })
    expect(tested).toMatchObject({
      ok: false,
      message: 'the server refused the key (401): check that it is the whole key, for this server',
    })
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(JSON.stringify(tested)).not.toContain(KEY)
    // Only tried: nothing was saved, neither the endpoint nor its key.
    const settings = await value('settings/get', {})
    expect(settings.endpoints).toEqual([])
  })

  it("lists an Ollama endpoint's models with window and tool support", async () => {
    const show = (body: unknown) => {
      const model = (body as { model?: string }).model
      return {
        body: {
          capabilities: model === 'qwen3:8b' ? ['completion', 'tools'] : ['completion'],
          model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 },
        },
      }
    }
    const server = await modelServer({
      models: [
        { id: 'qwen3:8b', owned_by: 'library' },
        { id: 'gemma:2b', owned_by: 'library' },
      ],
      routes: { 'POST /api/show': show },
    })
    writeConfig({ endpoints: { ollama: { baseUrl: server.url } } })
    await start()
    expect(await value('model/list', { endpointId: 'ollama' })).toEqual({
      // Ollama runs its default window unless told otherwise, whatever the model was trained for.
      models: [
        {
          id: 'qwen3:8b',
          contextWindow: 4096,
          contextSource: 'default',
          trainedContext: 40960,
          supportsTools: true,
        },
        {
          id: 'gemma:2b',
          contextWindow: 4096,
          contextSource: 'default',
          trainedContext: 40960,
          supportsTools: false,
        },
      ],
    })
  })

  it('fails model/list with what to do when the endpoint is down', async () => {
    writeConfig({ endpoints: { local: { baseUrl: `http://127.0.0.1:${await closedPort()}/v1` } } })
    await start()
    const error = await failure('model/list', { endpointId: 'local' })
    expect(error.code).toBe('ENDPOINT_FAILED')
    expect(error.message).toContain('nothing answered')
  })

  it('discovers local servers without failing when there are none', async () => {
    await start()
    const { servers } = await value<{ servers: unknown[] }>('endpoint/discover')
    expect(Array.isArray(servers)).toBe(true)
  })
})

/** A stand-in for Electron's safeStorage: XOR with a fixed byte, so sealed != plain. */
function xorBox(): SecretBox {
  const xor = (bytes: Buffer) => Buffer.from(bytes.map((b) => b ^ 0x5a))
  return {
    isAvailable: () => true,
    encrypt: (plain) => xor(Buffer.from(plain, 'utf8')),
    decrypt: (sealed) => xor(sealed).toString('utf8'),
  }
}
