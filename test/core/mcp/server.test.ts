import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { McpCallError, McpServer } from '../../../main/core/mcp/index.js'
import type { McpServerConfig } from '../../../protocol/mcp.js'
import { fixtureServer, startHttpFixture } from '../../fixtures/mcp-server/index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-mcp-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function server(config: McpServerConfig, dir: string, env: NodeJS.ProcessEnv = process.env) {
  const made = new McpServer({
    name: 'fixture',
    config,
    scope: 'project',
    projectDir: dir,
    env,
    clientVersion: '0',
  })
  cleanups.push(() => made.stop())
  return made
}

const lines = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const signal = () => new AbortController().signal

describe('an MCP server over stdio', () => {
  it('starts on first use, lists its tools with their read-only hints and answers a call', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = server(fixtureServer({ log }), dir)
    expect(s.state).toBe('stopped')
    await s.ensure()
    expect(s.state).toBe('running')
    const tools = s.tools ?? []
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'add', 'write_note', 'slow', 'crash']),
    )
    expect(tools.find((t) => t.name === 'echo')?.readOnly).toBe(true)
    expect(tools.find((t) => t.name === 'write_note')?.readOnly).toBe(false)
    const result = await s.call('echo', { text: 'hi' }, signal())
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi' }])
    expect(lines(log).filter((l) => l.startsWith('start'))).toHaveLength(1)
  })

  it('ends its whole process group on stop', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = server(fixtureServer({ log }), dir)
    await s.ensure()
    const pid = Number(lines(log)[0]?.split(' ')[1])
    expect(alive(pid)).toBe(true)
    await s.stop()
    expect(s.state).toBe('stopped')
    expect(alive(pid)).toBe(false)
    expect(s.tools?.length).toBeGreaterThan(0)
  })

  it('stops after a while without calls, keeps its tools, and the next call starts it again', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = new McpServer({
      name: 'fixture',
      config: fixtureServer({ log }),
      scope: 'project',
      projectDir: dir,
      env: process.env,
      clientVersion: '0',
      idleMs: 500,
    })
    cleanups.push(() => s.stop())
    await s.call('echo', { text: 'a' }, signal())
    const pid = Number(lines(log)[0]?.split(' ')[1])
    await expect.poll(() => s.state, { timeout: 10_000 }).toBe('stopped')
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false)
    expect(s.tools?.map((t) => t.name)).toContain('echo')
    const again = await s.call('echo', { text: 'b' }, signal())
    expect(again.content).toEqual([{ type: 'text', text: 'echo: b' }])
    expect(lines(log).filter((l) => l.startsWith('start'))).toHaveLength(2)
  })

  it('a server that crashes mid-call fails that call naming it, and the next use starts it again', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = server(fixtureServer({ log }), dir)
    const error = await s.call('crash', {}, signal()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpCallError)
    expect((error as McpCallError).code).toBe('MCP_SERVER_CRASHED')
    expect((error as Error).message).toContain('"fixture"')
    expect((error as Error).message).toContain('exit code 3')
    expect((error as Error).message).toContain('crashing on purpose')
    expect(s.state).toBe('failed')
    // It ran well before: no wait before it starts again.
    expect(s.mayStart).toBe(true)
    const again = await s.call('echo', { text: 'back' }, signal())
    expect(again.content).toEqual([{ type: 'text', text: 'echo: back' }])
    expect(lines(log).filter((l) => l.startsWith('start'))).toHaveLength(2)
  })

  it('a call past its timeout fails with MCP_TIMEOUT and the server is told to cancel', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = server(fixtureServer({ log, timeoutMs: 300 }), dir)
    const error = await s.call('slow', { ms: 10_000 }, signal()).catch((e: unknown) => e)
    expect((error as McpCallError).code).toBe('MCP_TIMEOUT')
    expect((error as Error).message).toMatch(/did not answer "slow" within 0\.3 s/)
    await expect.poll(() => lines(log), { timeout: 10_000 }).toContain('cancelled slow')
    expect(s.state).toBe('running')
  })

  it('the user’s cancel ends a call at once and reaches the server', async () => {
    const dir = folder()
    const log = join(dir, 'log')
    const s = server(fixtureServer({ log }), dir)
    const stop = new AbortController()
    const pending = s.call('slow', { ms: 10_000 }, stop.signal).catch((e: unknown) => e)
    await expect.poll(() => lines(log), { timeout: 20_000 }).toContain('call slow')
    stop.abort(new Error('stopped by the user'))
    expect(await pending).toEqual(new Error('stopped by the user'))
    await expect.poll(() => lines(log), { timeout: 10_000 }).toContain('cancelled slow')
  })

  it('garbage on stdout ends the connection with what was sent', async () => {
    const dir = folder()
    const s = server(fixtureServer(), dir)
    const error = await s.call('garbage', {}, signal()).catch((e: unknown) => e)
    expect((error as McpCallError).code).toBe('MCP_SERVER_CRASHED')
    expect((error as Error).message).toContain('not MCP on stdout: "this is not json-rpc"')
  })

  it('a server that cannot start says why, with its stderr, and waits longer after each failure', async () => {
    const dir = folder()
    let now = 1_000_000
    const s = new McpServer({
      name: 'broken',
      config: fixtureServer({ flags: ['--fail-start'] }),
      scope: 'project',
      projectDir: dir,
      env: process.env,
      clientVersion: '0',
      now: () => now,
    })
    const first = await s.ensure().catch((e: unknown) => e)
    expect((first as Error).message).toMatch(/The MCP server "broken" could not start/)
    expect((first as Error).message).toContain('FIXTURE_TOKEN is missing')
    expect(s.state).toBe('failed')
    expect(s.mayStart).toBe(false)
    now += 1000
    expect(s.mayStart).toBe(true)
    await s.ensure().catch(() => undefined)
    now += 1000
    expect(s.mayStart).toBe(false)
    now += 1000
    expect(s.mayStart).toBe(true)
  })

  it('a program that does not exist is named', async () => {
    const s = server({ command: 'bridle-no-such-mcp-server' }, folder())
    await expect(s.ensure()).rejects.toThrow(/"bridle-no-such-mcp-server" was not found/)
  })

  it('a server that never answers fails its start after startTimeoutMs', async () => {
    const s = server(fixtureServer({ flags: ['--hang-start'], startTimeoutMs: 1500 }), folder())
    await expect(s.ensure()).rejects.toThrow(/did not finish starting within 1\.5 s/)
  })

  it('gets only a minimal environment plus its own env, with ${VAR} expanded', async () => {
    const dir = folder()
    const s = server(
      {
        ...fixtureServer(),
        env: { GREETING: '${BRIDLE_TEST_GREETING}', OTHER: '${BRIDLE_UNSET:-fallback}' },
      },
      dir,
      { ...process.env, BRIDLE_TEST_GREETING: 'hello', OPENAI_API_KEY: 'sk-secret' },
    )
    await s.ensure()
    // The fixture writes notes in its cwd: a project server's is the project folder.
    await s.call('write_note', { name: 'n', text: 'x' }, signal())
    expect(readFileSync(join(dir, 'notes', 'n.txt'), 'utf8')).toBe('x')
  })

  it('names an unset variable instead of starting with an empty secret', async () => {
    const s = server({ ...fixtureServer(), env: { TOKEN: '${BRIDLE_SURELY_UNSET}' } }, folder(), {
      PATH: process.env['PATH'],
    })
    await expect(s.ensure()).rejects.toThrow(
      /BRIDLE_SURELY_UNSET named in fixture\.env\.TOKEN is not set/,
    )
  })
})

describe('an MCP server over streamable HTTP', () => {
  it('lists and calls tools, sending the configured headers with variables expanded', async () => {
    const dir = folder()
    const http = await startHttpFixture(dir)
    cleanups.push(() => http.close())
    const s = server(
      { type: 'http', url: http.url, headers: { Authorization: 'Bearer ${BRIDLE_TEST_TOKEN}' } },
      dir,
      { BRIDLE_TEST_TOKEN: 't0k' },
    )
    await s.ensure()
    expect(s.tools?.map((t) => t.name)).toContain('add')
    const result = await s.call('add', { a: 2, b: 3 }, signal())
    expect(result.content).toEqual([{ type: 'text', text: '5' }])
    expect(http.headers.every((h) => h['authorization'] === 'Bearer t0k')).toBe(true)
  })

  it('a server that is not there fails its start in words, not "fetch failed"', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const s = server({ type: 'http', url: `http://127.0.0.1:${port}/mcp` }, folder())
    await expect(s.ensure()).rejects.toThrow(
      /could not start: nothing answers at that address \(connection refused\)/,
    )
  })

  it('a server that refuses the credentials says so and points at "headers"', async () => {
    const http = createServer((_req, res) => {
      res.statusCode = 401
      res.end('no')
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => http.close(() => resolve())))
    const { port } = http.address() as AddressInfo
    const s = server({ type: 'http', url: `http://127.0.0.1:${port}/mcp` }, folder())
    await expect(s.ensure()).rejects.toThrow(/\(401\).*"headers"/)
  })
})
