/**
 * `bridle probe` against personas of real servers: the capability card says what each can do,
 * in words, and what was found is kept for the sessions that follow.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliArgv, runCli } from '../fixtures/cli.js'
import {
  llamaCppNoJinja,
  ollamaNew,
  silentTruncation,
} from '../fixtures/model-server/persona-catalog.js'
import type { Persona } from '../fixtures/model-server/personas.js'
import { probeAnswers } from '../fixtures/model-server/probe-script.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'

let home: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-probe-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

async function probe(persona: Persona, ...extra: string[]) {
  server = await startModelServer({ persona, script: [probeAnswers(persona)], loop: true })
  return runCli(
    cliArgv({ home }, 'probe', '--base-url', server.url, '--model', persona.model, ...extra),
  )
}

describe('bridle probe', () => {
  it('Ollama 0.12: native calls and thinking, and a window cut at its 4,096 default', async () => {
    const run = await probe(ollamaNew)
    expect(run.status, run.stderr).toBe(0)
    const card = run.stdout
    expect(card).toContain('qwen3:8b at http://127.0.0.1:')
    expect(card).toContain('(Ollama 0.12.3)')
    expect(card).toMatch(/Tool calls\s+native: structured calls in the stream/)
    expect(card).toMatch(/Reasoning\s+in Ollama's thinking field/)
    expect(card).toMatch(
      /Context\s+assumed 4,096 tokens \(trained for 40,960\); the server cut a [\d,]+-token prompt to 4,096 without a word: it honours about 4,096 tokens/,
    )
    expect(card).toContain('OLLAMA_CONTEXT_LENGTH')
    expect(card).toMatch(/Bridle uses\s+the Ollama API, tools native/)
    // Everything went through the native API, as Bridle's sessions do.
    expect(server?.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(0)
    const kept = JSON.parse(readFileSync(join(home, 'capabilities.json'), 'utf8')) as {
      records: { model: string; serverVersion: string; probe: { context: { verdict: string } } }[]
    }
    expect(kept.records).toMatchObject([
      { model: 'qwen3:8b', serverVersion: '0.12.3', probe: { context: { verdict: 'cut' } } },
    ])
  })

  it('llama.cpp without --jinja: tools refused in its words, calls as text instead, <think> tags', async () => {
    const run = await probe(llamaCppNoJinja)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toMatch(
      /the server refuses tools \("[^"]*tools param requires --jinja flag"\)/,
    )
    expect(run.stdout).toContain('which works')
    expect(run.stdout).toMatch(/Reasoning\s+in <think> tags in the text/)
    expect(run.stdout).toMatch(
      /Context\s+runs 8,192 tokens \(trained for 40,960\); a [\d,]+-token prompt was counted whole/,
    )
    expect(run.stdout).toMatch(/Bridle uses\s+the OpenAI API, tools text/)
  })

  it('a server that lists 32,768 and runs 4,096: the cut, as JSON too', async () => {
    const run = await probe(silentTruncation, '--json')
    expect(run.status, run.stderr).toBe(0)
    const report = JSON.parse(run.stdout) as Record<string, unknown>
    expect(report).toMatchObject({
      kind: 'unknown',
      api: 'openai',
      toolCalls: { streamed: 'structured', chosen: 'native' },
      reasoning: 'reasoning_content',
      streamOptions: 'accepted',
      context: {
        window: 32768,
        windowSource: 'advertised',
        verdict: 'cut',
        reported: 4096,
        honoured: 4096,
        sawHead: false,
      },
    })
  })

  it('says at once that nothing listens, when nothing does', async () => {
    const { closedPort } = await import('../fixtures/model-server/server.js')
    const port = await closedPort()
    const run = await runCli(
      cliArgv({ home }, 'probe', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm'),
    )
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`nothing answered at http://127.0.0.1:${port}`)
  })
})

describe('bridle discover', () => {
  it('says which window Ollama runs and where that comes from, not only what the model was trained for', async () => {
    server = await startModelServer({ persona: ollamaNew })
    const run = await runCli(cliArgv({ home }, 'discover', '--port', String(server.port)))
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain(
      `http://127.0.0.1:${server.port}/v1  ollama  qwen3:8b (4,096 tokens: the server's default; trained for 40,960)`,
    )
  })
})
