import { describe, expect, it } from 'vitest'
import { runProgram } from '../../../../main/core/tools/code/sandbox.js'
import type { CallReply, ProgramHost } from '../../../../main/core/tools/code/sandbox.js'

const limits = { timeoutMs: 2000, memoryBytes: 16 * 1024 * 1024, maxCalls: 5 }

/** A host whose `read` answers from a map after a tick, and whose `fail` always fails. */
function host(calls: string[] = []): ProgramHost {
  const files: Record<string, string> = { 'a.txt': 'alpha', 'b.txt': 'beta' }
  return {
    toolNames: ['read', 'fail'],
    call: async (name, argsJson): Promise<CallReply> => {
      calls.push(`${name} ${argsJson}`)
      await new Promise((resolve) => setImmediate(resolve))
      if (name === 'fail')
        return { ok: false, code: 'NO_APPROVAL_CHANNEL', message: 'nobody to ask' }
      const { path } = JSON.parse(argsJson) as { path: string }
      const text = files[path]
      return text === undefined
        ? { ok: false, code: 'NOT_FOUND', message: `${path} does not exist` }
        : { ok: true, output: text }
    },
  }
}

const run = (code: string, h: ProgramHost = host(), signal = new AbortController().signal) =>
  runProgram(code, h, limits, signal)

describe('runProgram (QuickJS)', () => {
  it('calls tools, captures the console and returns the value', async () => {
    const calls: string[] = []
    const result = await run(
      `const [a, b] = [await tools.read({ path: 'a.txt' }), await tools.read({ path: 'b.txt' })]
       console.log('read', a.length, { b })
       console.warn('careful')
       return { combined: a + '+' + b }`,
      host(calls),
    )
    expect(calls).toEqual(['read {"path":"a.txt"}', 'read {"path":"b.txt"}'])
    expect(result).toEqual({
      logs: ['read 5 {"b":"beta"}', '[warn] careful'],
      value: '{"combined":"alpha+beta"}',
    })
    expect(await run('return "plain text"')).toEqual({ logs: [], value: 'plain text' })
  })

  it('turns a failed call into an error the program can catch', async () => {
    const result = await run(
      `try { await tools.fail({}) } catch (e) { return e.code + ' / ' + e.message }`,
    )
    expect(result.value).toBe('NO_APPROVAL_CHANNEL / NO_APPROVAL_CHANNEL: nobody to ask')
  })

  it.each(['require("fs")', 'process.env', 'fetch("http://example.com")'])(
    'has no %s',
    async (code) => {
      await expect(run(code)).rejects.toMatchObject({
        code: 'CODE_FAILED',
        message: expect.stringMatching(/not available in run_code/),
      })
    },
  )

  it('gives no way out through the constructors of what it is given', async () => {
    const result = await run(
      `const F = tools.read.constructor
       const G = console.log.constructor.constructor
       let reached
       try { reached = F('return process')() } catch (e) { reached = e.message }
       return { ownFunction: F === Function && G === Function, reached }`,
    )
    const { ownFunction, reached } = JSON.parse(result.value ?? '{}') as Record<string, unknown>
    expect(ownFunction).toBe(true)
    expect(reached).toMatch(/process is not available in run_code/)
  })

  it('stops a busy loop, also one after an await, with a time-limit error', async () => {
    const quick = { ...limits, timeoutMs: 300 }
    for (const code of ['while (true) {}', 'await tools.read({ path: "a.txt" }); for (;;) {}']) {
      const started = Date.now()
      await expect(
        runProgram(code, host(), quick, new AbortController().signal),
      ).rejects.toMatchObject({
        code: 'CODE_TIME_LIMIT',
        message: expect.stringMatching(/time limit of 0.3 s/),
      })
      expect(Date.now() - started).toBeLessThan(5000)
    }
    // A program waiting forever is stopped too.
    await expect(
      runProgram('await new Promise(() => {})', host(), quick, new AbortController().signal),
    ).rejects.toMatchObject({ code: 'CODE_TIME_LIMIT' })
  })

  it('stops at the memory limit and the call cap, and on cancel while it waits', async () => {
    await expect(
      run('const kept = []; for (;;) kept.push(new Uint8Array(4 << 20))'),
    ).rejects.toMatchObject({
      code: 'CODE_MEMORY_LIMIT',
    })
    await expect(run('for (;;) await tools.read({ path: "a.txt" })')).rejects.toMatchObject({
      code: 'CODE_CALL_LIMIT',
      message: expect.stringMatching(/more than 5 tool calls/),
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    await expect(
      run('await new Promise(() => {})', host(), controller.signal),
    ).rejects.toMatchObject({
      code: 'ABORTED',
    })
  })

  it('reports a syntax error and a throw with the console output before it', async () => {
    await expect(run('return (')).rejects.toMatchObject({
      code: 'CODE_FAILED',
      message: /SyntaxError/,
    })
    await expect(run('console.log("step 1"); throw new TypeError("bad")')).rejects.toMatchObject({
      code: 'CODE_FAILED',
      message: expect.stringMatching(/threw TypeError: bad[\s\S]*step 1/),
    })
    // What QuickJS throws when it has no memory left even for an error.
    await expect(run('throw null')).rejects.toMatchObject({
      code: 'CODE_FAILED',
      message: expect.stringMatching(
        /^The program threw null: unless it threw that itself, it ran out of memory \(its heap is limited to 16 MB\)/,
      ),
    })
  })
})
