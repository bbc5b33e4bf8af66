/**
 * Figures for local models: what the fixed prompt (system prompt and tool definitions) costs in
 * the full form and in the lean form small windows get, read from the `request/header` a real
 * agent logs; how long a capability probe takes against a zero-latency persona (Bridle's own
 * cost, not the model's); and how fast calls written as text are found in a stream.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Config } from '../../main/core/host/settings/config.js'
import { setupAgent } from '../../main/core/host/runtime/agent-setup.js'
import { probeEndpointModel } from '../../main/core/host/endpoints/probe-card.js'
import { Session } from '../../main/core/log/index.js'
import type { Message } from '../../main/core/log/messages.js'
import { listModels } from '../../main/core/models/discovery.js'
import { createOpenAiCompatibleAdapter } from '../../main/core/models/openai-compatible.js'
import { TextCallStream } from '../../main/core/models/text-call-stream.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { tokenCounter } from '../../main/core/tokens/index.js'
import { ollamaNew } from '../fixtures/model-server/persona-catalog.js'
import { probeAnswers } from '../fixtures/model-server/probe-script.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import { figure, percentile, time } from './figures.js'
import type { Figure } from './figures.js'

/** The lean form's target (issue 14): at most this many tokens for a 4k window's fixed prompt. */
const LEAN_TARGET_TOKENS = 1200
const PROBE_RUNS = 5

export async function benchLocalModels(): Promise<Figure[]> {
  return [...(await fixedPromptCost()), ...(await probeDuration()), textCallScanSpeed()]
}

/** The header a real agent logs for a window of `window` tokens, counted two ways. */
async function fixedPromptCost(): Promise<Figure[]> {
  const figures: Figure[] = []
  for (const [form, window] of [
    ['full', 32_768],
    ['lean', 4_096],
  ] as const) {
    const header = await loggedHeader(window)
    for (const model of ['qwen3:8b', 'gpt-4o']) {
      const counter = tokenCounter(model)
      const system: Message = { role: 'system', content: header.system, seq: 0 }
      const count = counter.countMessages([system], header.tools)
      const name = `fixed prompt, ${form} form (${model === 'gpt-4o' ? 'o200k' : 'estimate'})`
      figures.push(
        figure(
          name,
          count.total,
          'tokens',
          form === 'lean'
            ? { text: `<= ${LEAN_TARGET_TOKENS}`, isMet: count.total <= LEAN_TARGET_TOKENS }
            : undefined,
        ),
      )
      if (model === 'qwen3:8b') {
        figures.push(figure(`  of which tool definitions (${form})`, count.tools, 'tokens'))
      }
    }
  }
  return figures
}

async function loggedHeader(window: number): Promise<{
  system: string
  tools: { name: string; description: string; parameters: Record<string, unknown> }[]
}> {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-prompt-'))
  const server = await startModelServer({ script: ['ok'] })
  const store = openStore(databasePath(dir))
  try {
    const session = Session.create(store, { projectDir: dir })
    const { agent } = await setupAgent({
      session,
      projectDir: dir,
      model: {
        adapter: createOpenAiCompatibleAdapter({ baseUrl: server.url }),
        model: 'qwen3:8b',
        contextWindow: window,
      },
      config: Config.parse({}),
      dataDir: dir,
      env: {},
      approval: 'ask',
      platform: 'linux',
    })
    agent.send({ requestId: 'r1', text: 'hi' })
    await agent.runUntilIdle()
    const header = session.latestHeader()
    if (!header) throw new Error('no request/header was logged')
    return {
      system: header.data.sections.map((section) => section.text).join('\n\n'),
      tools: header.data.tools.map((tool) => ({ ...tool, parameters: { ...tool.parameters } })),
    }
  } finally {
    store.close()
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A whole probe against Ollama's persona: four requests, the model answering at once. */
async function probeDuration(): Promise<Figure[]> {
  const server = await startModelServer({
    persona: ollamaNew,
    script: [probeAnswers(ollamaNew)],
    loop: true,
  })
  try {
    const endpoint = { baseUrl: server.url }
    const entry = { id: 'bench', baseUrl: server.url }
    const samples: number[] = []
    for (let i = 0; i < PROBE_RUNS; i++) {
      samples.push(
        await time(async () => {
          const listing = await listModels(endpoint)
          await probeEndpointModel({ entry, endpoint, model: 'qwen3:8b', listing })
        }),
      )
    }
    return [figure('probe against a zero-latency persona, p50', percentile(samples, 50), 'ms')]
  } finally {
    await server.close()
  }
}

/** 1 MB of prose with JSON and fences in it, streamed 24 characters at a time. */
function textCallScanSpeed(): Figure {
  const block = [
    'The build failed because the cache key changed; here is the config I used:\n',
    '```json\n{"cache": {"key": "v2", "paths": ["node_modules"]}}\n```\n',
    '{"status": "ok", "items": [1, 2, 3]}\n',
    'Then I ran the tests again and they passed, except for one flaky case.\n',
  ].join('')
  const text = block.repeat(Math.ceil(1_000_000 / block.length))
  const stream = new TextCallStream(new Set(['read', 'edit', 'bash']))
  let shown = 0
  const ms = performance.now()
  for (let at = 0; at < text.length; at += 24) shown += stream.push(text.slice(at, at + 24)).length
  for (const segment of stream.finish()) if (segment.kind === 'text') shown += segment.text.length
  const elapsed = performance.now() - ms
  if (shown !== text.length) throw new Error('the text-call scan changed text that holds no call')
  return figure('text-call scan of streamed prose', text.length / 1e6 / (elapsed / 1000), 'MB/s')
}
