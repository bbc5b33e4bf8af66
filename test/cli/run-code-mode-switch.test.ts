import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, runCli } from '../fixtures/cli.js'

// `--code-mode` is a fact of the session: logged as `session/code-mode`, so the app and a later
// `bridle run --session` keep it on.

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-code-switch-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

type Event = { session: string; type: string; turn: number; data: Record<string, unknown> }
const eventsOf = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event)

const toolNames = (index: number): string[] => {
  const body = chatRequests(server as ModelServer)[index]?.body as {
    tools?: { function: { name: string } }[]
  }
  return body.tools?.map((tool) => tool.function.name) ?? []
}

async function run(...flags: string[]) {
  const result = await runCli(
    cliArgv(
      { home, project },
      'run',
      '--json',
      ...flags,
      '--base-url',
      (server as ModelServer).url,
      '--model',
      'scripted',
      'hello',
    ),
  )
  expect(result.status, result.stderr).toBe(0)
  return eventsOf(result.stdout)
}

describe('bridle run --code-mode and the session switch', () => {
  it('logs the switch before the turn; the session keeps code mode when continued without the flag', async () => {
    server = await startModelServer({ script: ['One.', 'Two.', 'Three.'] })
    const first = await run('--code-mode')
    const switches = first.filter((e) => e.type === 'session/code-mode')
    expect(switches.map((e) => e.data)).toEqual([{ on: true }])
    const switchAt = first.findIndex((e) => e.type === 'session/code-mode')
    expect(switchAt).toBeLessThan(first.findIndex((e) => e.type === 'turn/start'))
    expect(toolNames(0)).toContain('run_code')

    // Continued without the flag: the log says code mode is on, and nothing new is logged.
    const sessionId = first[0]?.session as string
    const second = await run('--session', sessionId)
    expect(second.filter((e) => e.type === 'session/code-mode')).toEqual([])
    expect(toolNames(1)).toContain('run_code')
    // The flag again on a session already on: still one switch in the log.
    const third = await run('--session', sessionId, '--code-mode')
    expect(third.filter((e) => e.type === 'session/code-mode')).toEqual([])
  })

  it('without the flag a new session logs no switch and has no run_code', async () => {
    server = await startModelServer({ script: ['Plain.'] })
    const events = await run()
    expect(events.some((e) => e.type === 'session/code-mode')).toBe(false)
    expect(toolNames(0)).not.toContain('run_code')
    expect(toolNames(0)).toContain('read')
  })
})
