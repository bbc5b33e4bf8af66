/**
 * The API key is never readable by a command (main/cli/key-handoff.ts). The real `bridle` entry
 * (bin.ts) starts with keys in its environment and the sandbox off; the scripted model has it run
 * a command that reads `/proc/$PPID/environ` and every `/proc/<pid>/environ` it can, and while that
 * command waits, this test scans every process's environment itself. No key may show in the
 * command's output, the log, the CLI's output or any process's environment, while the model
 * server still receives the key as the Authorization header.
 */
import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fake } from '../fixtures/fake-secrets.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  cliEnv,
  disposeWorld,
  finished,
  makeWorld,
  marker,
  processesMarked,
  sessionEvents,
  toolCalls,
  waitFor,
} from './safety-fixture.js'
import type { CliRun, World } from './safety-fixture.js'

const repoRoot = join(import.meta.dirname, '..', '..')
const tsxLoader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href
/** The built command's entry, which the sources' `index.ts` (used by the other CLI tests) skips. */
const bin = join(repoRoot, 'main/cli/bin.ts')

// Three keys: one named only by config.json's apiKeyEnv (a name no pattern would catch), two by
// the usual names. Random, so a hit can only come from this run.
const suffix = () => Math.random().toString(36).slice(2, 14)
const KEYS = {
  MODEL_LOGIN: fake('sk-', 'sentinel-', 'login', suffix()),
  DEEPSEEK_API_KEY: fake('sk-', 'sentinel-', 'deepseek', suffix()),
  OPENAI_API_KEY: fake('sk-', 'sentinel-', 'openai', suffix()),
}
const VALUES = Object.values(KEYS)

function spawnBin(world: World, tmp: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', tsxLoader, bin, ...args, '--home', world.data, '--project', world.project],
    { cwd: world.project, env: cliEnv(world, { env: { ...KEYS, TMPDIR: tmp, ...extra } }) },
  )
  child.stdin.end()
  return child
}

/** Every readable `/proc/<pid>/environ` of this machine that holds one of the keys: pid and key. */
function environsHoldingKeys(): string[] {
  const hits: string[] = []
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let environ: string
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1')
    } catch {
      continue // Gone, or another user's.
    }
    for (const [name, key] of Object.entries(KEYS))
      if (environ.includes(key)) hits.push(`${pid}: ${name}`)
  }
  return hits
}

describe.skipIf(process.platform !== 'linux')('API keys and the commands Bridle runs', () => {
  let world: World
  let server: ModelServer
  let tmp: string
  let cli: ChildProcessWithoutNullStreams
  let run: CliRun
  let duringCommand: { hits: string[]; cliEnviron: string; cliCmdline: string }

  beforeAll(async () => {
    world = makeWorld('keys')
    tmp = join(world.root, 'tmp')
    mkdirSync(tmp)
    const mark = marker('keys')
    const command = [
      `{ cat /proc/$PPID/environ; for p in /proc/[0-9]*; do cat $p/environ; done; } 2>/dev/null | tr '\\0' '\\n' | grep sk-sentinel`,
      'echo "processes scanned: $(ls -d /proc/[0-9]* | wc -l)"',
      // Time for this test to scan every environment while Bridle runs the command.
      `echo ${mark}`,
      'sleep 3',
    ].join('; ')
    server = await startModelServer({ script: [toolCalls(bash('c1', command)), 'done'] })
    writeFileSync(
      join(world.data, 'config.json'),
      JSON.stringify({
        sandbox: 'off',
        approval: 'full-auto',
        endpoints: { scripted: { baseUrl: server.url, apiKeyEnv: 'MODEL_LOGIN' } },
        defaultEndpoint: 'scripted',
        defaultModel: 'scripted',
      }),
    )
    cli = spawnBin(world, tmp, ['run', '--approval', 'full-auto', 'read the environments'])
    const ended = finished(cli)
    const hasEnded = () => cli.exitCode !== null || cli.signalCode !== null
    await waitFor(() => hasEnded() || processesMarked(mark).length > 0, 30_000)
    duringCommand = hasEnded()
      ? { hits: ['the command never waited'], cliEnviron: '', cliCmdline: '' }
      : {
          hits: environsHoldingKeys(),
          cliEnviron: readFileSync(`/proc/${cli.pid}/environ`, 'latin1'),
          cliCmdline: readFileSync(`/proc/${cli.pid}/cmdline`, 'latin1'),
        }
    run = await ended
  }, 60_000)

  afterAll(async () => {
    await server.close()
    disposeWorld(world)
  })

  it('the run completed and the command ran without the sandbox', () => {
    expect(run.stderr).not.toMatch(/warning|never reached/)
    expect(run.status).toBe(0)
    const outcome = callOutcome(sessionEvents(world), 'c1')
    expect(outcome.code, JSON.stringify(outcome.result)).toBe('ok')
    expect(outcome.result?.metadata?.['sandboxed']).not.toBe(true)
    expect(JSON.stringify(outcome.result)).toMatch(/processes scanned: [1-9]/)
  })

  it('the command read no key in any environment it could open', () => {
    const output = JSON.stringify(callOutcome(sessionEvents(world), 'c1').result)
    for (const key of VALUES) expect(output).not.toContain(key)
  })

  it('no process held a key in its environment while the command ran', () => {
    expect(duringCommand.hits).toEqual([])
    // The pid this test started is Bridle itself, exec'd in place (its first environment names
    // the handoff's socket, which only the exec'd process gets), with no key.
    expect(duringCommand.cliCmdline).toContain('bin.ts')
    expect(duringCommand.cliEnviron).toContain('BRIDLE_KEY_HANDOFF=')
  })

  it('neither the log nor the output shows a key', () => {
    const log = JSON.stringify(sessionEvents(world))
    for (const key of VALUES) {
      expect(log).not.toContain(key)
      expect(run.stdout + run.stderr).not.toContain(key)
    }
  })

  it('the model server still received the configured key', () => {
    const chats = server.requests.filter((r) => r.path.endsWith('/chat/completions'))
    expect(chats.length).toBeGreaterThan(0)
    for (const chat of chats) expect(chat.headers.authorization).toBe(`Bearer ${KEYS.MODEL_LOGIN}`)
  })

  it('the handoff left nothing behind in the temporary folder', () => {
    expect(readdirSync(tmp).filter((name) => name.startsWith('bridle-key-'))).toEqual([])
  })

  it('a handoff that never comes stops Bridle, which does not run without its keys', async () => {
    const gone = join(tmp, 'bridle-key-gone', 's')
    const result = await finished(spawnBin(world, tmp, ['sessions'], { BRIDLE_KEY_HANDOFF: gone }))
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/never reached it \(the helper holding them is gone\)/)
  })
})
