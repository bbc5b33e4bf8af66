import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { chatRequests } from '../../fixtures/model-server/server.js'
import type { ScriptEntry } from '../../fixtures/model-server/script.js'
import type { LoopHarness } from '../loop/harness.js'
import { git, initRepo, sentRequest, startPromptHarness, testClock, toolCall } from './helpers.js'
import type { SentRequest } from './helpers.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** The bytes a local server caches for `request`: system prompt, tools, its first `count` messages. */
function prefixBytes(request: SentRequest, count: number): string {
  return JSON.stringify({
    system: request.messages[0],
    tools: request.tools,
    messages: request.messages.slice(0, count),
  })
}

describe('a byte-stable request prefix', () => {
  it('keeps every request a byte-for-byte extension of the one before, over 20 steps in 9 turns', async () => {
    const clock = testClock(2025, 3, 30)
    let n = 0
    const call = (name: string, args: unknown) => toolCall(name, args, `c${++n}`)
    const turns: { readonly text: string; readonly script: ScriptEntry[]; before?: () => void }[] =
      [
        {
          text: 'write a note',
          script: [
            call('write_note', { path: 'n1.txt', text: 'one' }),
            call('look', { path: 'n1.txt' }),
            'Wrote n1.txt.',
          ],
        },
        {
          text: 'fix a.txt',
          script: [call('write_note', { path: 'a.txt', text: 'fixed\n' }), 'Fixed.'],
        },
        { text: 'thanks', script: ['You are welcome.'] },
        {
          text: 'next day: another note',
          before: () => {
            clock.nextDay()
            git(h?.projectDir ?? '', 'add', '-A')
            git(h?.projectDir ?? '', 'commit', '-q', '-m', 'day one')
          },
          script: [
            call('look', { path: 'a.txt' }),
            call('write_note', { path: 'n2.txt', text: 'two' }),
            call('look', { path: 'n2.txt' }),
            'Wrote n2.txt.',
          ],
        },
        {
          text: 'write it again',
          script: [call('write_note', { path: 'n2.txt', text: 'two' }), 'Same as before.'],
        },
        { text: 'anything else?', script: ['No.'] },
        {
          text: 'on a branch now',
          before: () => {
            clock.nextDay()
            git(h?.projectDir ?? '', 'checkout', '-q', '-b', 'feature')
          },
          script: [
            call('write_note', { path: 'n3.txt', text: 'three' }),
            call('look', { path: 'n3.txt' }),
            'Wrote n3.txt on the branch.',
          ],
        },
        {
          text: 'committed',
          before: () => {
            git(h?.projectDir ?? '', 'add', '-A')
            git(h?.projectDir ?? '', 'commit', '-q', '-m', 'notes')
          },
          script: [call('look', { path: 'n3.txt' }), 'Still there.'],
        },
        {
          text: 'a day later',
          before: () => clock.nextDay(),
          script: [call('look', { path: 'n1.txt' }), 'Still one.'],
        },
      ]
    h = await startPromptHarness(
      turns.flatMap((turn) => turn.script),
      {
        now: clock.now,
        prepare: (dir) => {
          writeFileSync(join(dir, 'AGENTS.md'), '# Conventions\n\nUse tabs. Run make check.\n')
          initRepo(dir)
        },
      },
    )
    const harness = h
    for (const [i, turn] of turns.entries()) {
      turn.before?.()
      harness.agent.send({ requestId: `r${i}`, text: turn.text })
      expect(await harness.agent.runUntilIdle()).toEqual([{ turn: i + 1, reason: 'completed' }])
    }

    const sent = chatRequests(harness.server).map((r) => sentRequest(r.body))
    expect(sent).toHaveLength(20)
    for (let i = 1; i < sent.length; i++) {
      const previous = sent[i - 1]
      const current = sent[i]
      if (!previous || !current) throw new Error('missing request')
      const count = previous.messages.length
      expect(current.messages.length).toBeGreaterThan(count)
      expect(prefixBytes(current, count), `request ${i + 1} vs ${i}`).toBe(
        prefixBytes(previous, count),
      )
    }

    // The system prompt: one header for the whole session, with AGENTS.md and without the date.
    const events = harness.session.slice()
    const headers = events.filter((e) => e.type === 'request/header')
    expect(headers.map((e) => e.data.reason)).toEqual(['initial'])
    const system = sent[0]?.messages[0]
    expect(system?.role).toBe('system')
    expect(String(system?.content)).toContain('Use tabs. Run make check.')
    expect(String(system?.content)).not.toMatch(/\d{4}-\d{2}-\d{2}/)

    // Context messages: logged at the start of the turns whose date or git state changed.
    const contexts = events.filter((e) => e.type === 'user/message' && e.data.kind === 'context')
    expect(contexts.map((e) => e.turn)).toEqual([1, 2, 3, 4, 5, 7, 8, 9])
    const texts = contexts.map((e) => (e.type === 'user/message' ? e.data.content : ''))
    expect(texts[0]).toContain("Today's date: 2025-03-30")
    expect(texts[0]).toContain('Git: on branch main; no uncommitted changes')
    expect(texts[1]).toContain('Git: on branch main; 1 untracked')
    expect(texts[2]).toContain('Git: on branch main; 1 modified, 1 untracked')
    expect(texts[3]).toContain("Today's date: 2025-03-31")
    expect(texts[5]).toContain("Today's date: 2025-04-01")
    expect(texts[5]).toContain('Git: on branch feature; 1 untracked')
    expect(texts[7]).toContain("Today's date: 2025-04-02")
    // Each sits right after its turn/start, so it precedes the turn's input in every request.
    for (const context of contexts) expect(events[context.seq - 1]?.type).toBe('turn/start')
    // The model saw each one: the last request holds all of them, in order, as user messages.
    const last = sent.at(-1)?.messages ?? []
    expect(last.filter((m) => m.role === 'user' && texts.includes(String(m.content)))).toHaveLength(
      texts.length,
    )
  }, 60_000)
})
