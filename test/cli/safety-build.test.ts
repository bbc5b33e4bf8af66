/**
 * The sandbox does not get in the way of ordinary work: a small project is built and tested
 * inside it through the real CLI in full-auto (`node --test` on a one-file test, `make` on a tiny
 * Makefile that writes a build folder and a temporary file), its outputs land in the project,
 * and nothing outside changes.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  disposeWorld,
  makeWorld,
  runBridle,
  sandboxHere,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  toolCalls,
  turnEnds,
  writeTree,
} from './safety-fixture.js'
import type { CliRun, Snapshot, World } from './safety-fixture.js'
import type { LogEvent } from '../../protocol/events.js'

const sandbox = await sandboxHere('safety-build')

const PROJECT = {
  'sum.mjs': 'export const sum = (a, b) => a + b\n',
  'sum.test.mjs': [
    "import { test } from 'node:test'",
    "import assert from 'node:assert/strict'",
    "import { sum } from './sum.mjs'",
    "test('adds', () => assert.equal(sum(2, 3), 5))",
    '',
  ].join('\n'),
  'greeting.txt': 'hello from the project\n',
  Makefile: [
    'build/GREETING.txt: greeting.txt',
    '\tmkdir -p build',
    '\ttr a-z A-Z < greeting.txt > $$TMPDIR/upper.txt',
    '\tcp $$TMPDIR/upper.txt $@',
    '',
    'test: build/GREETING.txt',
    '\tgrep -q "HELLO FROM THE PROJECT" build/GREETING.txt && echo make-test-ok',
    '',
    '.PHONY: test',
    '',
  ].join('\n'),
}

describe.skipIf(!sandbox.available)('building and testing a small project in the sandbox', () => {
  let world: World
  let server: ModelServer
  let run: CliRun
  let events: LogEvent[]
  let before: Snapshot

  beforeAll(async () => {
    world = makeWorld('build', { sandbox: 'required' })
    writeTree(world.project, PROJECT)
    before = snapshotSentinels(world)
    server = await startModelServer({
      script: [
        toolCalls(bash('node-test', 'node --test'), bash('make', 'make test')),
        'Tests pass and the build is done.',
      ],
    })
    run = await runBridle(world, server, 'build and test', { approval: 'full-auto' })
    events = sessionEvents(world)
  }, 60_000)

  afterAll(async () => {
    await server.close()
    disposeWorld(world)
  })

  it('the run completes', () => {
    expect(run.status, run.stderr).toBe(0)
    expect(turnEnds(events)).toEqual(['completed'])
  })

  it('node --test runs the test file and passes, sandboxed', () => {
    const outcome = callOutcome(events, 'node-test')
    const output = outcome.result?.ok ? outcome.result.output : ''
    expect(outcome.exitCode, output).toBe(0)
    expect(outcome.result?.metadata?.['sandboxed']).toBe(true)
    expect(output).toMatch(/\bpass 1\b/)
    expect(output).toMatch(/\bfail 0\b/)
  })

  it('make builds into the project (through the private /tmp) and its test passes, sandboxed', () => {
    const outcome = callOutcome(events, 'make')
    const output = outcome.result?.ok ? outcome.result.output : ''
    expect(outcome.exitCode, output).toBe(0)
    expect(outcome.result?.metadata?.['sandboxed']).toBe(true)
    expect(output).toContain('make-test-ok')
    expect(readFileSync(join(world.project, 'build', 'GREETING.txt'), 'utf8')).toBe(
      'HELLO FROM THE PROJECT\n',
    )
  })

  it('nothing outside the project changed', () => {
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
    expect(existsSync(join(world.root, 'build'))).toBe(false)
  })
})
