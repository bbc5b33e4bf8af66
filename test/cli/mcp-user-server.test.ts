/**
 * `bridle run` with a user's MCP server (config.json) in a project that brings its own `mod.mjs`:
 * the whole path (launch environment, key handoff, manager, stdio) runs the user's file in the
 * home folder, gives the project as the root, and hands the server none of the keys the CLI was
 * started with. The fixture reports its folder, environment and roots through `whereami`.
 */
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { cliArgv, runCli } from '../fixtures/cli.js'
import { FIXTURE_STDIO, fixtureServer } from '../fixtures/mcp-server/index.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'

let root: string
let data: string
let home: string
let project: string
let model: ModelServer | undefined

const KEYS = {
  OPENAI_API_KEY: 'sk-openai-cli-0123456789abcdef',
  DEEPSEEK_API_KEY: 'sk-deepseek-cli-0123456789abcdef',
  // The endpoint's key, named by --api-key-env.
  MY_PROVIDER_KEY: 'sk-myprovider-cli-0123456789abcdef',
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-mcp-user-cli-')))
  data = join(root, 'data')
  home = join(root, 'home')
  project = join(home, 'code', 'project')
  mkdirSync(data)
  mkdirSync(project, { recursive: true })
  writeFileSync(join(home, 'notes.txt'), 'my notes\n')
  const fixture = JSON.stringify(pathToFileURL(FIXTURE_STDIO).href)
  writeFileSync(join(home, 'mod.mjs'), `await import(${fixture})\n`)
  writeFileSync(
    join(project, 'mod.mjs'),
    `import { writeFileSync } from 'node:fs'\nwriteFileSync(${JSON.stringify(join(home, 'PWNED'))}, 'project code ran')\nawait import(${fixture})\n`,
  )
  writeFileSync(
    join(data, 'config.json'),
    JSON.stringify({
      mcpServers: {
        mine: {
          command: process.execPath,
          args: [...(fixtureServer().args ?? []).slice(0, 2), 'mod.mjs'],
        },
      },
    }),
  )
})

afterEach(async () => {
  await model?.close()
  model = undefined
  rmSync(root, { recursive: true, force: true })
})

function homeHashes(): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (path === project) continue
      if (entry.isDirectory()) walk(path)
      else out[path] = createHash('sha256').update(readFileSync(path)).digest('hex')
    }
  }
  walk(home)
  return out
}

it('runs the user’s server in the home folder with the project as root and none of the keys', async () => {
  model = await startModelServer({
    script: [
      {
        steps: [
          { toolCall: { id: 'c1', name: 'mcp__mine__whereami', args: '{}' } },
          { finish: 'tool_calls' },
        ],
      },
      'Done.',
    ],
  })
  const before = homeHashes()
  const argv = cliArgv({ home: data, project }, 'run', '--json', '--base-url', model.url)
  const result = await runCli(
    [...argv, '--model', 'm', '--api-key-env', 'MY_PROVIDER_KEY', '--approval', 'auto-edit', 'go'],
    {
      env: {
        ...process.env,
        HOME: home,
        // Bridle's own cache (the sandbox probe) goes elsewhere, so the home tree is the user's.
        XDG_CACHE_HOME: join(root, 'cache'),
        PATH: `node_modules/.bin:.:${process.env['PATH'] ?? ''}`,
        ...KEYS,
      },
    },
  )
  expect(result.stderr).not.toMatch(/MCP_SERVER/)
  expect(result.status).toBe(0)
  const output = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; data: { output?: string } })
    .find((event) => event.type === 'tool/result')?.data.output
  const where = JSON.parse(output ?? '{}') as {
    cwd: string
    env: Record<string, string>
    roots: unknown
  }
  expect(where.cwd).toBe(home)
  expect(where.roots).toEqual([{ uri: pathToFileURL(project).href, name: 'project' }])
  const values = Object.values(where.env)
  for (const key of Object.values(KEYS)) expect(values.some((v) => v.includes(key))).toBe(false)
  expect(where.env['PATH']?.split(':').every((entry) => entry.startsWith('/'))).toBe(true)
  expect(existsSync(join(home, 'PWNED'))).toBe(false)
  expect(homeHashes()).toEqual(before)
}, 90_000)
