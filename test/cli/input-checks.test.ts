/**
 * The CLI checks its input (main/cli/commands/options.ts, index.ts, entry.ts): each bad command
 * line gets one sentence on stderr that names the problem, no stack trace, and a non-zero exit;
 * relative `--home` and `HOME` are taken against the current folder and a real bash call works
 * with them; the bin's first file tells an old Node which Node it needs.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../protocol/events.js'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv } from '../fixtures/cli.js'

const repoRoot = join(import.meta.dirname, '..', '..')
const STACK_FRAME = /^ {4}at /m

let dir: string
let server: ModelServer | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-input-'))
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(dir, { recursive: true, force: true })
})

interface Ran {
  status: number | null
  stdout: string
  stderr: string
}

/** `bridle <args>` from the sources, in `cwd`, with a small fixed environment (HOME = `home`). */
function bridle(
  args: string[],
  opts: { cwd?: string; home?: string; dataDir?: string } = {},
): Promise<Ran> {
  const argv = cliArgv({ home: opts.dataDir ?? join(dir, 'data') }, ...args)
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: opts.home ?? join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    LANG: 'C.UTF-8',
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: opts.cwd ?? dir, env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
    child.stdin.end()
  })
}

/** The run refused with `sentence` as its first line, and nothing else but the help pointer. */
function expectRefused(ran: Ran, sentence: string, status = 2): void {
  expect(ran.stderr.split('\n')[0]).toBe(`bridle: ${sentence}`)
  expect(ran.stderr).not.toMatch(STACK_FRAME)
  expect(ran.status).toBe(status)
}

/** A session in the data folder, made by `bridle import`; its id. */
async function importedSession(): Promise<string> {
  const file = join(dir, 'in.jsonl')
  const header = {
    format: 'bridle-session',
    version: 1,
    session: { id: 'x', title: 'Notes', projectDir: dir, createdAt: 1, updatedAt: 2 },
    ancestry: [{ sessionId: 'x', fromSeq: 0, toSeq: 2 }],
  }
  const events = [
    { type: 'session/created', data: { projectDir: dir }, turn: 0, step: 0 },
    { type: 'turn/start', data: {}, turn: 1, step: 0 },
  ].map((e, seq) => JSON.stringify({ seq, v: 1, at: 1000 + seq, ...e }))
  writeFileSync(file, [JSON.stringify(header), ...events].join('\n') + '\n')
  const imported = await bridle(['import', file, '--project', dir])
  expect(imported.stderr).not.toMatch(STACK_FRAME)
  expect(imported.status, imported.stderr).toBe(0)
  return imported.stdout.trim()
}

describe('bad command lines get one sentence and a non-zero exit', () => {
  it('--context-window 0 (and 10) is refused before anything is created', async () => {
    for (const text of ['0', '10', '8k']) {
      const ran = await bridle(['run', '--context-window', text, 'hi'])
      expectRefused(
        ran,
        `--context-window must be a whole number of tokens, at least 512, not "${text}"`,
      )
    }
    expect(existsSync(join(dir, 'data'))).toBe(false)
  })

  it('a file as --project is named as a file', async () => {
    const file = join(dir, 'notes.txt')
    writeFileSync(file, 'not a folder\n')
    expectRefused(
      await bridle(['run', '--project', file, 'hi']),
      `--project: ${file} is a file, not a folder`,
    )
    expectRefused(
      await bridle(['serve', '--project', 'notes.txt']),
      `--project: ${file} is a file, not a folder`,
    )
  })

  it('a missing --project folder is named, resolved against the current folder', async () => {
    const ran = await bridle(['run', '--project', 'gone', 'hi'])
    expectRefused(ran, `--project: the folder ${join(dir, 'gone')} does not exist`)
    // The same words for every command that takes a project, mcp too (it gave a raw ENOENT).
    const mcp = await bridle(['mcp', 'list', '--project', 'gone'])
    expectRefused(mcp, `--project: the folder ${join(dir, 'gone')} does not exist`)
    expect(ran.stderr).not.toContain('ENOENT')
  })

  it('export --out into a missing folder names that folder, never the temp file', async () => {
    const id = await importedSession()
    for (const out of ['/nonexistent/x', join(dir, 'missing', 'x')]) {
      if (out === '/nonexistent/x' && existsSync('/nonexistent')) continue
      const ran = await bridle(['export', id, '--out', out])
      const folder = out === '/nonexistent/x' ? '/nonexistent' : join(dir, 'missing')
      expectRefused(ran, `cannot write ${out}: the folder ${folder} does not exist`, 1)
      expect(ran.stderr).not.toContain('.tmp')
    }
    // The same export to a folder that exists still works.
    const ok = await bridle(['export', id, '--out', join(dir, 'out.jsonl')])
    expect(ok.status).toBe(0)
    expect(readFileSync(join(dir, 'out.jsonl'), 'utf8')).toContain('bridle-session')
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('events --type bogus/type lists the known types and exits 2', async () => {
    const id = await importedSession()
    const ran = await bridle(['events', id, '--type', 'bogus/type'])
    expectRefused(ran, `unknown event type bogus/type; known types: ${EVENT_TYPES.join(', ')}`)
    expect(ran.stdout).toBe('')
    // A known type still filters.
    const known = await bridle(['events', id, '--type', 'session/created'])
    expect(known.status).toBe(0)
    expect(known.stdout).toContain('session/created')
  })

  it('an unknown command is named before an option it would have taken', async () => {
    const ran = await bridle(['replay', 'x', '--step', '2'])
    expect(ran.stderr.split('\n')[0]).toMatch(
      /^bridle: unknown command "replay"; the commands are run, .*, export, import, /,
    )
    expect(ran.stderr).not.toContain('--step')
    expect(ran.stderr).not.toMatch(STACK_FRAME)
    expect(ran.status).toBe(2)
    // A known command with an unknown option still names the option.
    const option = await bridle(['info', '--step', '2'])
    expect(option.status).toBe(2)
    expect(option.stderr).toContain("'--step'")
  })
})

describe('relative --home and HOME', () => {
  it('are taken against the current folder, and a real bash call runs with them', async () => {
    const marker = `marker-${process.pid}-${Date.now()}`
    server = await startModelServer({
      script: [
        {
          steps: [
            {
              toolCall: {
                id: 'c1',
                name: 'bash',
                args: JSON.stringify({ command: `echo ${marker}` }),
              },
            },
            { finish: 'tool_calls' as const },
          ],
        },
        'Done.',
      ],
    })
    const cwd = join(dir, 'work')
    mkdirSync(join(cwd, 'me'), { recursive: true })
    mkdirSync(join(cwd, 'proj'))
    const ran = await bridle(
      ['run', '--approval', 'full-auto', '--base-url', server.url, '--model', 'scripted'].concat([
        '--project',
        'proj',
        'say it',
      ]),
      { cwd, home: 'me', dataDir: 'data' },
    )
    expect(ran.stderr).not.toContain('must be absolute')
    expect(ran.stderr).not.toMatch(STACK_FRAME)
    expect(ran.status, ran.stderr).toBe(0)
    // The data folder is where `--home data` names it from the current folder.
    expect(existsSync(join(cwd, 'data', 'bridle.db'))).toBe(true)
    const requests = chatRequests(server)
    const messages = (requests[1]?.body as { messages: { role: string; content: unknown }[] })
      .messages
    const result = messages.find((m) => m.role === 'tool')
    expect(JSON.stringify(result?.content)).toContain(marker)
  })
})

describe('the bin on an old Node', () => {
  /** A Node older than package.json's engines.node, if this machine has one. */
  const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => {
    if (!existsSync(path)) return false
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' })
    const [major = 0, minor = 0] = version.stdout.trim().split('.').map(Number)
    return version.status === 0 && (major < 22 || (major === 22 && minor < 12))
  })
  if (oldNode === undefined)
    console.warn('[input-checks] no Node older than 22.12 on this machine: the old-Node test skips')

  const engines = (
    JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      engines: { node: string }
    }
  ).engines.node

  it.skipIf(oldNode === undefined)('says which Node it needs and exits 1', () => {
    // The entry as the bundler emits it: its types stripped, nothing else changed.
    const source = readFileSync(join(repoRoot, 'main/cli/entry.ts'), 'utf8')
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText
    const entry = join(dir, 'cli.mjs')
    writeFileSync(entry, js)
    writeFileSync(join(dir, 'bin.js'), 'throw new Error("the rest of the CLI was loaded")\n')
    const ran = spawnSync(oldNode as string, [entry, '--version'], { encoding: 'utf8' })
    const version = spawnSync(oldNode as string, ['--version'], { encoding: 'utf8' }).stdout.trim()
    expect(ran.stderr).toBe(
      `bridle needs Node.js ${engines.replace(/^>=/, '')} or newer; this is Node.js ${version.slice(1)}.\n`,
    )
    expect(ran.status).toBe(1)
  })

  it('on this Node, the entry goes on to the CLI', () => {
    const tsx = join(repoRoot, 'node_modules/tsx/dist/cli.mjs')
    const ran = spawnSync(process.execPath, [tsx, 'main/cli/entry.ts', '--version'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') },
    })
    expect(ran.stderr).toBe('')
    expect(ran.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    expect(ran.status, ran.stderr).toBe(0)
  })
})
