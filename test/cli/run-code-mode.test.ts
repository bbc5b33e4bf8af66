import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { rowToEvent } from '../../main/core/log/rows.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { cliArgv, runCli, spawnCli, waitForJsonEvent } from '../fixtures/cli.js'

// Code mode through the real CLI, the real pipeline, real QuickJS and the scripted model server.

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-code-mode-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

const program = (code: string) => ({
  steps: [
    { toolCall: { id: 'p1', name: 'run_code', args: JSON.stringify({ code }) } },
    { finish: 'tool_calls' as const },
  ],
})

type Event = { type: string; data: Record<string, unknown> }
const eventsOf = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event)
type Body = {
  tools?: { function: { name: string } }[]
  messages: { role: string; content: string | null; tool_call_id?: string }[]
}
const bodyOf = (index: number) => chatRequests(server as ModelServer)[index]?.body as Body
/** What the model was shown of run_code's result in the request after the program. */
const programResult = () => bodyOf(1).messages.filter((m) => m.role === 'tool')

async function runWith(code: string, ...flags: string[]) {
  server = await startModelServer({ script: [program(code), 'Done.'] })
  const run = await runCli(
    cliArgv(
      { home, project },
      'run',
      '--json',
      '--code-mode',
      ...flags,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      'go',
    ),
  )
  return { ...run, events: eventsOf(run.stdout) }
}

describe('bridle run --code-mode', () => {
  it('runs a program that reads two files: both contents come back, the reads logged and linked', async () => {
    writeFileSync(join(project, 'a.txt'), 'alpha\n')
    writeFileSync(join(project, 'b.txt'), 'beta\n')
    const { status, events } = await runWith(
      `const a = await tools.read({ path: 'a.txt' })
       const b = await tools.read({ path: 'b.txt' })
       console.log('read both')
       return a + '|' + b`,
    )
    expect(status).toBe(0)
    expect(bodyOf(0).tools?.map((t) => t.function.name)).toContain('run_code')
    // The system prompt explains the mode with the tools typed from their schemas.
    const system = bodyOf(0).messages.find((m) => m.role === 'system')?.content ?? ''
    expect(system).toContain('Code mode:')
    expect(system).toMatch(/read\(args: \{ path: string;[^\n]*\}\): Promise<string>/)
    expect(system).not.toMatch(/run_code\(args/)
    const calls = events.filter((e) => e.type === 'tool/call')
    expect(calls.map((e) => [e.data['callId'], e.data['name'], e.data['parent']])).toEqual([
      ['p1', 'run_code', undefined],
      ['p1.1', 'read', { callId: 'p1' }],
      ['p1.2', 'read', { callId: 'p1' }],
    ])
    const results = events.filter((e) => e.type === 'tool/result')
    expect(results.map((e) => e.data['callId'])).toEqual(['p1.1', 'p1.2', 'p1'])
    // The model sees one tool message: run_code's, with both contents; never the inner reads.
    const shown = programResult()
    expect(shown).toHaveLength(1)
    expect(shown[0]?.tool_call_id).toBe('p1')
    expect(shown[0]?.content).toMatch(/read both[\s\S]*alpha[\s\S]*\|[\s\S]*beta/)
  })

  it('fails a program touching require, process or fetch with a clear error', async () => {
    const { status } = await runWith(
      `const seen = []
       for (const reach of [() => require('fs'), () => process.env, () => fetch('http://example.com')]) {
         try { reach(); seen.push('reached') } catch (e) { seen.push(e.message) }
       }
       return seen`,
    )
    expect(status).toBe(0)
    const content = programResult()[0]?.content ?? ''
    expect(content).not.toContain('reached')
    for (const name of ['require', 'process', 'fetch'])
      expect(content).toContain(`${name} is not available in run_code`)
  })

  it('ends an endless loop after an await with a time-limit error, and the turn completes', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ codeMode: { timeoutSeconds: 1 } }))
    writeFileSync(join(project, 'a.txt'), 'alpha\n')
    const started = Date.now()
    const { status, stdout } = await runWith(`await tools.read({ path: 'a.txt' }); for (;;) {}`)
    expect(status).toBe(0)
    expect(stdout).toContain('Done.')
    expect(Date.now() - started).toBeLessThan(20_000)
    const content = programResult()[0]?.content ?? ''
    expect(content).toMatch(/CODE_TIME_LIMIT: The program ran past its time limit of 1 s/)
  })

  it('asks for an inner call that needs approval: headless, refused, and the program catches it', async () => {
    const { status, events } = await runWith(
      `try { await tools.write({ path: 'x.txt', content: 'x' }); return 'wrote' }
       catch (e) { return 'caught ' + e.message }`,
    )
    expect(status).toBe(0)
    expect(readdirSync(project)).toEqual([])
    const decided = events.find((e) => e.type === 'approval/decided' && e.data['callId'] === 'p1.1')
    expect(decided?.data).toMatchObject({
      callId: 'p1.1',
      by: 'no-channel',
      parent: { callId: 'p1' },
    })
    expect(programResult()[0]?.content).toMatch(/^caught NO_APPROVAL_CHANNEL: /)
  })

  it('after a SIGKILL inside a program: the open inner call, then run_code, closed as outcome unknown', async () => {
    // A fractional duration nobody else uses marks our sleep, so the test can find and reap it.
    const duration = `28.${String(Date.now() % 100000).padStart(5, '0')}`
    server = await startModelServer({
      script: [program(`await tools.bash({ command: 'sleep ${duration}' })`), 'I checked first.'],
    })
    const child = spawnCli(
      cliArgv(
        { home, project },
        'run',
        '--json',
        '--code-mode',
        '--approval',
        'full-auto',
        '--base-url',
        server.url,
        '--model',
        'scripted',
        'go',
      ),
    )
    const started = await waitForJsonEvent(
      child,
      (e) => e.type === 'process/started' && e.data['callId'] === 'p1.1',
    )
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    for (const pid of processesRunning(['sleep', duration])) process.kill(pid, 'SIGKILL')

    const resumed = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--json',
        '--session',
        started.session,
        '--base-url',
        server.url,
        '--model',
        'scripted',
        'what happened?',
      ),
    )
    expect(resumed.status).toBe(0)
    const store = openStore(databasePath(home))
    const repaired = store
      .readEvents(started.session, { types: ['recovery/repaired'] })
      .map((row) => rowToEvent(row, row.seq))
    store.close()
    const items = repaired[0]?.type === 'recovery/repaired' ? repaired[0].data.items : []
    expect(items.map((item) => item.what.split(' ')[0])).toEqual(['p1.1', 'p1', 'closed', 'closed'])
    // The model sees run_code's result only, as outcome unknown.
    const shown = bodyOf(1).messages.filter((m) => m.role === 'tool')
    expect(shown.map((m) => m.tool_call_id)).toEqual(['p1'])
    expect(shown[0]?.content).toContain('TOOL_OUTCOME_UNKNOWN')
  }, 60_000)
})

/** Processes whose command line is exactly `argv`, by pid (to find and reap a marked sleep). */
function processesRunning(argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return []
    try {
      return readFileSync(`/proc/${name}/cmdline`, 'utf8') === wanted ? [Number(name)] : []
    } catch {
      return []
    }
  })
}
