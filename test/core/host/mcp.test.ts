import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import type { MethodName, ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { fixtureServer } from '../../fixtures/mcp-server/index.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

let home: string
let project: string
let host: Host | undefined
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-host-mcp-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
})

afterEach(async () => {
  await host?.close()
  host = undefined
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

async function start(config: Record<string, unknown>): Promise<void> {
  server = await startModelServer({ script: ['Read it.'] })
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      endpoints: { local: { baseUrl: server.url } },
      defaultEndpoint: 'local',
      defaultModel: 'scripted',
      ...config,
    }),
  )
  host = await boot({ home, version: '0.0.0', versions: {}, env: { PATH: process.env['PATH'] } })
}

async function call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await dispatchCall(host as Host, method, params, { transport: 'in-process' })
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

describe('MCP in the host', () => {
  it("lists a project's servers, asks trust for its .mcp.json, and offers prompts and resources", async () => {
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { notes: fixtureServer() } }),
    )
    await start({ mcpServers: { broken: fixtureServer({ flags: ['--fail-start'] }) } })
    const listed = await call('mcp/list', { projectDir: project })
    expect(listed.projectFile).toMatchObject({ state: 'untrusted', servers: [{ name: 'notes' }] })
    expect(listed.servers.map((s) => [s.name, s.scope, s.state])).toEqual([
      ['broken', 'user', 'stopped'],
      ['notes', 'project', 'untrusted'],
    ])
    const trusted = await call('mcp/trust', { projectDir: project, trust: true })
    expect(trusted.projectFile?.state).toBe('trusted')
    expect(trusted.servers.find((s) => s.name === 'notes')?.state).toBe('stopped')

    const catalog = await call('mcp/catalog', { projectDir: project })
    expect(catalog.prompts).toEqual([
      expect.objectContaining({ server: 'notes', name: 'review', command: '/mcp__notes__review' }),
    ])
    expect(catalog.resources.map((r) => r.uri).sort()).toEqual([
      'fixture://logo',
      'fixture://readme',
    ])
    expect(catalog.failures).toEqual([
      { server: 'broken', reason: expect.stringMatching(/FIXTURE_TOKEN is missing/) as string },
    ])
    const prompt = await call('mcp/prompt', {
      projectDir: project,
      server: 'notes',
      name: 'review',
      arguments: { file: 'a.ts' },
    })
    expect(prompt.text).toBe('Review a.ts for bugs.')

    const after = await call('mcp/list', { projectDir: project })
    expect(after.servers.find((s) => s.name === 'broken')).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/could not start/) as string,
      stderr: expect.stringContaining('FIXTURE_TOKEN is missing') as string,
    })
    expect(after.servers.find((s) => s.name === 'notes')?.tools.map((t) => t.name)).toContain(
      'mcp__notes__echo',
    )
  })

  it('attaches a text resource to a message as the model sees it, and refuses a binary one', async () => {
    await start({ mcpServers: { fixture: fixtureServer() } })
    const session = await call('session/create', { projectDir: project })
    const refused = await dispatchCall(
      host as Host,
      'turn/send',
      {
        sessionId: session.id,
        requestId: 'r0',
        text: 'look',
        attachments: [{ kind: 'resource', server: 'fixture', uri: 'fixture://logo' }],
      },
      { transport: 'in-process' },
    )
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'ATTACHMENT_REFUSED', message: expect.stringMatching(/not text/) as string },
    })
    await call('turn/send', {
      sessionId: session.id,
      requestId: 'r1',
      text: 'What is this?',
      attachments: [{ kind: 'resource', server: 'fixture', uri: 'fixture://readme' }],
    })
    await expect.poll(() => chatRequests(server as ModelServer).length, { timeout: 20_000 }).toBe(1)
    const body = chatRequests(server as ModelServer)[0]?.body as {
      messages: { role: string; content: string }[]
    }
    expect(
      body.messages.find((m) => m.role === 'user' && m.content.startsWith('What'))?.content,
    ).toBe(
      'What is this?\n\n<resource server="fixture" uri="fixture://readme">\nThe fixture readme.\n</resource>',
    )
  })

  it('turns a user server off in config.json, and restart starts it now', async () => {
    await start({ mcpServers: { fixture: fixtureServer() } })
    const restarted = await call('mcp/restart', { projectDir: project, name: 'fixture' })
    expect(restarted.servers[0]?.state).toBe('running')
    const off = await call('mcp/setEnabled', {
      projectDir: project,
      name: 'fixture',
      enabled: false,
    })
    expect(off.servers[0]).toMatchObject({ state: 'disabled' })
    const on = await call('mcp/setEnabled', { projectDir: project, name: 'fixture', enabled: true })
    expect(on.servers[0]?.state).toBe('stopped')
  })
})
