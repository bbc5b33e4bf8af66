import { describe, expect, it } from 'vitest'
import type { DiscoveredServer } from '../../protocol/contract'
import { Config } from '../../protocol/settings'
import {
  describeRule,
  endpointIdWithUrl,
  ruleTargetLines,
  suggestEndpointId,
  withApprovalMode,
  withCompaction,
  withDefaultEndpoint,
  withDefaults,
  withDiscoveredServer,
  withEndpoint,
  withoutApprovalRule,
  withoutEndpoint,
  withProjectDefaults,
  withSandbox,
} from '../../renderer/src/features/settings/config-edit'

/** A config as settings/get returns it: the schema's output, defaults filled in. */
const read = (raw: Record<string, unknown>): Config => Config.parse(raw)

const base = read({
  endpoints: {
    local: {
      baseUrl: 'http://127.0.0.1:11434/v1',
      idleTimeoutSeconds: 90,
      models: { 'qwen3:8b': { contextWindow: 32768 } },
    },
    openai: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY' },
  },
  defaultEndpoint: 'local',
  defaultModel: 'qwen3:8b',
  approval: 'ask',
  approvalRules: [
    { tool: 'bash', prefix: 'npm test', effect: 'allow', project: '/p' },
    { tool: 'bash', prefix: 'rm -rf', effect: 'deny' },
  ],
  compaction: {
    threshold: 0.7,
    keepUserTurns: 3,
    model: 'small',
    prune: { keepSteps: 6, minBytes: 100 },
  },
  limits: { maxSteps: 40 },
})

describe('config edits', () => {
  it('adds an endpoint and leaves every other field as it was read', () => {
    const next = withEndpoint(base, {
      id: ' lab ',
      baseUrl: ' http://10.0.0.2:8000/v1 ',
      apiKeyEnv: '',
    })
    expect(next.endpoints['lab']).toEqual({ baseUrl: 'http://10.0.0.2:8000/v1' })
    expect({ ...next, endpoints: base.endpoints }).toEqual(base)
    expect(Config.safeParse(next).success).toBe(true)
  })

  it('edits an endpoint keeping the fields the form does not show, and clears an emptied key variable', () => {
    const next = withEndpoint(base, {
      id: 'openai',
      baseUrl: 'https://api.example.com/v1',
      apiKeyEnv: ' ',
    })
    expect(next.endpoints['openai']).toEqual({ baseUrl: 'https://api.example.com/v1' })
    const local = withEndpoint(base, {
      id: 'local',
      baseUrl: 'http://127.0.0.1:1234/v1',
      apiKeyEnv: 'LM_KEY',
    })
    expect(local.endpoints['local']).toEqual({
      baseUrl: 'http://127.0.0.1:1234/v1',
      apiKeyEnv: 'LM_KEY',
      idleTimeoutSeconds: 90,
      models: { 'qwen3:8b': { contextWindow: 32768 } },
    })
  })

  it('does not change the config it was given', () => {
    const before = structuredClone(base)
    withEndpoint(base, { id: 'x', baseUrl: 'http://a/v1', apiKeyEnv: '' })
    withoutEndpoint(base, 'local')
    withCompaction(base, { threshold: 0.5, keepUserTurns: 1, isPruning: false })
    expect(base).toEqual(before)
  })

  it('removing the default endpoint drops the defaults, which would otherwise name nothing', () => {
    const next = withoutEndpoint(base, 'local')
    expect(Object.keys(next.endpoints)).toEqual(['openai'])
    expect(next).not.toHaveProperty('defaultEndpoint')
    expect(next).not.toHaveProperty('defaultModel')
    const other = withoutEndpoint(base, 'openai')
    expect(other.defaultEndpoint).toBe('local')
    expect(other.defaultModel).toBe('qwen3:8b')
  })

  it("sets, replaces and clears a project's defaults; removing its endpoint drops them", () => {
    const set = withProjectDefaults(base, '/p', { endpointId: 'openai', model: ' gpt-x ' })
    expect(set.projects).toEqual({ '/p': { endpoint: 'openai', model: 'gpt-x' } })
    const modelOnly = withProjectDefaults(set, '/q', { endpointId: '', model: 'qwen3:8b' })
    expect(modelOnly.projects).toEqual({
      '/p': { endpoint: 'openai', model: 'gpt-x' },
      '/q': { model: 'qwen3:8b' },
    })
    expect(withProjectDefaults(modelOnly, '/p', { endpointId: '', model: '' }).projects).toEqual({
      '/q': { model: 'qwen3:8b' },
    })
    expect(withoutEndpoint(modelOnly, 'openai').projects).toEqual({ '/q': { model: 'qwen3:8b' } })
    expect(Config.safeParse(modelOnly).success).toBe(true)
  })

  it('sets and clears the defaults', () => {
    expect(withDefaults(base, { endpointId: 'openai', model: 'gpt-x' })).toMatchObject({
      defaultEndpoint: 'openai',
      defaultModel: 'gpt-x',
    })
    const cleared = withDefaults(base, { endpointId: '', model: '' })
    expect(cleared).not.toHaveProperty('defaultEndpoint')
    expect(cleared).not.toHaveProperty('defaultModel')
  })

  it('changes the approval mode and deletes one rule by position', () => {
    expect(withApprovalMode(base, 'full-auto').approval).toBe('full-auto')
    expect(withoutApprovalRule(base, 0).approvalRules).toEqual([
      { tool: 'bash', prefix: 'rm -rf', effect: 'deny' },
    ])
  })

  it('keeps the pruning options while pruning stays on, and takes the schema defaults to turn it back on', () => {
    const on = withCompaction(base, { threshold: 0.9, keepUserTurns: 1, isPruning: true })
    expect(on.compaction).toEqual({
      threshold: 0.9,
      keepUserTurns: 1,
      model: 'small',
      prune: { keepSteps: 6, minBytes: 100 },
    })
    const off = withCompaction(base, { threshold: 0.9, keepUserTurns: 1, isPruning: false })
    expect(off.compaction.prune).toBe(false)
    const again = withCompaction(off, { threshold: 0.9, keepUserTurns: 1, isPruning: true })
    expect(again.compaction.prune).toEqual(Config.parse({}).compaction.prune)
  })

  it('names a discovered server after its kind, without dots and without clashing', () => {
    expect(suggestEndpointId('ollama', [])).toBe('ollama')
    expect(suggestEndpointId('llama.cpp', [])).toBe('llama-cpp')
    expect(suggestEndpointId('openai-compatible', ['local'])).toBe('local-2')
    expect(suggestEndpointId('ollama', ['ollama', 'ollama-2'])).toBe('ollama-3')
  })

  it('adds a discovered server, as the default with its first model on first run', () => {
    const server: DiscoveredServer = {
      kind: 'ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      models: [{ id: 'qwen3:8b' }, { id: 'llama3' }],
    }
    const empty = read({})
    const first = withDiscoveredServer(empty, server, true)
    expect(first.endpointId).toBe('ollama')
    expect(first.config).toMatchObject({
      endpoints: { ollama: { baseUrl: 'http://127.0.0.1:11434/v1' } },
      defaultEndpoint: 'ollama',
      defaultModel: 'qwen3:8b',
    })
    const noModels = withDiscoveredServer(empty, { ...server, models: [] }, true).config
    expect(noModels).not.toHaveProperty('defaultModel')
    const plain = withDiscoveredServer(base, server, false).config
    expect(plain.defaultEndpoint).toBe('local')
  })

  it('adds an endpoint by hand as the default', () => {
    const next = withDefaultEndpoint(
      read({}),
      { id: 'api', baseUrl: 'https://x.test/v1', apiKeyEnv: '' },
      '',
    )
    expect(next).toMatchObject({
      endpoints: { api: { baseUrl: 'https://x.test/v1' } },
      defaultEndpoint: 'api',
    })
    expect(next).not.toHaveProperty('defaultModel')
  })

  it('finds a configured endpoint by its URL, ignoring a trailing slash', () => {
    expect(endpointIdWithUrl(base, 'http://127.0.0.1:11434/v1/')).toBe('local')
    expect(endpointIdWithUrl(base, 'http://127.0.0.1:8080/v1')).toBeUndefined()
  })

  it('describes a rule for its delete button', () => {
    expect(describeRule({ tool: 'bash', prefix: 'npm test', effect: 'allow' })).toBe(
      'Allow bash "npm test"',
    )
    expect(describeRule({ tool: 'edit', effect: 'deny' })).toBe('Deny edit')
    expect(describeRule({ tool: 'bash', pattern: 'npm test *', effect: 'allow' })).toBe(
      'Allow bash "npm test *"',
    )
    expect(describeRule({ tool: 'bash', pattern: 'ls src\nwc -l a', effect: 'allow' })).toBe(
      'Allow bash "ls src · wc -l a"',
    )
  })

  it('lists what a rule matches, a pattern of several commands line by line', () => {
    expect(ruleTargetLines({ tool: 'bash', pattern: 'ls *\nwc *', effect: 'allow' })).toEqual([
      'ls *',
      'wc *',
    ])
    expect(ruleTargetLines({ tool: 'write', prefix: 'src/', effect: 'allow' })).toEqual(['src/'])
    expect(ruleTargetLines({ tool: 'edit', effect: 'deny' })).toEqual([])
  })

  it('sets the sandbox and keeps everything else', () => {
    expect(base.sandbox).toBe('auto')
    const next = withSandbox(base, 'required')
    expect(next.sandbox).toBe('required')
    expect({ ...next, sandbox: 'auto' }).toEqual(base)
    expect(Config.safeParse(withSandbox(base, 'off')).success).toBe(true)
  })
})
