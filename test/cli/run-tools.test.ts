import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, runCli, spawnCli, waitForJsonEvent } from '../fixtures/cli.js'

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-run-tools-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  toolCall: { id, name, args: JSON.stringify(args) },
})
const calls = (...steps: ReturnType<typeof call>[]) => ({
  steps: [...steps, { finish: 'tool_calls' as const }],
})

type ChatMessage = { role: string; content: string | null; tool_call_id?: string }
const messagesOf = (index: number): ChatMessage[] =>
  (chatRequests(server as ModelServer)[index]?.body as { messages: ChatMessage[] }).messages

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

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`

describe('bridle run with the built-in tools', () => {
  it('asks on the terminal: "always" is remembered for this project, "n reason" reaches the model', async () => {
    server = await startModelServer({
      script: [
        calls(call('c1', 'bash', { command: 'touch made.txt' })),
        calls(call('c2', 'bash', { command: 'touch made.txt again.txt' })),
        calls(call('c3', 'write', { path: 'notes.md', content: 'hello\n' })),
        'Done.',
      ],
    })
    const argv = cliArgv(
      { home, project },
      'run',
      '--json',
      '--approval',
      'ask',
      '--base-url',
      server.url,
      '--model',
      'scripted',
      'make files',
    )
    // `script` gives the CLI a real terminal, so it asks; our piped input is typed into it.
    const child = spawnCli(
      ['-qfec', [process.execPath, ...argv].map(shellQuote).join(' '), '/dev/null'],
      'script',
    )
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    child.stdin.write('a\n')
    child.stdin.write('n use the notes template\n')
    expect(await exited).toBe(0)

    expect(output).toContain('? bash needs your approval:')
    expect(output).toContain('[a] always allow "touch *"')
    expect(output).toContain('[e] always allow exactly "touch made.txt"')
    expect(output).toContain('remembered: always allow bash "touch *"')
    expect(existsSync(join(project, 'made.txt'))).toBe(true)
    expect(existsSync(join(project, 'again.txt'))).toBe(true)
    expect(existsSync(join(project, 'notes.md'))).toBe(false)
    // Asked twice (the second bash call was covered by the remembered rule).
    expect(output.match(/needs your approval/g)).toHaveLength(2)
    const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as {
      approvalRules: unknown[]
    }
    expect(config.approvalRules).toEqual([
      { tool: 'bash', pattern: 'touch *', effect: 'allow', project: realpathSync(project) },
    ])
    const denied = messagesOf(3).find((m) => m.tool_call_id === 'c3')
    expect(denied?.content).toContain('APPROVAL_DENIED')
    expect(denied?.content).toContain('use the notes template')
    const decided = output.split(/\r?\n/).flatMap((line) => {
      const start = line.indexOf('{"session"')
      if (start < 0) return []
      const event = JSON.parse(line.slice(start)) as {
        type: string
        data: { decision?: string; by?: string; detail?: string }
      }
      return event.type === 'approval/decided'
        ? [
            `${event.data.decision} by ${event.data.by}${event.data.detail ? ` (${event.data.detail})` : ''}`,
          ]
        : []
    })
    // The second command was allowed by the rule just kept, and the log says so.
    expect(decided).toEqual(['allow by user', 'allow by rule (bash: touch *)', 'deny by user'])
  }, 60_000)

  it('headless ask mode refuses edits and commands with NO_APPROVAL_CHANNEL and changes nothing', async () => {
    server = await startModelServer({
      script: [
        calls(
          call('c1', 'write', { path: 'a.txt', content: 'x' }),
          call('c2', 'bash', { command: 'touch b.txt' }),
        ),
        'I could not.',
      ],
    })
    const run = await runCli(
      cliArgv({ home, project }, 'run', '--base-url', server.url, '--model', 'scripted', 'go'),
    )
    expect(run.status).toBe(0)
    expect(run.stderr).toMatch(/NO_APPROVAL_CHANNEL/)
    expect(readdirSync(project)).toEqual([])
  })

  it('after a SIGKILL during bash: TOOL_OUTCOME_UNKNOWN for the running call, TOOL_NOT_STARTED for the next, both in the next request', async () => {
    // A fractional duration nobody else uses marks our sleep, so the test can find and reap it.
    const duration = `29.${String(Date.now() % 100000).padStart(5, '0')}`
    server = await startModelServer({
      script: [
        calls(
          call('c1', 'bash', { command: `sleep ${duration}` }),
          call('c2', 'bash', { command: 'touch after.txt' }),
        ),
        'I checked the state first.',
      ],
    })
    const child = spawnCli(
      cliArgv(
        { home, project },
        'run',
        '--json',
        '--approval',
        'full-auto',
        '--base-url',
        server.url,
        '--model',
        'scripted',
        'wait, then touch',
      ),
    )
    const started = await waitForJsonEvent(child, (e) => e.type === 'tool/call')
    const sessionId = started.session
    // Kill once the command is really running (its process exists).
    for (let i = 0; i < 100 && processesRunning(['sleep', duration]).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(processesRunning(['sleep', duration])).toHaveLength(1)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    // The command outlives the harness (it leads its own process group); reap it.
    for (const pid of processesRunning(['sleep', duration])) process.kill(pid, 'SIGKILL')

    const resumed = await runCli(
      cliArgv(
        { home, project },
        'run',
        '--session',
        sessionId,
        '--base-url',
        server.url,
        '--model',
        'scripted',
        'what happened?',
      ),
    )
    expect(resumed.status).toBe(0)
    expect(resumed.stdout).toContain('I checked the state first.')
    expect(existsSync(join(project, 'after.txt'))).toBe(false)
    const history = messagesOf(1)
    const unknown = history.find((m) => m.tool_call_id === 'c1')?.content ?? ''
    const notStarted = history.find((m) => m.tool_call_id === 'c2')?.content ?? ''
    expect(unknown).toContain('TOOL_OUTCOME_UNKNOWN')
    expect(unknown).toContain('Check the current state')
    expect(notStarted).toContain('TOOL_NOT_STARTED')
    expect(notStarted).toContain('safe to run again')
    // The call order survives: assistant calls, then both results, then the new prompt (the
    // first user message is the first run's context: date and git state).
    expect(history.map((m) => m.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ])
  }, 60_000)
})
