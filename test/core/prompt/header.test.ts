import { afterEach, describe, expect, it } from 'vitest'
import { Agent } from '../../../main/core/loop/agent.js'
import type { PromptSection } from '../../../main/core/loop/agent.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { projectTools, startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const headerReasons = (harness: LoopHarness) =>
  harness.session.slice().flatMap((e) => (e.type === 'request/header' ? [e.data.reason] : []))

describe('the request header', () => {
  it('is logged initial, then change when the sections change while the agent runs', async () => {
    let sections: PromptSection[] = [{ name: 'identity', text: 'one' }]
    h = await startHarness(['A.', 'B.', 'C.'], { prompt: () => sections })
    for (const text of ['first', 'second', 'third']) {
      if (text === 'third') sections = [{ name: 'identity', text: 'two' }]
      h.agent.send({ requestId: text, text })
      await h.agent.runUntilIdle()
    }
    expect(headerReasons(h)).toEqual(['initial', 'change'])
  })

  it('is logged resume when a new agent opens the session with other sections, and not at all with the same', async () => {
    h = await startHarness(['A.', 'B.', 'C.'])
    h.agent.send({ requestId: 'a', text: 'first' })
    await h.agent.runUntilIdle()
    const harness = h
    const reopen = (text: string) =>
      new Agent({
        session: harness.session,
        adapter: createOpenAiCompatibleAdapter({ baseUrl: harness.server.url }),
        model: 'scripted',
        tools: projectTools(harness.projectDir, harness.home.dir),
        prompt: () => [{ name: 'identity', text }],
      })
    // The harness logged two sections; this agent's prompt has one: a resumed, changed header.
    const changed = reopen('You are a test agent.')
    changed.send({ requestId: 'b', text: 'second' })
    await changed.runUntilIdle()
    // The next agent's prompt equals the last header: nothing is logged.
    const unchanged = reopen('You are a test agent.')
    unchanged.send({ requestId: 'c', text: 'third' })
    await unchanged.runUntilIdle()
    expect(headerReasons(h)).toEqual(['initial', 'resume'])
  })
})
