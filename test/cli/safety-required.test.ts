/**
 * What the `sandbox` setting does when no sandbox can run, through the real CLI started with a
 * PATH that has no working bwrap (the probe looks `bwrap` up on PATH; the CLI itself is started
 * by its absolute path, and a folder of links gives it the few programs it uses): `required`
 * refuses every command with SANDBOX_UNAVAILABLE and says why, `auto` runs commands without a
 * sandbox and tells the session so once, and `off` tells the session once, across runs.
 */
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  disposeWorld,
  eventsOf,
  makeWorld,
  runBridle,
  sandboxHere,
  sessionEvents,
  toolCalls,
  turnEnds,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-required')

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

/** Programs the CLI and a plain command may look up on PATH; bwrap is not one of them. */
const PROGRAMS = ['sh', 'bash', 'git', 'touch', 'env', 'cat', 'ls']

/**
 * A folder to use as the whole PATH: links to `PROGRAMS` from the usual places, and, when given,
 * a fake `bwrap` script.
 */
function binWithout(w: World, fakeBwrap?: string): string {
  const bin = join(w.root, 'bin')
  mkdirSync(bin)
  for (const name of PROGRAMS) {
    const found = ['/usr/local/bin', '/usr/bin', '/bin']
      .map((dir) => join(dir, name))
      .find((path) => existsSync(path))
    if (found) symlinkSync(found, join(bin, name))
  }
  if (fakeBwrap !== undefined) {
    writeFileSync(join(bin, 'bwrap'), fakeBwrap)
    chmodSync(join(bin, 'bwrap'), 0o755)
  }
  return bin
}

/** A bwrap that answers --version like the real one, then fails as AppArmor makes it fail. */
const REFUSED_BWRAP = [
  '#!/bin/sh',
  'if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi',
  'echo "bwrap: setting up uid map: Permission denied" >&2',
  'exit 1',
  '',
].join('\n')

/**
 * `bridle run` in full-auto whose model runs `touch made.txt` (twice, in two runs of the same
 * session, with `twice`); `path` picks the CLI's PATH once the world exists.
 */
async function runTouch(
  label: string,
  config: Record<string, unknown>,
  path: (w: World) => string | undefined,
  opts: { readonly twice?: boolean } = {},
) {
  world = makeWorld(label, config)
  const chosen = path(world)
  const env = chosen === undefined ? {} : { PATH: chosen }
  server = await startModelServer({
    script: [
      toolCalls(bash('touch-1', 'touch made.txt')),
      'Done.',
      toolCalls(bash('touch-2', 'touch again.txt')),
      'Done again.',
    ],
  })
  const run = await runBridle(world, server, 'make a file', { approval: 'full-auto', env })
  const again =
    opts.twice === true
      ? await runBridle(world, server, 'and another', {
          approval: 'full-auto',
          env,
          ...(run.sessionId === undefined ? {} : { session: run.sessionId }),
        })
      : undefined
  return { run, again, events: sessionEvents(world, run.sessionId), world }
}

const noticesOf = (events: ReturnType<typeof sessionEvents>, code: string) =>
  eventsOf(events, 'notice').filter((e) => e.data.code === code)

describe('sandbox: required, and no sandbox can run', () => {
  const cases = [
    {
      name: 'no bwrap on PATH',
      fake: undefined,
      why: 'bubblewrap (bwrap) was not found on PATH; install the bubblewrap package',
    },
    {
      name: 'bwrap refused by the system (user namespaces)',
      fake: REFUSED_BWRAP,
      why: 'the system refuses unprivileged user namespaces',
    },
  ]
  for (const c of cases) {
    it(`${c.name}: the command is refused with SANDBOX_UNAVAILABLE, saying why; nothing ran`, async () => {
      const {
        run,
        events,
        world: w,
      } = await runTouch(
        `required-${c.fake === undefined ? 'missing' : 'refused'}`,
        { sandbox: 'required' },
        (at) => binWithout(at, c.fake),
      )
      expect(run.status, run.stderr).toBe(0)
      expect(turnEnds(events)).toEqual(['completed'])
      const outcome = callOutcome(events, 'touch-1')
      const message = outcome.result?.ok === false ? outcome.result.error.message : ''
      expect(outcome.code, JSON.stringify(outcome)).toBe('SANDBOX_UNAVAILABLE')
      expect(message).toContain('setting sandbox: required')
      expect(message).toContain(c.why)
      expect(eventsOf(events, 'process/started')).toEqual([])
      expect(existsSync(join(w.project, 'made.txt'))).toBe(false)
      // The session is told once, at its start, with the same reason.
      const told = noticesOf(events, 'SANDBOX_REQUIRED_UNAVAILABLE')
      expect(told).toHaveLength(1)
      expect(told[0]?.data.message).toContain(c.why)
      // The terminal shows the refusal of the call, with the reason.
      expect(run.stderr).toContain(`<- SANDBOX_UNAVAILABLE: ${message}`)
    })
  }
})

describe('when commands run without a sandbox, the session is told once', () => {
  it('sandbox: auto and no bwrap: the command runs unsandboxed, one SANDBOX_UNAVAILABLE notice saying why', async () => {
    const {
      run,
      events,
      world: w,
    } = await runTouch('auto-missing', { sandbox: 'auto' }, (at) => binWithout(at))
    expect(run.status, run.stderr).toBe(0)
    expect(callOutcome(events, 'touch-1').result?.metadata?.['sandboxed']).toBe(false)
    expect(existsSync(join(w.project, 'made.txt'))).toBe(true)
    const told = noticesOf(events, 'SANDBOX_UNAVAILABLE')
    expect(told).toHaveLength(1)
    expect(told[0]?.data.message).toContain('bubblewrap (bwrap) was not found on PATH')
  })

  it('sandbox: off: two runs of one session, one SANDBOX_OFF notice; commands run unsandboxed', async () => {
    const { run, again, events } = await runTouch(
      'off-twice',
      { sandbox: 'off' },
      () => undefined,
      {
        twice: true,
      },
    )
    expect(run.status, run.stderr).toBe(0)
    expect(again?.status, again?.stderr).toBe(0)
    expect(turnEnds(events)).toEqual(['completed', 'completed'])
    expect(noticesOf(events, 'SANDBOX_OFF')).toHaveLength(1)
    for (const id of ['touch-1', 'touch-2'])
      expect(callOutcome(events, id).result?.metadata?.['sandboxed']).toBe(false)
  })

  // The notice is appended while the agent is set up; the CLI listens from before that.
  it('sandbox: off is shown on the terminal (stderr), not only written to the log', async () => {
    const { run, events } = await runTouch('off-shown', { sandbox: 'off' }, () => undefined)
    expect(run.status, run.stderr).toBe(0)
    expect(noticesOf(events, 'SANDBOX_OFF')).toHaveLength(1)
    expect(run.stderr).toContain('SANDBOX_OFF')
  })

  it.skipIf(!sandbox.available)(
    'sandbox: auto with a working bwrap: no notice, the command runs sandboxed (the control)',
    async () => {
      const { run, events } = await runTouch('auto-working', { sandbox: 'auto' }, () => undefined)
      expect(run.status, run.stderr).toBe(0)
      expect(callOutcome(events, 'touch-1').result?.metadata?.['sandboxed']).toBe(true)
      expect(eventsOf(events, 'notice').filter((e) => e.data.code.startsWith('SANDBOX'))).toEqual(
        [],
      )
    },
  )
})
