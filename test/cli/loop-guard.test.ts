/**
 * The loop guard end to end: `bridle run` in full-auto against a scripted model stuck on one
 * `bash` call, with the real tools (sandboxed where bubblewrap works, as the CLI decides) and
 * config.json read as the user writes it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, runCli } from '../fixtures/cli.js'

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-loop-guard-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

/** Twelve replies, each the same `bash` call, then an answer the guard should never let come. */
const stuckModel = () =>
  startModelServer({
    script: [
      ...Array.from({ length: 12 }, (_, i) => ({
        steps: [
          {
            toolCall: {
              id: `c${i + 1}`,
              name: 'bash',
              args: JSON.stringify({ command: 'echo hi >> count.txt' }),
            },
          },
          { finish: 'tool_calls' as const },
        ],
      })),
      'Done.',
    ],
  })

const run = (url: string) =>
  runCli(
    cliArgv(
      { home, project },
      'run',
      '--approval',
      'full-auto',
      '--base-url',
      url,
      '--model',
      'scripted',
      'count',
    ),
  )

const lines = () => readFileSync(join(project, 'count.txt'), 'utf8').split('\n').filter(Boolean)

describe('bridle run with a model stuck in a loop', () => {
  it('full-auto: of twelve identical bash calls two run; the third is refused, the turn stops, and the terminal says why', async () => {
    server = await stuckModel()
    const result = await run(server.url)

    expect(lines()).toEqual(['hi', 'hi'])
    expect(chatRequests(server)).toHaveLength(3)
    expect(result.status).toBe(1)
    // The call's refusal, the turn's error, and the CLI's last word all name the guard.
    expect(result.stderr).toContain('<- REPEATED_CALL: This bash call did not run')
    expect(result.stderr).toMatch(/! REPEATED_CALL: the model made the same bash call 3 times/)
    expect(result.stderr).toMatch(/the turn ended: error \(REPEATED_CALL: .*loopGuard/)
  }, 60_000)

  it('"loopGuard": { "repeats": 0 } in config.json turns it off: all twelve run', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ loopGuard: { repeats: 0 } }))
    server = await stuckModel()
    const result = await run(server.url)

    expect(result.stderr).not.toContain('REPEATED_CALL')
    expect(result.status).toBe(0)
    expect(lines()).toHaveLength(12)
    expect(result.stdout).toContain('Done.')
  }, 60_000)

  it('a bad loopGuard entry is reported with its path, never ignored', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ loopGuard: { repeats: 1 } }))
    server = await stuckModel()
    const result = await run(server.url)

    expect(result.status).not.toBe(0)
    expect(result.stderr).toMatch(/loopGuard\.repeats/)
    expect(chatRequests(server)).toHaveLength(0)
  }, 60_000)
})
