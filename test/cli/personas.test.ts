/**
 * The real CLI against personas of the real servers (test/fixtures/model-server/persona-catalog.ts):
 * for each, a two-step task (read a file, then edit it) completes through the profile Bridle
 * picks, or ends with one clear error in the server's own words and no pointless retries. The
 * log is read back from the database the CLI wrote.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { LogEvent } from '../../protocol/events.js'
import { LogEvent as LogEventSchema } from '../../protocol/events.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { cliArgv, runCli } from '../fixtures/cli.js'
import {
  deepSeek,
  lmStudio,
  lmStudioNotLoaded,
  llamaCppJinja,
  llamaCppNoJinja,
  llamaCppUnopenedThink,
  ollamaNew,
  ollamaOld,
  plainAnswerer,
  silentTruncation,
  streamOptionsGateway,
  textCallModel,
  vllmNew,
  vllmOld,
} from '../fixtures/model-server/persona-catalog.js'
import type { Persona } from '../fixtures/model-server/personas.js'
import type { ScriptedResponse } from '../fixtures/model-server/script.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-persona-'))
  project = join(home, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'greeting.txt'), 'Helo, world\n')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

/** The model's side of the task: think, read, think, edit, answer. */
function task(): ScriptedResponse[] {
  return [
    {
      steps: [
        { reasoning: 'The user wants a typo fixed. I should read the file first.' },
        { toolCall: { name: 'read', args: '{"path":"greeting.txt"}' } },
      ],
      chunkSize: 7,
    },
    {
      steps: [
        { reasoning: 'It says Helo; that should be Hello.' },
        {
          toolCall: {
            name: 'edit',
            args: '{"path":"greeting.txt","oldText":"Helo","newText":"Hello"}',
          },
        },
      ],
      chunkSize: 7,
    },
    { steps: [{ text: 'Fixed the typo in greeting.txt: it now says Hello.' }], chunkSize: 5 },
  ]
}

async function runTask(persona: Persona) {
  server = await startModelServer({ persona, script: task() })
  const run = await runCli(
    cliArgv(
      { home, project },
      'run',
      '--approval',
      'auto-edit',
      '--base-url',
      server.url,
      '--model',
      persona.model,
      'fix the typo in greeting.txt',
    ),
  )
  return { run, events: sessionEvents(), requests: server.requests }
}

/** Every event of the only session in the data folder, parsed. */
function sessionEvents(): LogEvent[] {
  const store = openStore(databasePath(home))
  try {
    const [session] = store.listSessions({ limit: 10 }).items
    if (!session) return []
    return store.readEvents(session.id).map((row) =>
      LogEventSchema.parse({
        type: row.type,
        v: row.v,
        seq: row.seq,
        turn: row.turn,
        step: row.step,
        at: row.at,
        data: JSON.parse(row.data) as unknown,
      }),
    ) as LogEvent[]
  } finally {
    store.close()
  }
}

const chats = (requests: ModelServer['requests']) =>
  requests.filter((r) => r.method === 'POST' && /\/(chat\/completions|api\/chat)$/.test(r.path))

function expectTaskDone(events: readonly LogEvent[]): void {
  expect(readFileSync(join(project, 'greeting.txt'), 'utf8')).toBe('Hello, world\n')
  const calls = events.filter((e) => e.type === 'tool/call')
  expect(calls.map((e) => e.data.name)).toEqual(['read', 'edit'])
  const results = events.filter((e) => e.type === 'tool/result')
  expect(results.map((e) => e.data.ok)).toEqual([true, true])
  const messages = events.filter((e) => e.type === 'assistant/message')
  const texts = messages.flatMap((m) =>
    m.data.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
  )
  // No call markup, no reasoning shown as the answer.
  for (const text of texts)
    expect(text).not.toMatch(/tool_call|TOOL_CALLS|python_tag|think>|"arguments"/)
  expect(texts.join('')).toContain('Fixed the typo')
  expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'completed' } })
}

function reasoningOf(events: readonly LogEvent[]): string {
  return events
    .filter((e) => e.type === 'assistant/message')
    .flatMap((m) => m.data.blocks.flatMap((b) => (b.type === 'reasoning' ? [b.text] : [])))
    .join(' ')
}

function wires(events: readonly LogEvent[]) {
  return events.flatMap((e) => (e.type === 'request/start' ? [e.data.wire] : []))
}

describe('the two-step task against real servers, through the profile Bridle picks', () => {
  const clean: [Persona, { api: 'openai' | 'ollama'; reasoning: boolean }][] = [
    [ollamaOld, { api: 'ollama', reasoning: true }],
    [ollamaNew, { api: 'ollama', reasoning: true }],
    [llamaCppJinja, { api: 'openai', reasoning: true }],
    [llamaCppUnopenedThink, { api: 'openai', reasoning: true }],
    [lmStudio, { api: 'openai', reasoning: true }],
    [vllmNew, { api: 'openai', reasoning: true }],
  ]
  for (const [persona, expected] of clean) {
    it(`${persona.name}: three requests, native calls, reasoning kept apart`, async () => {
      const { run, events, requests } = await runTask(persona)
      expect(run.stderr).not.toContain('CONTEXT_TRUNCATED_BY_SERVER')
      expect(run.status, run.stderr).toBe(0)
      expectTaskDone(events)
      expect(chats(requests)).toHaveLength(3)
      for (const wire of wires(events))
        expect(wire).toMatchObject({ api: expected.api, toolCalls: 'native' })
      if (expected.reasoning) expect(reasoningOf(events)).toContain('I should read the file first')
      expect(events.some((e) => e.type === 'error')).toBe(false)
    })
  }

  for (const persona of [ollamaOld, ollamaNew]) {
    it(`${persona.name} through its OpenAI endpoint, when config.json asks for it`, async () => {
      server = await startModelServer({ persona, script: task() })
      writeFileSync(
        join(home, 'config.json'),
        JSON.stringify({
          endpoints: { ollama: { baseUrl: server.url, profile: { api: 'openai' } } },
          defaultEndpoint: 'ollama',
          defaultModel: persona.model,
        }),
      )
      const run = await runCli(
        cliArgv(
          { home, project },
          'run',
          '--approval',
          'auto-edit',
          'fix the typo in greeting.txt',
        ),
      )
      expect(run.status, run.stderr).toBe(0)
      const events = sessionEvents()
      expectTaskDone(events)
      expect(chats(server.requests).map((r) => r.path)).toEqual([
        '/v1/chat/completions',
        '/v1/chat/completions',
        '/v1/chat/completions',
      ])
      for (const wire of wires(events)) expect(wire).toMatchObject({ api: 'openai' })
      expect(reasoningOf(events)).toContain('I should read the file first')
    })
  }

  it('llama.cpp without --jinja: refuses tools in its own words, then the calls go as text', async () => {
    const { run, events, requests } = await runTask(llamaCppNoJinja)
    expect(run.status, run.stderr).toBe(0)
    expectTaskDone(events)
    // One refusal, then three requests in the text mode: no pointless retries.
    expect(chats(requests)).toHaveLength(4)
    expect(run.stderr).toContain('tools param requires --jinja flag')
    const error = events.find((e) => e.type === 'error')
    expect(error?.data).toMatchObject({ code: 'PROFILE_CHANGED' })
    expect(wires(events).map((w) => w?.toolCalls)).toEqual(['native', 'text', 'text', 'text'])
    const textRequest = chats(requests)[1]?.body as {
      tools?: unknown
      messages: { content: string }[]
    }
    expect(textRequest.tools).toBeUndefined()
    expect(textRequest.messages[0]?.content).toContain('<tool_call>')
    expect(
      events.find((e) => e.type === 'assistant/message' && e.data.textCalls)?.data,
    ).toMatchObject({
      textCalls: { format: 'hermes' },
    })
  })

  it('vLLM 0.10 without a tool parser: the 400 in its flat shape, then the calls go as text', async () => {
    const { run, events, requests } = await runTask(vllmOld)
    expect(run.status, run.stderr).toBe(0)
    expectTaskDone(events)
    expect(chats(requests)).toHaveLength(4)
    expect(run.stderr).toContain('tool choice requires --enable-auto-tool-choice')
    expect(reasoningOf(events)).toContain('I should read the file first')
  })

  it('DeepSeek thinking mode: the reasoning of the tool-call turn goes back once the API asks', async () => {
    const { run, events, requests } = await runTask(deepSeek)
    expect(run.status, run.stderr).toBe(0)
    expectTaskDone(events)
    expect(chats(requests)).toHaveLength(4)
    expect(run.stderr).toContain('Missing `reasoning_content` field')
    const accepted = chats(requests).slice(2)
    for (const request of accepted) {
      const messages = (request.body as { messages: Record<string, unknown>[] }).messages
      const withCalls = messages.filter(
        (m) => m['role'] === 'assistant' && m['tool_calls'] !== undefined,
      )
      expect(withCalls.length).toBeGreaterThan(0)
      for (const message of withCalls) expect(message['reasoning_content']).toMatch(/\S/)
    }
    expect(wires(events).at(-1)).toMatchObject({ replayReasoning: true })
  })

  it('a gateway that rejects stream_options: asked again without it, once', async () => {
    const { run, events, requests } = await runTask(streamOptionsGateway)
    expect(run.status, run.stderr).toBe(0)
    expectTaskDone(events)
    expect(chats(requests)).toHaveLength(4)
    expect(run.stderr).toContain('Unrecognized request argument supplied: stream_options')
    const later = chats(requests)
      .slice(1)
      .map((r) => (r.body as Record<string, unknown>)['stream_options'])
    expect(later).toEqual([undefined, undefined, undefined])
  })

  for (const style of [
    'hermes',
    'json',
    'array',
    'fence',
    'mistral',
    'mistral-v11',
    'qwen-xml',
    'python-tag',
  ] as const) {
    it(`a model that writes its calls as text (${style}): the calls run, the markup is not the answer`, async () => {
      const { run, events, requests } = await runTask(textCallModel(style))
      expect(run.status, run.stderr).toBe(0)
      expectTaskDone(events)
      expect(chats(requests)).toHaveLength(3)
      const fromText = events.filter(
        (e) => e.type === 'assistant/message' && e.data.textCalls !== undefined,
      )
      expect(fromText).toHaveLength(2)
      expect(run.stdout).not.toMatch(/tool_call|TOOL_CALLS|"arguments"|"parameters"/)
    })
  }

  it('a server that answers a streaming request with one JSON completion: used as the whole reply', async () => {
    const { run, events, requests } = await runTask(plainAnswerer('json-completion'))
    expect(run.status, run.stderr).toBe(0)
    expect(readFileSync(join(project, 'greeting.txt'), 'utf8')).toBe('Hello, world\n')
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.data.name)).toEqual([
      'read',
      'edit',
    ])
    expect(chats(requests)).toHaveLength(3)
  })

  it('an HTML page at the URL: one clear error, no retries', async () => {
    const { run, requests } = await runTask(plainAnswerer('html'))
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('does not look like an OpenAI-compatible API (got text/html from')
    expect(chats(requests)).toHaveLength(1)
  })

  it('an error object in a 200 body: the server’s words, no retries', async () => {
    const { run, requests } = await runTask(plainAnswerer('json-error'))
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('upstream model "scripted" is not loaded on any backend')
    expect(chats(requests)).toHaveLength(1)
  })
})

describe('errors in odd places, in the server’s own words', () => {
  const overflow = {
    code: 400,
    message:
      'the request exceeds the available context size. try increasing the context size or enable context shift',
    type: 'invalid_request_error',
  }

  it('an old llama.cpp’s `error:` line mid-stream reaches the user, and a context overflow is not retried as it is', async () => {
    server = await startModelServer({
      persona: llamaCppNoJinja,
      script: [{ steps: [{ fail: overflow }] }],
    })
    const run = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--base-url',
        server.url,
        '--model',
        llamaCppNoJinja.model,
        'hello',
      ),
    )
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('the request exceeds the available context size')
    expect(run.stderr).not.toContain('without a finish reason')
    expect(run.stderr).toContain('CONTEXT_OVERFLOW')
    // The tools refused (this server has no --jinja), the text-mode request overflowed; nothing to
    // compact in a new session, so no third request.
    expect(chats(server.requests)).toHaveLength(2)
  })

  const frames: [Persona, Record<string, unknown>][] = [
    // llama.cpp since PR #16109: `data: {"error": ...}` and the stream ends, no [DONE].
    [
      llamaCppJinja,
      { code: 400, message: 'Failed to parse input at pos 12', type: 'invalid_request_error' },
    ],
    // vLLM since 0.10.1: `data: {"error": ...}`, then `data: [DONE]`.
    [
      vllmNew,
      {
        message: 'Sampling failed: probability tensor contains NaN',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    ],
  ]
  for (const [persona, error] of frames) {
    it(`${persona.name}: an error frame after some text ends the turn in the server's words, once`, async () => {
      server = await startModelServer({
        persona,
        script: [{ steps: [{ text: 'Let me look at the' }, { fail: error }] }],
      })
      const run = await runCli(
        cliArgv(
          { home, project },
          'run',
          '--base-url',
          server.url,
          '--model',
          persona.model,
          'hello',
        ),
      )
      expect(run.status).toBe(1)
      expect(run.stderr).toContain(String(error['message']))
      expect(run.stderr).not.toContain('without a finish reason')
      expect(chats(server.requests)).toHaveLength(1)
      // What streamed before the error is kept, marked interrupted.
      const message = sessionEvents().find((e) => e.type === 'assistant/message')
      expect(message?.data).toMatchObject({
        blocks: [{ type: 'text', text: 'Let me look at the' }],
        interrupted: true,
      })
    })
  }

  it('a refused local port fails within about 2 s, saying nothing listens there', async () => {
    const { closedPort } = await import('../fixtures/model-server/server.js')
    const port = await closedPort()
    const started = performance.now()
    const run = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--model',
        'm',
        'hello',
      ),
    )
    const seconds = (performance.now() - started) / 1000
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`nothing is listening at http://127.0.0.1:${port}`)
    // Start-up of the CLI itself (tsx) takes a second or two on a slow machine.
    expect(seconds).toBeLessThan(12)
    expect(run.stderr.match(/retry \d of 2/g)).toHaveLength(2)
  })
})

describe('a server that cuts the prompt without a word', () => {
  it('raises CONTEXT_TRUNCATED_BY_SERVER with the fix, and the next turn fits the window it honours', async () => {
    // About 6,000 tokens of prose: more than the 4,096 the server runs, less than the 32,768 it lists.
    const paragraph =
      'The river bends twice before the old mill, where the water slows and the herons wait.\n'
    writeFileSync(join(project, 'rivers.txt'), paragraph.repeat(300))
    server = await startModelServer({
      persona: silentTruncation,
      script: [
        { steps: [{ toolCall: { name: 'read', args: '{"path":"rivers.txt"}' } }] },
        'It is a long text about a river and a mill.',
        // Turn 2 starts with a compaction: the summary, then the answer.
        '## Goals and constraints\nSummarise rivers.txt.\n## Decisions\nRead it once.',
        'The text is about a river.',
      ],
    })
    const first = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--base-url',
        server.url,
        '--model',
        'qwen3:8b',
        'what is rivers.txt about?',
      ),
    )
    expect(first.status, first.stderr).toBe(0)
    expect(first.stderr).toContain('CONTEXT_TRUNCATED_BY_SERVER')
    expect(first.stderr).toMatch(/runs a window of about 4,096 tokens/)
    expect(first.stderr).toContain('To give the model more room')
    const cut = chats(server.requests).filter((r) => r.prompt?.wasCut)
    expect(cut).toHaveLength(1)

    const events = sessionEvents()
    const alarm = events.find(
      (e) => e.type === 'error' && e.data.code === 'CONTEXT_TRUNCATED_BY_SERVER',
    )
    expect(alarm).toBeDefined()
    const sessionId = (() => {
      const store = openStore(databasePath(home))
      try {
        return store.listSessions({ limit: 1 }).items[0]?.id ?? ''
      } finally {
        store.close()
      }
    })()

    const before = server.requests.length
    const second = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--session',
        sessionId,
        '--base-url',
        server.url,
        '--model',
        'qwen3:8b',
        'and in one word?',
      ),
    )
    expect(second.status, second.stderr).toBe(0)
    expect(second.stderr).toMatch(/compacted seq \d+\.\.\d+/)
    // What the first run learnt was kept for the next one.
    expect(JSON.parse(readFileSync(join(home, 'capabilities.json'), 'utf8'))).toMatchObject({
      records: [{ model: 'qwen3:8b', learned: { contextWindow: 4096 } }],
    })
    const later = chats(server.requests.slice(before))
    expect(later.length).toBeGreaterThan(0)
    // Every request of the next turn fits the 4,096 tokens the server honours.
    for (const request of later)
      expect(request.prompt?.wasCut, JSON.stringify(request.prompt)).toBe(false)
  })
})

describe('a prompt the server refuses as too long', () => {
  it('is compacted to the window the server names, in the lean form, and sent once more', async () => {
    const notLoaded = lmStudioNotLoaded
    writeFileSync(
      join(project, 'rivers.txt'),
      'The river bends twice before the old mill, where the water slows and the herons wait.\n'.repeat(
        300,
      ),
    )
    server = await startModelServer({
      persona: notLoaded,
      script: [
        { steps: [{ toolCall: { name: 'read', args: '{"path":"rivers.txt"}' } }] },
        '## Goals and constraints\nSay what rivers.txt is about.\n## Files\nrivers.txt: a river and a mill, one line repeated.',
        'It is about a river and a mill.',
      ],
    })
    const run = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--base-url',
        server.url,
        '--model',
        notLoaded.model,
        'what is rivers.txt about?',
      ),
    )
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).toContain('n_ctx: 4096')
    expect(run.stderr).toContain('retry 1 of 1 after compacting the history')
    expect(run.stdout).toContain('It is about a river and a mill.')
    const events = sessionEvents()
    expect(events.some((e) => e.type === 'compaction/checkpoint')).toBe(true)
    // The retried request fitted, and went out in the lean form of a small window.
    const last = chats(server.requests).at(-1)
    expect(last?.prompt?.tokens).toBeLessThanOrEqual(4096)
    const headers = events.filter((e) => e.type === 'request/header')
    expect(headers.at(-1)?.data.reason).toBe('change')
    expect(headers.at(-1)?.data.tools.map((t) => t.name)).not.toContain('present')
  })
})

describe('calls read from text go through the same guards as structured ones', () => {
  /** Every file under `dir` with a hash of its bytes, so any change, addition or removal shows. */
  function treeHash(dir: string): Record<string, string> {
    const out: Record<string, string> = {}
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name)
      out[relative(dir, path)] = entry.isFile()
        ? createHash('sha256').update(readFileSync(path)).digest('hex')
        : 'dir'
    }
    return out
  }

  for (const approval of ['ask', 'auto-edit', 'full-auto'] as const) {
    it(`in ${approval} mode, text calls at files outside the project change nothing there`, async () => {
      const outside = join(home, 'outside')
      mkdirSync(join(outside, 'sub'), { recursive: true })
      writeFileSync(join(outside, 'secret.txt'), 'do not touch\n')
      writeFileSync(join(outside, 'sub', 'deep.txt'), 'deep\n')
      const before = treeHash(outside)
      const persona = textCallModel('hermes')
      server = await startModelServer({
        persona,
        script: [
          {
            steps: [
              {
                toolCall: { name: 'write', args: '{"path":"../outside/secret.txt","content":"x"}' },
              },
              {
                toolCall: {
                  name: 'edit',
                  args: '{"path":"../outside/sub/deep.txt","oldText":"deep","newText":"gone"}',
                },
              },
              {
                toolCall: {
                  name: 'write',
                  args: `{"path":${JSON.stringify(join(outside, 'new.txt'))},"content":"x"}`,
                },
              },
            ],
          },
          'Done.',
        ],
      })
      const run = await runCli(
        cliArgv(
          { home, project },
          'run',
          '--approval',
          approval,
          '--base-url',
          server.url,
          '--model',
          persona.model,
          'go',
        ),
      )
      expect(run.status, run.stderr).toBe(0)
      expect(treeHash(outside)).toEqual(before)
      const results = sessionEvents().filter((e) => e.type === 'tool/result')
      expect(results).toHaveLength(3)
      for (const result of results) expect(result.data.ok).toBe(false)
    })
  }
})
