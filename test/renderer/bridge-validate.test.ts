import { describe, expect, it } from 'vitest'
import { checkResult, SLICED_LIST_MIN } from '../../renderer/src/bridge/validate'
import { methods, resultSchema } from '../../protocol/contract'

/** A page of `count` user messages as `session/events` answers it, seqs from 1. */
function page(count: number) {
  const events = Array.from({ length: count }, (_, i) => ({
    seq: i + 1,
    type: 'user/message',
    v: 1,
    turn: i + 1,
    step: 0,
    at: 1_700_000_000_000 + i,
    data: { content: `question ${i + 1}` },
  }))
  return { ok: true, value: { events, nextSeq: null, length: count } }
}

const INVALID = {
  ok: false,
  error: {
    code: 'INVALID_RESULT',
    message: 'session/events: the reply does not match the contract',
  },
}

describe("the bridge's check of a long result", () => {
  it('gives what the whole schema gives, for a list checked in slices', async () => {
    const raw = page(SLICED_LIST_MIN * 5)
    const whole = resultSchema(methods['session/events'].result).parse(raw)
    expect(await checkResult('session/events', raw, 0)).toEqual(whole)
  })

  it('refuses the page for one bad event deep in the list', async () => {
    const raw = page(1000)
    ;(raw.value.events[900] as { data: unknown }).data = { content: 42 }
    expect(await checkResult('session/events', raw, 0)).toEqual(INVALID)
  })

  it("refuses the page for a bad field beside the list (the envelope's check)", async () => {
    const raw = { ...page(1000), value: { ...page(1000).value, nextSeq: 'next' } }
    expect(await checkResult('session/events', raw, 0)).toEqual(INVALID)
  })

  it('lets other tasks run between slices of a long list, and answers once all of it passed', async () => {
    expect(await tasksRunWhileChecking(page(1000))).toBeGreaterThan(0)
  })

  it('checks a short list at once', async () => {
    expect(await tasksRunWhileChecking(page(SLICED_LIST_MIN - 1))).toBe(0)
  })
})

/** How many times a timer ran while `raw` was being checked (every slice as short as can be). */
async function tasksRunWhileChecking(raw: unknown): Promise<number> {
  let ran = 0
  let isDone = false
  const timer = setInterval(() => {
    if (!isDone) ran++
  }, 0)
  const result = await checkResult('session/events', raw, 0)
  isDone = true
  clearInterval(timer)
  expect(result.ok).toBe(true)
  return ran
}
