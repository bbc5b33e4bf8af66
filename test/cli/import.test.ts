import { spawn } from 'node:child_process'
import {
  copyFileSync,
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
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, spawnCli } from '../fixtures/cli.js'

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'import')

let root: string
let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-import-cli-')))
  home = join(root, 'data')
  project = join(root, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(root, { recursive: true, force: true })
})

/** Runs the CLI in `cwd` with `env` added, stdin closed (headless: no terminal to ask on). */
function bridle(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: opts.cwd ?? root,
      env: { ...process.env, ...opts.env },
      stdio: 'pipe',
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.once('close', (status) => resolve({ status, stdout, stderr }))
    child.stdin.end()
  })
}

type WireMessage = {
  role: string
  content: string | null
  tool_calls?: { function: { name: string; arguments: string } }[]
}

const CASES = [
  {
    file: 'claude-code.jsonl',
    prompts: ['Create notes.txt saying hello', 'What does notes.txt say?'],
    calls: ['Write', 'Bash'],
    output: 'hello',
  },
  {
    file: 'codex-rollout.jsonl',
    prompts: ['Create notes.txt saying hello', 'What does notes.txt say?'],
    calls: ['exec_command', 'exec_command'],
    output: 'hello',
  },
  {
    file: 'pi-session.jsonl',
    prompts: ['Create notes.txt saying hello', 'Leave notes.txt alone and say goodbye'],
    calls: ['write'],
    output: 'Successfully wrote 6 bytes',
  },
  {
    file: 'deepseek-harness.jsonl',
    prompts: ['What does notes.txt say?'],
    calls: ['bash'],
    output: 'hello',
  },
] as const

describe('bridle import', () => {
  it.each(CASES)(
    '$file: imported, then continued with bridle run --session: the model is sent its history',
    async ({ file, prompts, calls, output }) => {
      const imported = await bridle(cliArgv({ home, project }, 'import', join(fixtures, file)))
      expect(imported.stderr).toContain(`into ${project}`)
      expect(imported.status).toBe(0)
      const sessionId = imported.stdout.trim()
      expect(sessionId).toMatch(/^[0-9a-f-]{36}$/)

      server = await startModelServer({ script: [{ steps: [{ text: 'Carrying on.' }] }] })
      const run = await bridle(
        cliArgv(
          { home },
          'run',
          '--session',
          sessionId,
          '--base-url',
          server.url,
          '--model',
          'scripted',
          'and now?',
        ),
      )
      expect(run.stdout).toContain('Carrying on.')
      expect(run.status).toBe(0)
      const messages = (chatRequests(server)[0]?.body as { messages: WireMessage[] }).messages
      const userWords = messages.filter((m) => m.role === 'user').map((m) => m.content)
      for (const prompt of prompts) expect(userWords).toContain(prompt)
      expect(userWords.at(-1)).toBe('and now?')
      const sentCalls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name))
      expect(sentCalls).toEqual(calls)
      const results = messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '')
      expect(results).toHaveLength(calls.length)
      expect(results.some((r) => r.includes(output))).toBe(true)
      // Bridle's own system prompt and tools: the import's empty header is replaced on resume.
      expect(messages[0]?.role).toBe('system')
      expect(messages[0]?.content).not.toBe('')
    },
  )

  it('headless without --project: the current folder, said on stderr; a recorded /etc is not used', async () => {
    const file = join(root, 'etc-session.jsonl')
    const lines = readFileSync(join(fixtures, 'pi-session.jsonl'), 'utf8').split('\n')
    const header = JSON.parse(lines[0] ?? '') as Record<string, unknown>
    lines[0] = JSON.stringify({ ...header, cwd: '/etc' })
    writeFileSync(file, lines.join('\n'))
    const imported = await bridle(cliArgv({ home }, 'import', file), { cwd: project })
    expect(imported.status).toBe(0)
    expect(imported.stderr).toContain(`the current folder ${project}`)
    expect(imported.stderr).toContain('/etc')
    const sessionId = imported.stdout.trim()
    const shown = await bridle(cliArgv({ home }, 'events', sessionId))
    expect(shown.stdout).toMatch(new RegExp(`session/created\\s+project ${project}`))
    expect(shown.stdout).not.toMatch(/session\/created\s+project \/etc/)
  })

  it.each([
    ['y', 'recorded'],
    ['n', 'current'],
  ])(
    'on a terminal, asks before using the recorded folder (answer %s: the %s folder)',
    async (answer, which) => {
      const recorded = join(root, 'recorded')
      mkdirSync(recorded)
      const file = join(root, 'session.jsonl')
      const lines = readFileSync(join(fixtures, 'pi-session.jsonl'), 'utf8').split('\n')
      lines[0] = JSON.stringify({ ...(JSON.parse(lines[0] ?? '') as object), cwd: recorded })
      writeFileSync(file, lines.join('\n'))
      const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`
      const command = `cd ${quote(project)} && ${[process.execPath, ...cliArgv({ home }, 'import', file)].map(quote).join(' ')}`
      // `script` gives the CLI a real terminal, so it asks; our piped input is typed into it.
      const child = spawnCli(['-qfec', command, '/dev/null'], 'script')
      let output = ''
      child.stdout.on('data', (d: Buffer) => (output += d.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      child.stdin.write(`${answer}\n`)
      expect(await exited).toBe(0)
      expect(output).toContain(`The session was recorded in ${recorded}.`)
      const sessionId = /[0-9a-f-]{36}/.exec(
        output.split('Use it as the project folder?')[1] ?? '',
      )?.[0]
      const shown = await bridle(cliArgv({ home }, 'events', sessionId ?? 'none'))
      expect(shown.stdout).toMatch(
        new RegExp(`session/created\\s+project ${which === 'recorded' ? recorded : project}\\n`),
      )
    },
  )

  it('refuses a file in no known format with exit 1, and creates no session', async () => {
    const refused = await bridle(
      cliArgv({ home, project }, 'import', join(fixtures, 'not-a-session.jsonl')),
    )
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('not a session file Bridle can import')
    const listed = await bridle(cliArgv({ home }, 'sessions'))
    expect(listed.stdout.trim()).toBe('')
  })

  it('--scan lists the sessions found under HOME', async () => {
    const fakeHome = join(root, 'home')
    const dir = join(fakeHome, '.codex', 'sessions', '2026', '12', '06')
    mkdirSync(dir, { recursive: true })
    copyFileSync(join(fixtures, 'codex-rollout.jsonl'), join(dir, 'rollout-a.jsonl'))
    const piDir = join(fakeHome, '.pi', 'agent', 'sessions', '--home-dev-demo--')
    mkdirSync(piDir, { recursive: true })
    copyFileSync(join(fixtures, 'pi-session.jsonl'), join(piDir, 's.jsonl'))
    const scan = await bridle(cliArgv({ home }, 'import', '--scan', '--json'), {
      env: { HOME: fakeHome },
    })
    expect(scan.status).toBe(0)
    const found = scan.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { source: string; path: string; title?: string })
    expect(found.map((f) => f.source).sort()).toEqual(['codex', 'pi'])
    expect(found.find((f) => f.source === 'codex')?.path).toBe(join(dir, 'rollout-a.jsonl'))
    const text = await bridle(cliArgv({ home }, 'import', '--scan'), { env: { HOME: fakeHome } })
    expect(text.stdout).toContain('Create notes.txt saying hello')
  })
})
