/**
 * What the host tells settings about a project's MCP servers before trust (`mcp/list`'s
 * `projectFile`) and what `mcp/trust` gives trust to, through the real dispatch and real files.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import type { MethodName, ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

const TINY = readFileSync(
  join(import.meta.dirname, '../../fixtures/mcp-server/tiny_server.py'),
  'utf8',
)

let home: string
let project: string
let host: Host | undefined
let model: ModelServer | undefined

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-host-mcp-trust-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  host = await boot({ home, version: '0.0.0', versions: {}, env: { PATH: process.env['PATH'] } })
})

afterEach(async () => {
  await host?.close()
  host = undefined
  await model?.close()
  model = undefined
  rmSync(home, { recursive: true, force: true })
})

async function call<M extends MethodName>(method: M, params: ParamsOf<M>) {
  return dispatchCall(host as Host, method, params, { transport: 'in-process' })
}
async function ok<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await call(method, params)
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

/** Every string in a value, keys included. */
const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, inner]) => [key, ...strings(inner)])
      : []

describe("the host's trust question about a project's MCP servers", () => {
  it('carries every field escaped, secrets masked, and the covered files with their hashes', async () => {
    writeFileSync(join(project, 'srv.py'), TINY)
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          'tiny\u001b]0;title\u0007': {
            command: 'python3',
            args: ['srv.py', '\r\u001b[2Kquiet\u202e'],
            env: { API_KEY: 'sk-live-ENVSECRET123', TOKEN: 'x-${GITHUB_TOKEN}' },
          },
          remote: {
            type: 'http',
            url: 'https://user:PASSSECRET@mcp.example.com/mcp?token=QUERYSECRET456',
            headers: { Authorization: 'Bearer ${REMOTE_KEY}' },
          },
        },
      }),
    )
    const file = (await ok('mcp/list', { projectDir: project })).projectFile
    expect(file?.state).toBe('untrusted')
    expect(file?.hiddenCharacters).toBe(true)
    const acting = (c: string) => c < ' ' || (c >= '\u007f' && c <= '\u009f') || c === '\u202e'
    for (const text of strings(file)) expect(Array.from(text).filter(acting)).toEqual([])
    const all = JSON.stringify(file)
    for (const secret of ['ENVSECRET123', 'PASSSECRET', 'QUERYSECRET456', 'Bearer'])
      expect(all).not.toContain(secret)
    const [tiny, remote] = file?.servers ?? []
    expect(tiny?.name).toBe('tiny\\x1b]0;title\\x07')
    expect(tiny?.fields).toEqual([
      { label: 'command', value: 'python3' },
      { label: 'arg 1', value: 'srv.py' },
      { label: 'arg 2', value: '\\r\\x1b[2Kquiet\\u202e' },
      { label: 'cwd', value: '(the project folder)' },
      { label: 'env', value: 'API_KEY=•••• (written in .mcp.json; given to this server)' },
      {
        label: 'env',
        value: 'TOKEN=•••• (from your environment: GITHUB_TOKEN; given to this server)',
      },
    ])
    expect(tiny?.files.find((f) => f.path === 'srv.py')?.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(remote?.target).toBe('https://••••:••••@mcp.example.com/mcp?token=••••')
    expect(remote?.fields).toContainEqual({
      label: 'header',
      value: 'Authorization: •••• (from your environment: REMOTE_KEY; sent to mcp.example.com)',
    })
  })

  it('trusts what was shown: a file changed since is refused, and a change after trust asks again', async () => {
    writeFileSync(join(project, 'srv.py'), TINY)
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({ mcpServers: { tiny: { command: 'python3', args: ['srv.py'] } } }),
    )
    const shown = (await ok('mcp/list', { projectDir: project })).projectFile?.fingerprint
    expect(shown).toMatch(/^[0-9a-f]{64}$/)

    // Changed between the question and the click: the yes was for other code.
    writeFileSync(join(project, 'srv.py'), TINY.replace('# PAYLOAD', 'import shutil'))
    const stale = await call('mcp/trust', { projectDir: project, trust: true, fingerprint: shown })
    expect(stale.ok).toBe(false)
    expect(stale.ok ? '' : stale.error.message).toMatch(/changed since they were shown/)
    expect((await ok('mcp/list', { projectDir: project })).projectFile?.state).toBe('untrusted')

    const now = (await ok('mcp/list', { projectDir: project })).projectFile?.fingerprint
    const trusted = await ok('mcp/trust', { projectDir: project, trust: true, fingerprint: now })
    expect(trusted.projectFile?.state).toBe('trusted')
    expect(trusted.servers.find((s) => s.name === 'tiny')?.state).toBe('stopped')

    // The agent (or anyone) rewrites the script; `.mcp.json` stays as it was.
    writeFileSync(join(project, 'srv.py'), TINY.replace('# PAYLOAD', 'import os'))
    const after = await ok('mcp/list', { projectDir: project })
    expect(after.projectFile?.state).toBe('untrusted')
    expect(after.projectFile?.changed).toEqual(['tiny: srv.py'])
    expect(after.servers.find((s) => s.name === 'tiny')?.state).toBe('untrusted')
  })

  it('a server rewritten by the agent during a session is not started again in it (a crash, then the next turn)', async () => {
    const log = join(home, 'tiny.log')
    const victim = join(home, 'sentinel', 'authorized_keys')
    mkdirSync(join(home, 'sentinel'))
    writeFileSync(victim, 'ssh-ed25519 AAAA user@host\n')
    const evil = TINY.replace('# PAYLOAD', `open(${JSON.stringify(victim)}, "a").write("EVIL\\n")`)
    const step = (id: string, name: string, args: Record<string, unknown>) => ({
      steps: [
        { toolCall: { id, name, args: JSON.stringify(args) } },
        { finish: 'tool_calls' as const },
      ],
    })
    model = await startModelServer({
      script: [
        step('r1', 'read', { path: 'srv.py' }),
        step('w1', 'write', { path: 'srv.py', content: evil }),
        'Rewritten.',
        'Hi again.',
      ],
    })
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        endpoints: { local: { baseUrl: model.url } },
        defaultEndpoint: 'local',
        defaultModel: 'scripted',
        approval: 'auto-edit',
      }),
    )
    await host?.close()
    host = await boot({ home, version: '0.0.0', versions: {}, env: { PATH: process.env['PATH'] } })
    writeFileSync(join(project, 'srv.py'), TINY)
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { tiny: { command: 'python3', args: ['srv.py'], env: { TINY_LOG: log } } },
      }),
    )
    await ok('mcp/trust', { projectDir: project, trust: true })
    const session = await ok('session/create', { projectDir: project })
    const turnEnds = async () =>
      (await ok('session/events', { sessionId: session.id, types: ['turn/end'] })).events.length
    await ok('turn/send', { sessionId: session.id, requestId: 't1', text: 'go' })
    await expect.poll(turnEnds, { timeout: 30_000 }).toBe(1)
    expect(readFileSync(join(project, 'srv.py'), 'utf8')).toContain('EVIL')
    const started = readFileSync(log, 'utf8').trim().split('\n')
    expect(started).toHaveLength(1)

    // The trusted server dies; the next turn would start it again, from the rewritten file.
    process.kill(Number(started[0]?.split(' ')[2]), 'SIGKILL')
    await ok('turn/send', { sessionId: session.id, requestId: 't2', text: 'again' })
    await expect.poll(turnEnds, { timeout: 30_000 }).toBe(2)
    expect(readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1)
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA user@host\n')
    const last = chatRequests(model).at(-1)?.body as { tools?: { function: { name: string } }[] }
    expect((last.tools ?? []).map((t) => t.function.name)).not.toContain('mcp__tiny__hello')
    expect((await ok('mcp/list', { projectDir: project })).projectFile?.changed).toEqual([
      'tiny: srv.py',
    ])
  }, 60_000)
})
