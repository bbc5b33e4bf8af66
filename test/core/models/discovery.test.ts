/**
 * Discovery and model listing against scripted servers on random ports, shaped like each kind
 * of local server, and against a port nothing listens on.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { discoverEndpoints, listModels } from '../../../main/core/models/discovery.js'
import {
  llamaCppJinja,
  lmStudio,
  ollamaNew,
  ollamaOld,
  vllmOld,
} from '../../fixtures/model-server/persona-catalog.js'
import { closedPort, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer, ModelServerOptions } from '../../fixtures/model-server/server.js'

const servers: ModelServer[] = []
async function serve(options: ModelServerOptions): Promise<ModelServer> {
  const server = await startModelServer(options)
  servers.push(server)
  return server
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('discoverEndpoints', () => {
  it('finds a server on a probed port, with the context window from max_model_len', async () => {
    const server = await serve({
      models: [
        { id: 'Qwen/Qwen3-8B', owned_by: 'vllm', max_model_len: 32768 },
        { id: 'other', owned_by: 'vllm' },
      ],
    })
    const port = await closedPort()
    const started = performance.now()
    const found = await discoverEndpoints({ ports: [server.port, port] })
    expect(performance.now() - started).toBeLessThan(900)
    expect(found).toEqual([
      {
        baseUrl: `http://127.0.0.1:${server.port}/v1`,
        kind: 'vllm',
        models: [
          { id: 'Qwen/Qwen3-8B', contextWindow: 32768, contextSource: 'server' },
          { id: 'other' },
        ],
      },
    ])
  })

  it('lists nothing for a closed port', async () => {
    expect(await discoverEndpoints({ ports: [await closedPort()] })).toEqual([])
  })

  it('lists nothing for a port that answers something other than a model list', async () => {
    const server = await serve({
      routes: { 'GET /v1/models': () => ({ body: '<!doctype html><title>dev server</title>' }) },
    })
    expect(await discoverEndpoints({ ports: [server.port] })).toEqual([])
  })

  it('lists nothing for a port that does not answer within the timeout', async () => {
    const server = await serve({
      routes: {
        'GET /v1/models': async () => {
          await new Promise((resolve) => setTimeout(resolve, 1_000))
          return { body: { data: [] } }
        },
      },
    })
    const started = performance.now()
    expect(await discoverEndpoints({ ports: [server.port], timeoutMs: 100 })).toEqual([])
    expect(performance.now() - started).toBeLessThan(600)
  })

  it('lists a server that wants an API key, with the error', async () => {
    const server = await serve({
      routes: {
        'GET /v1/models': () => ({ status: 401, body: { error: { message: 'Missing API key' } } }),
      },
    })
    const [found] = await discoverEndpoints({ ports: [server.port] })
    expect(found).toMatchObject({ kind: 'unknown', models: [], error: { code: 'AUTH_FAILED' } })
    expect(found?.error?.message).toContain('Missing API key')
  })
})

describe('listModels', () => {
  it('reads llama.cpp context from /props, else from meta.n_ctx_train', async () => {
    const models = [{ id: 'qwen3-8b.gguf', owned_by: 'llamacpp', meta: { n_ctx_train: 40960 } }]
    const withProps = await serve({
      models,
      routes: { 'GET /props': () => ({ body: { default_generation_settings: { n_ctx: 8192 } } }) },
    })
    expect(await listModels({ baseUrl: withProps.url })).toEqual({
      ok: true,
      kind: 'llama.cpp',
      models: [
        {
          id: 'qwen3-8b.gguf',
          contextWindow: 8192,
          contextSource: 'server',
          trainedContext: 40960,
        },
      ],
    })
    // Without /props, the trained length is all there is, and it is said to be only that.
    const withoutProps = await serve({ models })
    expect(await listModels({ baseUrl: withoutProps.url })).toMatchObject({
      kind: 'llama.cpp',
      models: [{ id: 'qwen3-8b.gguf', contextWindow: 40960, contextSource: 'advertised' }],
    })
  })

  it('reads LM Studio context from /api/v0/models, the loaded length first', async () => {
    const server = await serve({
      models: [
        { id: 'qwen3-8b', owned_by: 'organization_owner' },
        { id: 'gemma', owned_by: 'organization_owner' },
      ],
      routes: {
        'GET /api/v0/models': () => ({
          body: {
            data: [
              { id: 'qwen3-8b', max_context_length: 40960, loaded_context_length: 4096 },
              { id: 'gemma', max_context_length: 8192 },
            ],
          },
        }),
      },
    })
    expect(await listModels({ baseUrl: server.url })).toEqual({
      ok: true,
      kind: 'lm-studio',
      models: [
        { id: 'qwen3-8b', contextWindow: 4096, contextSource: 'server', trainedContext: 40960 },
        // Not loaded: the maximum, which LM Studio does not load with unless told to.
        { id: 'gemma', contextWindow: 8192, contextSource: 'advertised' },
      ],
    })
  })

  it("reads the window Ollama runs: a Modelfile's num_ctx, else the default of its version", async () => {
    const server = await serve({
      models: [
        { id: 'qwen3:8b', owned_by: 'library' },
        { id: 'custom:latest', owned_by: 'library' },
      ],
      routes: {
        'GET /api/version': () => ({ body: { version: '0.6.2' } }),
        'POST /api/show': (body) => {
          const model = (body as { model?: string }).model
          return {
            body: {
              parameters:
                model === 'custom:latest' ? 'temperature 0.6\nnum_ctx 16384\n' : 'temperature 0.6',
              model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 },
            },
          }
        },
      },
    })
    expect(await listModels({ baseUrl: server.url })).toEqual({
      ok: true,
      kind: 'ollama',
      serverVersion: '0.6.2',
      models: [
        // Not 40,960 (what it was trained for): Ollama 0.6.2 runs 2,048 unless told otherwise.
        { id: 'qwen3:8b', contextWindow: 2048, contextSource: 'default', trainedContext: 40960 },
        {
          id: 'custom:latest',
          contextWindow: 16384,
          contextSource: 'server',
          trainedContext: 40960,
        },
      ],
    })
    const shown = server.requests.filter((r) => r.path === '/api/show').map((r) => r.body)
    expect(shown).toEqual(
      expect.arrayContaining([{ model: 'qwen3:8b' }, { model: 'custom:latest' }]),
    )
  })

  it('sends the API key, and returns failures as data', async () => {
    const server = await serve({ models: [{ id: 'gpt-x' }] })
    expect(await listModels({ baseUrl: server.url, apiKey: 'sk-list-key' })).toEqual({
      ok: true,
      kind: 'unknown',
      models: [{ id: 'gpt-x' }],
    })
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-list-key')

    const port = await closedPort()
    const refused = await listModels({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-list-key',
    })
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'ENDPOINT_UNREACHABLE', isRetryable: true },
    })
    expect(JSON.stringify(refused)).not.toContain('sk-list-key')
  })
})

describe('listModels against personas of real servers', () => {
  it('Ollama 0.12: the 4,096 default until the model is loaded, then what /api/ps says it runs', async () => {
    const server = await serve({ persona: ollamaNew, script: ['hi'] })
    const before = await listModels({ baseUrl: server.url })
    expect(before).toMatchObject({
      ok: true,
      kind: 'ollama',
      serverVersion: '0.12.3',
      models: [
        { id: 'qwen3:8b', contextWindow: 4096, contextSource: 'default', trainedContext: 40960 },
        { id: 'gemma3:4b', contextWindow: 4096, contextSource: 'default' },
      ],
    })
    // Loaded with num_ctx 16384 through the native API: that is the window from now on.
    await fetch(`${server.url.replace('/v1', '')}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'qwen3:8b', messages: [], options: { num_ctx: 16384 } }),
    }).then((r) => r.text())
    const after = await listModels({ baseUrl: server.url })
    expect(after).toMatchObject({
      models: [
        { id: 'qwen3:8b', contextWindow: 16384, contextSource: 'server' },
        { id: 'gemma3:4b' },
      ],
    })
  })

  it('Ollama 0.6: 2,048 by default, with no /api/ps context and no capabilities', async () => {
    const server = await serve({ persona: ollamaOld })
    expect(await listModels({ baseUrl: server.url })).toMatchObject({
      kind: 'ollama',
      serverVersion: '0.6.2',
      models: [{ id: 'qwen3:8b', contextWindow: 2048, contextSource: 'default' }],
    })
  })

  it('llama.cpp, LM Studio and vLLM: the window each runs, and the version where it says', async () => {
    const cases = [
      [llamaCppJinja, { kind: 'llama.cpp', serverVersion: 'b6497-cd08fc3e', window: 8192 }],
      [lmStudio, { kind: 'lm-studio', window: 16384 }],
      [vllmOld, { kind: 'vllm', serverVersion: '0.10.0', window: 32768 }],
    ] as const
    for (const [persona, expected] of cases) {
      const server = await serve({ persona })
      const listed = await listModels({ baseUrl: server.url })
      expect(listed, persona.name).toMatchObject({
        ok: true,
        kind: expected.kind,
        ...('serverVersion' in expected ? { serverVersion: expected.serverVersion } : {}),
        models: [{ contextWindow: expected.window, contextSource: 'server' }],
      })
    }
  })
})
