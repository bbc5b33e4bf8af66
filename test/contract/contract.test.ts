import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  isForwardedEventType,
  methods,
  notifications,
  resultSchema,
} from '../../protocol/contract.js'
import type {
  EventDto,
  MethodName,
  ParamsOf,
  ResultOf,
  TopicName,
  NotificationOf,
} from '../../protocol/contract.js'
import { boot, dispatchCall, HostError } from '../../main/core/host/index.js'
import type { Host } from '../../main/core/host/index.js'
import type { Result } from '../../protocol/contract.js'
import { OLLAMA_CUT_REPORT } from '../fixtures/probe-samples.js'

const errorOf = (result: Result<unknown>) => (result.ok ? undefined : result.error)

const session = {
  id: 's1',
  parentId: null,
  forkSeq: null,
  title: 'Fix the bug',
  projectDir: '/p',
  model: 'qwen3:8b',
  createdAt: 1,
  updatedAt: 2,
  messageCount: 4,
  eventCount: 40,
  deletedAt: null,
  isRunning: false,
  spawnedBy: null,
}
const approval = {
  sessionId: 's1',
  callId: 'c1',
  turn: 1,
  step: 2,
  tool: 'bash',
  description: 'Run `npm test`',
  args: { command: 'npm test' },
  approvalKey: 'npm test',
}
const event: EventDto = {
  seq: 16,
  type: 'tool/call',
  v: 1,
  turn: 1,
  step: 1,
  at: 3,
  data: { callId: 'c1', name: 'read', args: { path: 'a.txt' } },
}
const settingsView = {
  config: {
    endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } },
    defaultEndpoint: 'local',
    approval: 'ask' as const,
    approvalRules: [],
    sandbox: 'auto' as const,
    compaction: { threshold: 0.8, keepUserTurns: 2, prune: { keepSteps: 4, minBytes: 4096 } },
    limits: {},
    projects: {},
  },
  endpoints: [
    { id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', isDefault: true, key: 'none' as const },
  ],
  path: '/home/someone/.bridle/config.json',
}

const mcpList = {
  projectDir: '/home/someone/project',
  servers: [
    {
      name: 'files',
      scope: 'user' as const,
      transport: 'stdio' as const,
      target: 'npx -y files-server',
      state: 'running' as const,
      tools: [
        { name: 'mcp__files__read', serverTool: 'read', description: 'Reads.', readOnly: true },
      ],
      stderr: '',
    },
  ],
  projectFile: {
    path: '/home/someone/project/.mcp.json',
    state: 'untrusted' as const,
    servers: [],
  },
}

/** One valid sample per method: adding a method to the contract without a sample fails to compile. */
const samples: { [M in MethodName]: { params: ParamsOf<M>; result: ResultOf<M> } } = {
  'app/info': {
    params: {},
    result: {
      name: 'Bridle',
      version: '1.2.3',
      dataDir: '/home/someone/.bridle',
      databasePath: '/home/someone/.bridle/bridle.db',
      platform: 'linux',
      arch: 'x64',
      versions: { node: '24.22.3' },
      transport: 'ipc',
    },
  },
  'project/open': {
    params: { path: '/home/someone/code/app' },
    result: { project: { path: '/home/someone/code/app', name: 'app', openedAt: 1 } },
  },
  'project/recent': { params: { limit: 5 }, result: { projects: [] } },
  'session/list': {
    params: { cursor: null, limit: 20, includeDeleted: false },
    result: { items: [session], nextCursor: 'c2' },
  },
  'session/create': {
    params: { projectDir: '/p', endpointId: 'local', model: 'qwen3:8b' },
    result: session,
  },
  'session/get': {
    params: { sessionId: 's1' },
    result: { session, pendingApprovals: [approval], contextWindow: 32768, codeMode: false },
  },
  'session/rename': { params: { sessionId: 's1', title: 'Fix the parser' }, result: session },
  'session/setModel': {
    params: { sessionId: 's1', endpointId: 'local', model: 'qwen3:8b' },
    result: { ...session, model: 'qwen3:8b' },
  },
  'session/setCodeMode': { params: { sessionId: 's1', on: true }, result: { on: true } },
  'session/delete': { params: { sessionId: 's1' }, result: { ...session, deletedAt: 5 } },
  'session/restore': { params: { sessionId: 's1' }, result: session },
  'session/tree': {
    params: { projectDir: '/p', includeDeleted: false },
    result: { sessions: [session, { ...session, id: 's2', parentId: 's1', forkSeq: 12 }] },
  },
  'session/fork': { params: { sessionId: 's1', atSeq: 12 }, result: session },
  'import/scan': {
    params: {},
    result: {
      sessions: [
        {
          path: '/home/someone/.pi/agent/sessions/--demo--/s.jsonl',
          displayPath: '~/.pi/agent/sessions/--demo--/s.jsonl',
          tool: 'pi',
          label: 'pi',
          modifiedAt: 1_700_000_000_000,
          bytes: 2048,
          title: 'Write notes.txt',
          recordedProjectDir: '/home/someone/demo',
        },
      ],
      folders: [{ tool: 'pi', label: 'pi', folder: '~/.pi/agent/sessions' }],
    },
  },
  'import/inspect': {
    params: { path: '~/.codex/sessions/2026/12/06/rollout-a.jsonl' },
    result: {
      path: '/home/someone/.codex/sessions/2026/12/06/rollout-a.jsonl',
      displayPath: '~/.codex/sessions/2026/12/06/rollout-a.jsonl',
      format: 'codex',
      label: 'Codex CLI',
      recordedProjectDir: '/etc',
      recordedProjectDirExists: true,
    },
  },
  'import/run': {
    params: { path: '/home/someone/s.jsonl', projectDir: '/p' },
    result: { session, forkIds: ['s2'], label: 'pi' },
  },
  'session/events': {
    params: { sessionId: 's1', fromSeq: 0, types: ['tool/call'], limit: 100 },
    result: { events: [event], nextSeq: null, length: 40 },
  },
  'session/search': {
    params: { query: 'line endings', limit: 10 },
    result: {
      hits: [{ sessionId: 's1', title: null, seq: 3, type: 'user/message', snippet: '«line»' }],
    },
  },
  'session/request': {
    params: { sessionId: 's1', startSeq: 9 },
    result: {
      startSeq: 9,
      model: 'qwen3:8b',
      params: {},
      messages: [
        { role: 'system', seq: 8, content: 'You are Bridle.', tokens: 9 },
        {
          role: 'assistant',
          seq: 15,
          content: '',
          toolCalls: [{ callId: 'c1', name: 'read', args: '{}' }],
          tokens: 12,
        },
        { role: 'tool', seq: 17, callId: 'c1', content: 'text', tokens: 5 },
      ],
      tools: [{ name: 'read', description: 'Read a file', parameters: { type: 'object' } }],
      tokens: {
        system: 9,
        tools: 40,
        history: 17,
        checkpoint: 0,
        toolOutputs: 5,
        total: 69,
        method: 'estimate',
      },
      reportedInputTokens: 71,
    },
  },
  'turn/send': {
    params: { sessionId: 's1', requestId: 'r1', text: 'fix the bug' },
    result: { accepted: true },
  },
  'turn/cancel': { params: { sessionId: 's1' }, result: { wasRunning: true } },
  'approval/respond': {
    params: { sessionId: 's1', callId: 'c1', decision: 'deny', remember: false, reason: 'not now' },
    result: { accepted: true },
  },
  'compaction/run': {
    params: { sessionId: 's1', focus: 'the API' },
    result: {
      status: 'compacted',
      checkpointSeq: 40,
      fromSeq: 3,
      toSeq: 30,
      tokensBefore: 9000,
      tokensAfter: 1200,
    },
  },
  'compaction/undo': { params: { sessionId: 's1', checkpointSeq: 40 }, result: { undoneSeq: 41 } },
  'workspace/restore': {
    params: { sessionId: 's1', toSeq: 12 },
    result: {
      status: 'restored',
      seq: 30,
      written: ['a.txt'],
      removed: ['new.txt'],
      skipped: [{ path: 'huge.bin', reason: 'no copy of its content was kept' }],
      drifted: [],
    },
  },
  'workspace/undoRestore': {
    params: { sessionId: 's1', force: true },
    result: { status: 'drifted', drifted: ['a.txt'] },
  },
  'settings/get': { params: {}, result: settingsView },
  'settings/update': {
    params: { config: { approval: 'auto-edit' } },
    result: settingsView,
  },
  'endpoint/list': { params: {}, result: { endpoints: settingsView.endpoints } },
  'endpoint/test': {
    params: { endpointId: 'local' },
    result: { ok: true, latencyMs: 12, models: [{ id: 'qwen3:8b' }], message: 'answered' },
  },
  'endpoint/discover': {
    params: {},
    result: {
      servers: [
        { kind: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'qwen3:8b' }] },
      ],
    },
  },
  'model/list': {
    params: { endpointId: 'local' },
    result: { models: [{ id: 'qwen3:8b', contextWindow: 40960, supportsTools: true }] },
  },
  'model/probe': {
    params: { endpointId: 'local', model: 'qwen3:8b' },
    result: { report: OLLAMA_CUT_REPORT },
  },

  'credential/set': {
    params: { endpointId: 'remote', value: 'sk-secret' },
    result: { endpointId: 'remote', stored: true },
  },
  'credential/delete': {
    params: { endpointId: 'remote' },
    result: { endpointId: 'remote', deleted: true },
  },
  'output/read': {
    params: { outputRef: 'outputs/ab/cd.txt', offset: 0, length: 1024 },
    result: { text: 'hello', offset: 0, totalBytes: 5, nextOffset: null },
  },
  'workspace/diff': {
    params: { sessionId: 's1', turn: 2 },
    result: {
      turn: 2,
      files: [
        { path: 'a.txt', status: 'modified', additions: 1, deletions: 1, patch: '@@ -1 +1 @@' },
      ],
    },
  },
  'session/export': {
    params: { sessionId: 's1', format: 'html' },
    result: { text: '<!doctype html>', fileName: 'fix-the-tests.html' },
  },
  'project/files-exist': {
    params: { sessionId: 's1', paths: ['report.md', 'gone.txt'] },
    result: { exists: [true, false] },
  },
  'project/files': {
    params: { sessionId: 's1' },
    result: { paths: ['README.md', 'src/main.ts'], isComplete: true },
  },
  'mcp/list': { params: { projectDir: '/home/someone/project' }, result: mcpList },
  'mcp/trust': { params: { projectDir: '/home/someone/project', trust: true }, result: mcpList },
  'mcp/setEnabled': {
    params: { projectDir: '/home/someone/project', name: 'files', enabled: false },
    result: mcpList,
  },
  'mcp/restart': {
    params: { projectDir: '/home/someone/project', name: 'files' },
    result: mcpList,
  },
  'mcp/catalog': {
    params: { projectDir: '/home/someone/project' },
    result: {
      prompts: [
        {
          server: 'files',
          name: 'review',
          command: '/mcp__files__review',
          description: 'Review a file',
          arguments: [{ name: 'file', description: '', required: true }],
        },
      ],
      resources: [{ server: 'files', uri: 'file:///a', name: 'a', description: '' }],
      failures: [{ server: 'web', reason: 'The MCP server "web" could not start.' }],
    },
  },
  'mcp/prompt': {
    params: {
      projectDir: '/home/someone/project',
      server: 'files',
      name: 'review',
      arguments: { file: 'a' },
    },
    result: { text: 'Review a for bugs.' },
  },
}

const notificationSamples: { [T in TopicName]: NotificationOf<T> } = {
  'bridge/ready': { bootId: 'b1' },
  'session/event': { sessionId: 's1', event, prevSeq: 2 },
  'stream/delta': { sessionId: 's1', turn: 1, step: 2, kind: 'text', text: 'Hel' },
  'approval/request': approval,
  'session/failed': {
    sessionId: 's1',
    message:
      'The session stopped because its log could not be written: the disk holding /home/u/.bridle is full; free some space on it, then try again',
  },
  'sessions/changed': { sessionIds: ['s1'] },
  'settings/changed': settingsView,
  'mcp/changed': {},
}

const methodNames = Object.keys(methods) as MethodName[]

describe('the contract', () => {
  it.each(methodNames)('%s: params and result round-trip through zod and JSON', (method) => {
    const { params, result } = samples[method]
    const spec = methods[method]
    expect(spec.params.parse(JSON.parse(JSON.stringify(params)))).toEqual(params)
    expect(spec.result.parse(JSON.parse(JSON.stringify(result)))).toEqual(result)
    const wrapped = resultSchema(spec.result).parse({ ok: true, value: result })
    expect(wrapped).toEqual({ ok: true, value: result })
  })

  it.each(Object.keys(notifications) as TopicName[])('%s: notification round-trips', (topic) => {
    const sample = notificationSamples[topic]
    expect(notifications[topic].parse(JSON.parse(JSON.stringify(sample)))).toEqual(sample)
  })

  it('a code mode switch is forwarded as a session event and round-trips', () => {
    const sample = {
      sessionId: 's1',
      event: { ...event, type: 'session/code-mode', turn: 1, step: 0, data: { on: true } },
      prevSeq: 15,
    }
    expect(isForwardedEventType('session/code-mode')).toBe(true)
    expect(notifications['session/event'].parse(JSON.parse(JSON.stringify(sample)))).toEqual(sample)
    const bad = { ...sample, event: { ...sample.event, data: { on: 'yes' } } }
    expect(notifications['session/event'].safeParse(bad).success).toBe(false)
  })

  it('import/run takes no import without a project folder named by the caller', () => {
    const params = methods['import/run'].params
    expect(params.safeParse({ path: '/home/someone/s.jsonl' }).success).toBe(false)
    expect(params.safeParse({ path: '/home/someone/s.jsonl', projectDir: '' }).success).toBe(false)
    expect(
      methods['import/inspect'].result.safeParse({
        ...samples['import/inspect'].result,
        format: 'cursor',
      }).success,
    ).toBe(false)
  })

  it('error results carry a known code', () => {
    const schema = resultSchema(methods['app/info'].result)
    expect(schema.safeParse({ ok: false, error: { code: 'INTERNAL', message: 'x' } }).success).toBe(
      true,
    )
    expect(schema.safeParse({ ok: false, error: { code: 'MADE_UP', message: 'x' } }).success).toBe(
      false,
    )
  })
})

describe('dispatchCall', () => {
  let home: string
  let host: Host

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'bridle-contract-'))
    host = await boot({ home, version: '9.9.9', versions: { node: process.versions.node } })
  })

  afterEach(async () => {
    await host.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('serves app/info with the data folder and the caller transport', async () => {
    const result = await dispatchCall(host, 'app/info', {}, { transport: 'websocket' })
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({ version: '9.9.9', dataDir: home, transport: 'websocket' }),
    })
  })

  it('rejects invalid params with a typed error and never calls the handler', async () => {
    const spy = vi.spyOn(host.handlers, 'app/info')
    const result = await dispatchCall(host, 'app/info', { extra: true }, { transport: 'ipc' })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.code).toBe('INVALID_PARAMS')
      expect(result.error.message).toContain('extra')
    }
    const notAnObject = await dispatchCall(host, 'app/info', 'hello', { transport: 'ipc' })
    expect(errorOf(notAnObject)?.code).toBe('INVALID_PARAMS')
    expect(spy).not.toHaveBeenCalled()
  })

  it('rejects an unknown method, including inherited property names', async () => {
    for (const method of ['app/nope', 'toString', '__proto__', 'constructor']) {
      const result = await dispatchCall(host, method, {}, { transport: 'ipc' })
      expect(errorOf(result)?.code).toBe('UNKNOWN_METHOD')
    }
  })

  it('turns a HostError into its code and any other throw into INTERNAL', async () => {
    vi.spyOn(host.handlers, 'app/info').mockImplementationOnce(() => {
      throw new HostError('FORBIDDEN', 'not you')
    })
    expect(await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })).toEqual({
      ok: false,
      error: { code: 'FORBIDDEN', message: 'not you' },
    })
    vi.spyOn(host.handlers, 'app/info').mockRejectedValueOnce(new Error('disk on fire'))
    const failed = await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })
    expect(errorOf(failed)).toEqual({
      code: 'INTERNAL',
      message: 'app/info failed: disk on fire',
    })
  })

  it('refuses a result that breaks the contract instead of passing it on', async () => {
    vi.spyOn(host.handlers, 'app/info').mockResolvedValueOnce({ name: 'Bridle' } as never)
    const result = await dispatchCall(host, 'app/info', {}, { transport: 'ipc' })
    expect(errorOf(result)?.code).toBe('INVALID_RESULT')
  })
})
