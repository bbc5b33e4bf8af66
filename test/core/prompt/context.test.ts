import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  computeContext,
  formatDate,
  gitSummary,
  summarizeStatus,
} from '../../../main/core/prompt/context.js'
import { chatRequests } from '../../fixtures/model-server/server.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'
import { git, initRepo, sentRequest, startPromptHarness, testClock } from './helpers.js'

let h: LoopHarness | undefined
const temps: string[] = []
afterEach(async () => {
  await h?.close()
  h = undefined
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-context-'))
  temps.push(dir)
  return dir
}

const contextsOf = (harness: LoopHarness) =>
  harness.session
    .slice()
    .filter((e) => e.type === 'user/message' && e.data.kind === 'context')
    .map((e) => (e.type === 'user/message' ? e.data.content : ''))

describe('the turn context', () => {
  it('is logged once for two turns on the same day with no git change', async () => {
    const clock = testClock(2025, 6, 1)
    h = await startPromptHarness(['One.', 'Two.'], { now: clock.now, prepare: initRepo })
    for (const text of ['first', 'second']) {
      h.agent.send({ requestId: text, text })
      await h.agent.runUntilIdle()
    }
    expect(contextsOf(h)).toEqual([
      [
        'Context at the start of this turn (added by Bridle, not written by the user):',
        "- Today's date: 2025-06-01",
        '- Git: on branch main; no uncommitted changes',
      ].join('\n'),
    ])
    // The second request still carries it (once), right before the first input.
    const second = sentRequest(chatRequests(h.server)[1]?.body)
    expect(second.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'user',
    ])
  })

  it('is logged again when the day changes, and has no git line outside a repository', async () => {
    const clock = testClock(2025, 12, 31)
    h = await startPromptHarness(['One.', 'Two.', 'Three.'], { now: clock.now })
    for (const text of ['first', 'second', 'third']) {
      if (text === 'third') clock.nextDay()
      h.agent.send({ requestId: text, text })
      await h.agent.runUntilIdle()
    }
    const contexts = contextsOf(h)
    expect(contexts).toHaveLength(2)
    expect(contexts[0]).toContain("Today's date: 2025-12-31")
    expect(contexts[1]).toContain("Today's date: 2026-01-01")
    expect(contexts.join('\n')).not.toContain('Git:')
  })

  it('never changes the system prompt', async () => {
    const clock = testClock(2025, 6, 1)
    h = await startPromptHarness(['One.', 'Two.'], { now: clock.now, prepare: initRepo })
    h.agent.send({ requestId: 'a', text: 'first' })
    await h.agent.runUntilIdle()
    clock.nextDay()
    writeFileSync(join(h.projectDir, 'new.txt'), 'new')
    h.agent.send({ requestId: 'b', text: 'second' })
    await h.agent.runUntilIdle()
    const [first, second] = chatRequests(h.server).map((r) => sentRequest(r.body))
    expect(second?.messages[0]).toEqual(first?.messages[0])
    expect(String(first?.messages[0]?.content)).not.toMatch(/\d{4}-\d{2}-\d{2}|branch/)
    expect(h.session.slice().filter((e) => e.type === 'request/header')).toHaveLength(1)
  })

  it('logs a failing hook as TURN_CONTEXT_FAILED and runs the turn without context', async () => {
    h = await startHarness(['Fine.'], {
      turnContext: () => Promise.reject(new Error('git exploded')),
    })
    h.agent.send({ requestId: 'a', text: 'hi' })
    expect(await h.agent.runUntilIdle()).toEqual([{ turn: 1, reason: 'completed' }])
    const error = h.session.slice().find((e) => e.type === 'error')
    expect(error?.data).toEqual({
      scope: 'turn',
      code: 'TURN_CONTEXT_FAILED',
      message: 'git exploded',
    })
    expect(contextsOf(h)).toEqual([])
  })

  it('does not log context for a turn cancelled while it was being computed', async () => {
    let release: () => void = () => undefined
    h = await startHarness(['Never sent.'], {
      turnContext: () =>
        new Promise((resolve) => {
          release = () => resolve('late context')
        }),
    })
    h.agent.send({ requestId: 'a', text: 'hi' })
    const run = h.agent.runUntilIdle()
    await new Promise((resolve) => setImmediate(resolve))
    h.agent.cancel()
    release()
    expect(await run).toEqual([{ turn: 1, reason: 'cancelled' }])
    expect(contextsOf(h)).toEqual([])
    expect(chatRequests(h.server)).toHaveLength(0)
  })
})

describe('git status in the context', () => {
  it('counts each kind of change on the branch', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.txt'), 'a')
    writeFileSync(join(dir, 'b.txt'), 'b')
    writeFileSync(join(dir, 'c.txt'), 'c')
    initRepo(dir)
    writeFileSync(join(dir, 'a.txt'), 'changed')
    writeFileSync(join(dir, 'b.txt'), 'changed too')
    git(dir, 'rm', '-q', 'c.txt')
    writeFileSync(join(dir, 'new.txt'), 'new')
    writeFileSync(join(dir, 'staged.txt'), 'staged')
    git(dir, 'add', 'staged.txt')
    expect(await gitSummary(dir, { timeoutMs: 5000 })).toBe(
      'on branch main; 1 added, 1 deleted, 2 modified, 1 untracked',
    )
  })

  it('says so for a repository without commits and for a detached HEAD', async () => {
    const dir = tempDir()
    git(dir, 'init', '-q', '-b', 'trunk')
    expect(await gitSummary(dir, { timeoutMs: 5000 })).toBe(
      'on branch trunk (no commits yet); no uncommitted changes',
    )
    writeFileSync(join(dir, 'a.txt'), 'a')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'one')
    git(dir, 'checkout', '-q', '--detach')
    expect(await gitSummary(dir, { timeoutMs: 5000 })).toBe(
      'a detached HEAD; no uncommitted changes',
    )
  })

  it('is left out outside a repository and when cancelled', async () => {
    const dir = tempDir()
    expect(await gitSummary(dir, { timeoutMs: 5000 })).toBeUndefined()
    initRepo(dir)
    expect(await gitSummary(dir, { timeoutMs: 5000, signal: AbortSignal.abort() })).toBeUndefined()
    const text = await computeContext({ projectDir: join(dir, 'missing'), now: () => 0 })
    expect(text).not.toContain('Git:')
  })

  it('parses porcelain lines, upstreams and conflicts', () => {
    expect(
      summarizeStatus(
        [
          '## main...origin/main [ahead 2, behind 1]',
          'UU both.txt',
          'R  old.txt -> new.txt',
          ' M work.txt',
          'MM twice.txt',
          '?? "spaced name.txt"',
          '',
        ].join('\n'),
      ),
    ).toBe('on branch main; 1 conflicted, 1 renamed, 2 modified, 1 untracked')
  })

  it('formats the local date as YYYY-MM-DD', () => {
    expect(formatDate(new Date(2024, 1, 29, 23, 59).getTime())).toBe('2024-02-29')
    expect(formatDate(new Date(2025, 0, 1, 0, 0).getTime())).toBe('2025-01-01')
  })
})
