import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
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
  home = mkdtempSync(join(tmpdir(), 'bridle-run-'))
  project = join(home, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'notes.md'), '# Notes\nship it\n')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

const args = (...rest: string[]) => cliArgv({ home, project }, ...rest)
const inspect = (sessionId: string) => runCli(cliArgv({ home }, 'inspect', sessionId))

describe('bridle run', () => {
  it('streams an answer that used a read-only tool, and exits 0', async () => {
    server = await startModelServer({
      script: [
        {
          steps: [
            { toolCall: { id: 'c1', name: 'read', args: '{"path":"notes.md"}' } },
            { finish: 'tool_calls' },
          ],
        },
        { steps: [{ text: 'The notes say: ship it.' }], chunkSize: 5 },
      ],
    })
    const run = await runCli(
      args('run', '--base-url', server.url, '--model', 'scripted', 'what do the notes say?'),
    )
    expect(run.stderr).toMatch(/^session [0-9a-f-]{36}$/m)
    expect(run.stdout).toContain('The notes say: ship it.')
    expect(run.status).toBe(0)
    const toolMessage = (
      chatRequests(server)[1]?.body as { messages: { role: string; content: string }[] }
    ).messages.at(-1)
    expect(toolMessage).toMatchObject({ role: 'tool', content: expect.stringContaining('ship it') })
  })

  it('says what is missing when there is no endpoint or model, and exits 1', async () => {
    const run = await runCli(args('run', 'hello'))
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('no model endpoint: pass --base-url')
  })

  it('reports a bad config.json with the failing path instead of ignoring it', async () => {
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({ endpoints: { local: { baseUrl: 'not a url' } } }),
    )
    const run = await runCli(args('run', 'hello'))
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('endpoints.local.baseUrl')
  })

  it('after a SIGKILL mid-stream, --session repairs and continues with the interrupted text in history', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    server = await startModelServer({
      script: [
        { steps: [{ text: 'Reading the notes, ' }, { wait: held }, { text: 'never sent' }] },
        'Continuing: the notes say ship it.',
      ],
    })
    const child = spawn(
      process.execPath,
      args('run', '--json', '--base-url', server.url, '--model', 'scripted', 'summarise'),
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let sessionId = ''
    await new Promise<void>((resolve, reject) => {
      let buffered = ''
      const timer = setTimeout(() => reject(new Error(`no chunk logged:\n${buffered}`)), 20_000)
      child.stdout.on('data', (data: Buffer) => {
        buffered += data.toString()
        for (const line of buffered.split('\n').slice(0, -1)) {
          const event = JSON.parse(line) as { session: string; type: string }
          sessionId = event.session
          if (event.type === 'assistant/chunk') {
            clearTimeout(timer)
            resolve()
          }
        }
      })
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    release()

    const resumed = await runCli(
      args('run', '--session', sessionId, '--base-url', server.url, '--model', 'scripted', 'go on'),
    )
    expect(resumed.stdout).toContain('Continuing: the notes say ship it.')
    expect(resumed.status).toBe(0)
    const history = (
      chatRequests(server)[1]?.body as { messages: { role: string; content: string | null }[] }
    ).messages
    // The first run's context message (date, git) comes first; the same day adds no second one.
    expect(history.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'user'])
    expect(history[1]?.content).toContain("Today's date:")
    expect(history[3]?.content).toBe('Reading the notes, ')
    expect(history[4]?.content).toBe('go on')
    const timeline = await inspect(sessionId)
    expect(timeline.stdout).toMatch(/recovery\/repaired\s+crash: 3 synthetic event\(s\)/)
    expect(timeline.stdout).toMatch(/turn\/end\s+interrupted-by-crash/)
    // Every request is logged with what we counted it at (no tokenizer for `scripted`: estimated).
    expect(timeline.stdout).toMatch(/request\/start\s+.*scripted.*, ~\d+ tokens \(estimate\)/)
  })

  it('Ctrl+C stops the turn cleanly: interrupted message, turn/end cancelled, exit 130', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    server = await startModelServer({
      script: [{ steps: [{ text: 'Working on it' }, { wait: held }, { text: '!' }] }],
    })
    const child = spawn(
      process.execPath,
      args('run', '--base-url', server.url, '--model', 'scripted', 'do it'),
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    )
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    release()
    expect(stderr).toContain('stopping')
    const sessionId = /^session (\S+)$/m.exec(stderr)?.[1] ?? ''
    const timeline = await inspect(sessionId)
    expect(timeline.stdout).toMatch(/assistant\/message\s+Working on it \[cancelled, interrupted\]/)
    expect(timeline.stdout).toMatch(/turn\/end\s+cancelled/)
  })
})
