import { afterEach, describe, expect, it } from 'vitest'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { closedPort } from '../../fixtures/model-server/server.js'
import type { ScriptEntry } from '../../fixtures/model-server/script.js'
import { startHarness, typesFrom } from './harness.js'
import type { LoopHarness } from './harness.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const errorsOf = (h: LoopHarness) =>
  h.session
    .slice()
    .flatMap((e) => (e.type === 'error' ? [{ scope: e.data.scope, code: e.data.code }] : []))

describe('model endpoint faults end the turn as data, with retries only before the first byte', () => {
  const cases: {
    name: string
    entry: ScriptEntry
    code: string
    isRetried: boolean
    keepsText: boolean
  }[] = [
    {
      name: '500',
      entry: { status: 500, body: { error: { message: 'boom' } } },
      code: 'SERVER_ERROR',
      isRetried: true,
      keepsText: false,
    },
    {
      name: '429',
      entry: { status: 429, body: { error: { message: 'slow down' } } },
      code: 'RATE_LIMITED',
      isRetried: true,
      keepsText: false,
    },
    {
      name: '400',
      entry: { status: 400, body: { error: { message: 'context too long' } } },
      code: 'REQUEST_REJECTED',
      isRetried: false,
      keepsText: false,
    },
    {
      name: '401',
      entry: { status: 401, body: { error: { message: 'bad key' } } },
      code: 'AUTH_FAILED',
      isRetried: false,
      keepsText: false,
    },
    {
      name: 'stall mid-stream',
      entry: { steps: [{ text: 'half an ans' }, { text: 'wer' }], chunkSize: 4, stallAfter: 2 },
      code: 'STALLED',
      isRetried: false,
      keepsText: true,
    },
    {
      name: 'drop mid-stream',
      entry: { steps: [{ text: 'half an answer' }], chunkSize: 4, dropAfter: 2 },
      code: 'DISCONNECTED',
      isRetried: false,
      keepsText: true,
    },
    {
      name: 'malformed chunk',
      entry: { steps: [{ text: 'some text here' }], chunkSize: 4, malformedAt: 2 },
      code: 'MALFORMED_CHUNK',
      isRetried: false,
      keepsText: true,
    },
  ]

  for (const c of cases) {
    it(`${c.name}: ${c.code}${c.isRetried ? ', retried' : ''}`, async () => {
      const entries = c.isRetried ? [c.entry, c.entry, c.entry] : [c.entry]
      h = await startHarness(entries)
      h.agent.send({ requestId: 'r1', text: 'go' })
      const [outcome] = await h.agent.runUntilIdle()
      expect(outcome).toMatchObject({ reason: 'error', error: { code: c.code } })
      const attempts = typesFrom(h.session).filter((t) => t === 'request/start').length
      expect(attempts).toBe(c.isRetried ? 3 : 1)
      const errors = errorsOf(h)
      expect(errors.at(-1)).toEqual({ scope: 'turn', code: c.code })
      expect(errors.filter((e) => e.scope === 'step')).toHaveLength(c.isRetried ? 2 : 0)
      const message = h.session.slice().find((e) => e.type === 'assistant/message')
      if (c.keepsText) expect(message?.data).toMatchObject({ interrupted: true })
      else expect(message).toBeUndefined()
      expect(h.session.slice().at(-1)?.data).toEqual({ reason: 'error' })
    })
  }

  it('a transient 500 is retried and the turn completes', async () => {
    h = await startHarness([{ status: 500, body: 'down' }, 'back up'])
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    expect(errorsOf(h)).toEqual([{ scope: 'step', code: 'SERVER_ERROR' }])
  })

  it('a refused endpoint says which server is probably not running', async () => {
    const port = await closedPort()
    h = await startHarness([], {
      adapter: createOpenAiCompatibleAdapter({ baseUrl: `http://127.0.0.1:${port}/v1` }),
    })
    h.agent.send({ requestId: 'r1', text: 'go' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome).toMatchObject({ reason: 'error', error: { code: 'ENDPOINT_UNREACHABLE' } })
    expect(outcome?.error?.message).toContain(`127.0.0.1:${port}`)
    expect(typesFrom(h.session).filter((t) => t === 'request/start')).toHaveLength(3)
  })
})
