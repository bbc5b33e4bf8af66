import { describe, expect, it } from 'vitest'
import { runProgram } from '../../../../main/core/tools/code/sandbox.js'
import type { CallReply, ProgramHost } from '../../../../main/core/tools/code/sandbox.js'

// The program runs in a worker thread: the host's event loop stays free while it computes,
// cancel and the time limit end it with a hard stop, and its heap is bounded.

const limits = { timeoutMs: 10_000, memoryBytes: 16 * 1024 * 1024, maxCalls: 5 }
const never = () => new AbortController().signal

/** A host whose one tool, `mark`, answers at once and tells `onCall` it was called. */
function host(onCall: () => void = () => undefined): ProgramHost {
  return {
    toolNames: ['mark'],
    call: (): Promise<CallReply> => {
      onCall()
      return Promise.resolve({ ok: true, output: 'marked' })
    },
  }
}

/** Counts the host's timer ticks from `start()` on. */
function ticker(everyMs: number) {
  let ticks = 0
  let counting = false
  const interval = setInterval(() => counting && ticks++, everyMs)
  return {
    start: () => (counting = true),
    stop: () => {
      clearInterval(interval)
      return ticks
    },
  }
}

describe('runProgram off the host thread', () => {
  it('keeps the host’s event loop running while a program busy-loops, and runs another program meanwhile', async () => {
    const ticks = ticker(10)
    const busy = runProgram(
      'await tools.mark({}); for (;;) {}',
      // The loop starts once the call's reply is in: count from the call on.
      host(ticks.start),
      { ...limits, timeoutMs: 1000 },
      never(),
    )
    const busyEnded = busy.then(
      () => Date.now(),
      () => Date.now(),
    )
    const other = await runProgram(
      'return (await tools.mark({})) + " too"',
      host(),
      limits,
      never(),
    )
    const otherEndedAt = Date.now()
    expect(other.value).toBe('marked too')
    await expect(busy).rejects.toMatchObject({ code: 'CODE_TIME_LIMIT' })
    expect(otherEndedAt).toBeLessThan(await busyEnded)
    // About 100 ticks in the loop's second; a program on the host's thread would allow none.
    expect(ticks.stop()).toBeGreaterThan(20)
  })

  it('ends a busy loop at once on cancel, with a clear error', async () => {
    const controller = new AbortController()
    let abortedAt = 0
    const program = runProgram(
      'console.log("looping"); await tools.mark({}); for (;;) {}',
      host(() =>
        setTimeout(() => {
          abortedAt = Date.now()
          controller.abort()
        }, 100),
      ),
      limits,
      controller.signal,
    )
    await expect(program).rejects.toMatchObject({
      code: 'ABORTED',
      message: expect.stringMatching(/^The turn was stopped\.[\s\S]*looping/),
    })
    // The engine never sees the cancel (its interrupt handler watches only its deadline): the
    // worker was terminated in the middle of the loop, long before the 10 s limit.
    expect(Date.now() - abortedAt).toBeLessThan(1000)
  })

  it.each([
    ['big buffers', 'const kept = []; for (;;) kept.push(new ArrayBuffer(1 << 20))'],
    ['many small objects', 'const kept = []; for (;;) kept.push({ n: kept.length })'],
  ])(
    'ends a program that exhausts its heap (%s) with a clear error, and the host goes on',
    async (_, code) => {
      const ticks = ticker(10)
      ticks.start()
      const started = Date.now()
      await expect(runProgram(code, host(), limits, never())).rejects.toMatchObject({
        code: 'CODE_MEMORY_LIMIT',
        message: expect.stringMatching(/ran out of memory/),
      })
      // The memory limit, not the 10 s time limit, ended it.
      expect(Date.now() - started).toBeLessThan(5000)
      expect(ticks.stop()).toBeGreaterThan(0)
      expect(await runProgram('return 6 * 7', host(), limits, never())).toEqual({
        logs: [],
        value: '42',
      })
    },
  )

  it('runs with the largest heap limit the settings allow (4096 MB)', async () => {
    const big = { ...limits, memoryBytes: 4096 * 1024 * 1024 }
    expect(await runProgram('return "fits"', host(), big, never())).toEqual({
      logs: [],
      value: 'fits',
    })
  })

  it('gives each program a fresh engine, also when it reuses a worker', async () => {
    await runProgram('globalThis.left = "behind"; return 1', host(), limits, never())
    const next = await runProgram('return typeof left', host(), limits, never())
    expect(next.value).toBe('undefined')
  })
})
