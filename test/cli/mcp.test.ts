import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { McpServers } from '../../protocol/mcp.js'
import { cliArgv, runCli, spawnCli, waitForJsonEvent } from '../fixtures/cli.js'
import { fixtureServer, startHttpFixture } from '../fixtures/mcp-server/index.js'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import type { Script } from '../fixtures/model-server/script.js'

let home: string
let project: string
let log: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-mcp-cli-'))
  project = join(home, 'project')
  mkdirSync(project)
  log = join(home, 'fixture.log')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  steps: [{ toolCall: { id, name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }],
})

function configure(mcpServers: McpServers): void {
  writeFileSync(join(home, 'config.json'), JSON.stringify({ mcpServers }))
}

async function run(script: Script, ...flags: string[]) {
  server = await startModelServer({ script })
  return runCli(
    cliArgv(
      { home, project },
      'run',
      '--json',
      '--base-url',
      server.url,
      '--model',
      'm',
      ...flags,
      'go',
    ),
  )
}

type Event = { type: string; data: Record<string, unknown> }
const eventsOf = (stdout: string): Event[] =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event)
type Body = {
  tools?: { function: { name: string; parameters: Record<string, unknown> } }[]
  messages: { role: string; content: string | null }[]
}
const bodyOf = (index: number) => chatRequests(server as ModelServer)[index]?.body as Body
const toolNames = (index: number) => (bodyOf(index).tools ?? []).map((t) => t.function.name)
const fixtureLines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])

describe('bridle run with MCP servers', () => {
  it('offers the tools as mcp__<server>__<tool>, logs the call naming the server and sends the result back', async () => {
    configure({ fixture: fixtureServer({ log }) })
    const result = await run(
      [call('c1', 'mcp__fixture__echo', { text: 'hi' }), 'Done.'],
      '--approval',
      'auto-edit',
    )
    expect(result.stderr).not.toMatch(/MCP_SERVER_FAILED/)
    expect(result.status).toBe(0)
    expect(toolNames(0)).toEqual(
      expect.arrayContaining(['mcp__fixture__echo', 'mcp__fixture__write_note']),
    )
    // Built-ins first, sorted; the server's tools after them, its schema as it sent it.
    expect(toolNames(0).indexOf('read')).toBeLessThan(toolNames(0).indexOf('mcp__fixture__echo'))
    const echo = bodyOf(0).tools?.find((t) => t.function.name === 'mcp__fixture__echo')
    expect(echo?.function.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to say back' } },
      required: ['text'],
    })
    const events = eventsOf(result.stdout)
    expect(events.find((e) => e.type === 'tool/call')?.data).toMatchObject({
      name: 'mcp__fixture__echo',
      mcp: { server: 'fixture', tool: 'echo' },
    })
    expect(events.find((e) => e.type === 'tool/result')?.data).toMatchObject({
      ok: true,
      output: 'echo: hi',
      metadata: { mcpServer: 'fixture' },
    })
    expect(bodyOf(1).messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: hi' })
  })

  it('asks before a tool the server does not mark read-only (refused without a terminal in ask mode)', async () => {
    configure({ fixture: fixtureServer({ log }) })
    const result = await run([
      call('c1', 'mcp__fixture__write_note', { name: 'n', text: 'x' }),
      'Ok.',
    ])
    const outcome = eventsOf(result.stdout).find((e) => e.type === 'tool/result')?.data
    expect(outcome).toMatchObject({ ok: false, error: { code: 'NO_APPROVAL_CHANNEL' } })
    expect(existsSync(join(project, 'notes', 'n.txt'))).toBe(false)
    expect(fixtureLines()).not.toContain('call write_note')
  })

  it('a server that dies mid-call gives an error result and is started again by the next call', async () => {
    configure({ fixture: fixtureServer({ log }) })
    const result = await run(
      [
        call('c1', 'mcp__fixture__crash', {}),
        call('c2', 'mcp__fixture__echo', { text: 'again' }),
        'Done.',
      ],
      '--approval',
      'full-auto',
    )
    expect(result.status).toBe(0)
    const results = eventsOf(result.stdout).filter((e) => e.type === 'tool/result')
    expect(results[0]?.data).toMatchObject({ ok: false, error: { code: 'MCP_SERVER_CRASHED' } })
    expect((results[0]?.data.error as { message: string }).message).toMatch(
      /"fixture" stopped during the call to "crash".*exit code 3.*crashing on purpose/,
    )
    expect(results[1]?.data).toMatchObject({ ok: true, output: 'echo: again' })
    expect(fixtureLines().filter((line) => line.startsWith('start'))).toHaveLength(2)
  })

  it('a server that cannot start is a notice, and the turn goes on with the others', async () => {
    configure({
      broken: fixtureServer({ flags: ['--fail-start'] }),
      fixture: fixtureServer({ log }),
    })
    const result = await run(['Fine.'])
    expect(result.status).toBe(0)
    const notice = eventsOf(result.stdout).find(
      (e) => e.type === 'notice' && e.data.code === 'MCP_SERVER_FAILED',
    )
    expect(notice?.data.message).toMatch(/"broken" could not start.*FIXTURE_TOKEN is missing/)
    expect(toolNames(0)).toContain('mcp__fixture__echo')
    expect(toolNames(0).some((name) => name.startsWith('mcp__broken__'))).toBe(false)
  })

  it('Stop (Ctrl+C) cancels a slow MCP tool, and the server is told', async () => {
    configure({ fixture: fixtureServer({ log }) })
    server = await startModelServer({
      script: [call('c1', 'mcp__fixture__slow', { ms: 60_000 }), 'never'],
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
        'm',
        'go',
      ),
    )
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await waitForJsonEvent(child, (e) => e.type === 'tool/call', 60_000)
    await expect.poll(fixtureLines, { timeout: 20_000 }).toContain('call slow')
    child.kill('SIGINT')
    expect(await exited).toBe(130)
    expect(fixtureLines()).toContain('cancelled slow')
  })

  it('a server does not outlive the CLI: a second Ctrl+C kills its group, a killed CLI closes its stdin', async () => {
    configure({ fixture: fixtureServer({ log }) })
    const isAlive = (pid: number) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    const serverPid = () =>
      Number(
        fixtureLines()
          .filter((line) => line.startsWith('start'))
          .at(-1)
          ?.split(' ')[1],
      )
    for (const how of ['twice', 'SIGKILL'] as const) {
      await server?.close()
      server = await startModelServer({
        script: [call('c1', 'mcp__fixture__slow', { ms: 60_000 }), 'never'],
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
          'm',
          'go',
        ),
      )
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      await waitForJsonEvent(child, (e) => e.type === 'tool/call', 60_000)
      const pid = serverPid()
      expect(isAlive(pid)).toBe(true)
      if (how === 'twice') {
        child.kill('SIGINT')
        child.kill('SIGINT')
      } else child.kill('SIGKILL')
      await exited
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false)
    }
  })

  it("a project's .mcp.json starts nothing until it is trusted, and asks again once it changes", async () => {
    const file = join(project, '.mcp.json')
    writeFileSync(file, JSON.stringify({ mcpServers: { notes: fixtureServer({ log }) } }))
    const first = await run(['Hi.'])
    expect(first.status).toBe(0)
    expect(fixtureLines()).toEqual([])
    expect(toolNames(0).some((name) => name.startsWith('mcp__'))).toBe(false)
    expect(
      eventsOf(first.stdout).find((e) => e.data.code === 'MCP_PROJECT_UNTRUSTED')?.data.message,
    ).toMatch(/names MCP servers \(notes\).*trust/)
    await server?.close()

    const trusted = await run(['Hi.'], '--trust-project-mcp')
    expect(trusted.status).toBe(0)
    expect(toolNames(0)).toContain('mcp__notes__echo')
    await server?.close()

    // Trusted content is remembered; a changed file is a new question.
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { notes: fixtureServer({ log, timeoutMs: 5000 }) } }),
    )
    const starts = fixtureLines().length
    const changed = await run(['Hi.'])
    expect(changed.status).toBe(0)
    expect(fixtureLines()).toHaveLength(starts)
    expect(toolNames(0).some((name) => name.startsWith('mcp__'))).toBe(false)
  })

  it("asks on a terminal before starting a project's servers; y trusts the file", async () => {
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { notes: fixtureServer({ log }) } }),
    )
    server = await startModelServer({
      script: [call('c1', 'mcp__notes__echo', { text: 'trusted' }), 'Done.'],
    })
    const argv = cliArgv(
      { home, project },
      'run',
      '--approval',
      'auto-edit',
      '--base-url',
      server.url,
      '--model',
      'm',
      'go',
    )
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
    // `script` gives the CLI a real terminal, so it asks; our piped input is typed into it.
    const child = spawnCli(
      ['-qfec', [process.execPath, ...argv].map(quote).join(' '), '/dev/null'],
      'script',
    )
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await expect.poll(() => output, { timeout: 30_000 }).toContain('[y/N]')
    child.stdin.write('y\n')
    expect(await exited).toBe(0)
    expect(output).toContain('wants to start MCP servers on this computer')
    expect(output).toMatch(/notes: .*stdio\.ts/)
    expect(output).toContain('mcp__notes__echo (MCP server notes)')
    expect(fixtureLines()).toContain('call echo')
    expect(readFileSync(join(home, 'mcp-trust.json'), 'utf8')).toContain(realpathSync(project))
  }, 90_000)

  it('works the same with the fixture over streamable HTTP', async () => {
    const http = await startHttpFixture(project)
    try {
      configure({ remote: { type: 'http', url: http.url } })
      const result = await run(
        [call('c1', 'mcp__remote__add', { a: 20, b: 22 }), 'Done.'],
        '--approval',
        'auto-edit',
      )
      expect(result.status).toBe(0)
      expect(eventsOf(result.stdout).find((e) => e.type === 'tool/result')?.data).toMatchObject({
        ok: true,
        output: '42',
      })
    } finally {
      await http.close()
    }
  })
})

describe('bridle mcp', () => {
  it('list prints each server with its state and tools, a failed one with why, and exits 0', async () => {
    configure({
      fixture: fixtureServer({ log }),
      broken: fixtureServer({ flags: ['--fail-start'] }),
      off: { ...fixtureServer(), enabled: false },
    })
    const result = await runCli(cliArgv({ home, project }, 'mcp', 'list'))
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(/^fixture \(user, stdio: .*\): running$/m)
    expect(result.stdout).toMatch(/^ {2}mcp__fixture__echo \(read-only\) {2}Says the text back\.$/m)
    expect(result.stdout).toMatch(/^ {2}mcp__fixture__write_note {2}Writes a note/m)
    expect(result.stdout).toMatch(
      /^broken \(user, stdio: .*\): failed: could not start.*FIXTURE_TOKEN is missing/m,
    )
    expect(result.stdout).toMatch(/^off \(user, stdio: .*\): disabled: turned off/m)
    // Listing stops what it started.
    const pid = Number(fixtureLines()[0]?.split(' ')[1])
    expect(() => process.kill(pid, 0)).toThrow()
  })

  it('test starts one server and lists its tools; exit 1 when it cannot start', async () => {
    configure({ fixture: fixtureServer(), broken: fixtureServer({ flags: ['--fail-start'] }) })
    const good = await runCli(cliArgv({ home, project }, 'mcp', 'test', 'fixture'))
    expect(good.status).toBe(0)
    expect(good.stdout).toContain('mcp__fixture__add (read-only)')
    const bad = await runCli(cliArgv({ home, project }, 'mcp', 'test', 'broken'))
    expect(bad.status).toBe(1)
    expect(bad.stdout).toContain('FIXTURE_TOKEN is missing')
    const unknown = await runCli(cliArgv({ home, project }, 'mcp', 'test', 'nope'))
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('no MCP server named "nope" (configured: fixture, broken)')
  })
})
