import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalPolicy } from '../../../../main/core/tools/approvals.js'
import { runCodeTool } from '../../../../main/core/tools/code/run-code.js'
import { createToolPipeline } from '../../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../../main/core/tools/spill.js'
import { defineTool } from '../../../../main/core/tools/types.js'
import { startHarness } from '../../loop/harness.js'
import type { LoopHarness } from '../../loop/harness.js'

// run_code through the real pipeline and loop (a real session in SQLite, the scripted server).

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** `wait` sleeps until its time is up or it is stopped, and says which. */
const wait = defineTool({
  name: 'wait',
  description: 'wait',
  kind: 'read',
  schema: z.object({ ms: z.number() }),
  run: ({ ms }, ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ output: 'waited' }), ms)
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve({ output: 'stopped' })
      })
    }),
})

async function start(code: string) {
  const registry = new ToolRegistry()
  registry.register(wait)
  registry.register(runCodeTool({ timeoutSeconds: 10 }))
  h = await startHarness(
    [
      {
        steps: [
          { toolCall: { id: 'p', name: 'run_code', args: JSON.stringify({ code }) } },
          { finish: 'tool_calls' },
        ],
      },
      'ok',
    ],
    {
      makeTools: ({ projectDir, homeDir }) =>
        createToolPipeline({
          registry,
          approvals: new ApprovalPolicy('full-auto', []),
          spill: new OutputSpill(join(homeDir, 'outputs'), 10_000),
          projectDir,
        }),
    },
  )
  return h
}

const resultsOf = (harness: LoopHarness) =>
  harness.session.slice().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))

describe('run_code in the pipeline', () => {
  it('does not offer run_code to its own program', async () => {
    const harness = await start(`return [typeof tools.run_code, Object.keys(tools)]`)
    harness.agent.send({ requestId: 'r', text: 'go' })
    await harness.agent.runUntilIdle()
    expect(resultsOf(harness)).toEqual([
      expect.objectContaining({ callId: 'p', ok: true, output: '["undefined",["wait"]]' }),
    ])
  })

  it('the turn’s cancel stops the program and its running inner call, logged before run_code', async () => {
    const harness = await start(`await tools.wait({ ms: 5000 }); return 'finished'`)
    harness.session.subscribe((event) => {
      if (event.type === 'tool/call' && event.data.parent) setTimeout(() => h?.agent.cancel(), 30)
    })
    harness.agent.send({ requestId: 'r', text: 'go' })
    const started = Date.now()
    const [outcome] = await harness.agent.runUntilIdle()
    expect(Date.now() - started).toBeLessThan(3000)
    expect(outcome?.reason).toBe('cancelled')
    expect(resultsOf(harness)).toEqual([
      expect.objectContaining({ callId: 'p.1', ok: false, parent: { callId: 'p' } }),
      expect.objectContaining({
        callId: 'p',
        ok: false,
        error: expect.objectContaining({ code: 'ABORTED' }),
      }),
    ])
  })

  it('the turn’s cancel ends a busy-looping program at once, while the time limit is far off', async () => {
    const harness = await start(`await tools.wait({ ms: 1 }); for (;;) {}`)
    let cancelledAt = 0
    harness.session.subscribe((event) => {
      if (event.type === 'tool/result' && event.data.parent)
        setTimeout(() => {
          cancelledAt = Date.now()
          h?.agent.cancel()
        }, 50)
    })
    harness.agent.send({ requestId: 'r', text: 'go' })
    const [outcome] = await harness.agent.runUntilIdle()
    // The program's limit is 10 s; the host's Stop ended the loop's worker.
    expect(Date.now() - cancelledAt).toBeLessThan(2000)
    expect(outcome?.reason).toBe('cancelled')
    expect(resultsOf(harness).at(-1)).toEqual(
      expect.objectContaining({
        callId: 'p',
        ok: false,
        error: expect.objectContaining({ code: 'ABORTED' }),
      }),
    )
  })
})
