import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { LogEvent } from '../../main/core/log/index.js'
import { rowToEvent } from '../../main/core/log/rows.js'
import { databasePath, openStore } from '../../main/core/store/index.js'
import { cliArgv, runCli, spawnCli, waitForJsonEvent } from '../fixtures/cli.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'

let home: string
let project: string
let outside: string
let server: ModelServer | undefined

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-restore-')))
  project = join(home, 'project')
  mkdirSync(project)
  // Never touched by the agent: must stay as it is through every restore.
  writeFileSync(join(project, 'keep.txt'), 'untouched\n')
  outside = join(home, 'outside.txt')
  writeFileSync(outside, 'outside the project\n')
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

let callCount = 0
const call = (name: string, args: Record<string, unknown>) => ({
  toolCall: { id: `c${++callCount}`, name, args: JSON.stringify(args) },
})
/** One model reply making these calls (each its own step would work too; one is shorter). */
const calls = (...steps: ReturnType<typeof call>[]) => ({
  steps: [...steps, { finish: 'tool_calls' as const }],
})

const hashOf = (content: string | Buffer) => createHash('sha256').update(content).digest('hex')

/** Every file under `dir` (folders included, with a trailing slash) and its content's hash. */
function tree(dir: string, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) {
      out.set(`${rel}/`, '')
      for (const [path, content] of tree(dir, rel)) out.set(path, content)
    } else {
      out.set(
        rel,
        createHash('sha256')
          .update(readFileSync(join(dir, rel)))
          .digest('hex'),
      )
    }
  }
  return out
}

function eventsOf(sessionId: string): LogEvent[] {
  const store = openStore(databasePath(home))
  try {
    return store.readEvents(sessionId).map((row) => rowToEvent(row, row.seq))
  } finally {
    store.close()
  }
}

const turnEndSeq = (sessionId: string, turn: number): number => {
  const end = eventsOf(sessionId).find((e) => e.type === 'turn/end' && e.turn === turn)
  if (!end) throw new Error(`turn ${turn} has no turn/end`)
  return end.seq
}

async function runTurn(prompt: string, sessionId?: string): Promise<string> {
  const run = await runCli(
    cliArgv(
      { home, project },
      'run',
      '--approval',
      'full-auto',
      '--base-url',
      (server as ModelServer).url,
      '--model',
      'scripted',
      ...(sessionId === undefined ? [] : ['--session', sessionId]),
      prompt,
    ),
  )
  expect(run.stderr).not.toMatch(/ok: false|error/i)
  expect(run.status).toBe(0)
  return sessionId ?? /^session (\S+)$/m.exec(run.stderr)?.[1] ?? ''
}

const restore = (...args: string[]) => runCli(cliArgv({ home }, 'restore', ...args))

const BIG = 3 * 1024 * 1024

describe('bridle restore', () => {
  it('puts the files back to the end of turn 1, undoes, stops on drift and goes ahead with --force', async () => {
    server = await startModelServer({
      script: [
        calls(
          call('write', { path: 'a.txt', content: 'alpha v1\n' }),
          call('write', { path: 'src/b.txt', content: 'bravo\n' }),
          call('write', { path: 'doomed.txt', content: 'doomed\n' }),
          call('bash', { command: `printf 'bin\\000ary\\001' > data.bin` }),
          call('bash', { command: `head -c ${BIG} /dev/zero > big.bin` }),
        ),
        'Turn one done.',
        calls(
          call('read', { path: 'a.txt' }),
          call('edit', { path: 'a.txt', oldText: 'v1', newText: 'v2' }),
          call('write', { path: 'c.txt', content: 'charlie\n' }),
          call('bash', { command: 'rm doomed.txt' }),
          call('bash', { command: 'printf x >> big.bin' }),
          call('bash', { command: `printf 'BIN\\000two' > data.bin` }),
        ),
        'Turn two done.',
        calls(
          call('write', { path: 'a.txt', content: 'alpha v3\n' }),
          call('bash', { command: 'echo x > f.txt' }),
          call('bash', { command: 'rm src/b.txt' }),
        ),
        'Turn three done.',
      ],
    })
    const sessionId = await runTurn('turn one')
    const afterTurn1 = tree(project)
    await runTurn('turn two', sessionId)
    await runTurn('turn three', sessionId)
    const afterTurn3 = tree(project)
    // The turns did what the test is about: binary and large files, a deletion by bash.
    expect([...afterTurn1.keys()].sort()).toEqual(
      ['a.txt', 'big.bin', 'data.bin', 'doomed.txt', 'keep.txt', 'src/', 'src/b.txt'].sort(),
    )
    expect(readFileSync(join(project, 'big.bin')).length).toBe(BIG + 1)
    expect([...afterTurn3.keys()].sort()).toEqual(
      ['a.txt', 'big.bin', 'c.txt', 'data.bin', 'f.txt', 'keep.txt', 'src/'].sort(),
    )

    // A point inside turn 2: right after its `rm doomed.txt` (c9), before big.bin and data.bin
    // changed. The edit and the new file are there; the later commands' changes are not.
    const afterRm = eventsOf(sessionId).find(
      (e) => e.type === 'tool/result' && e.data.callId === 'c9',
    )
    const inside = await restore(sessionId, String(afterRm?.seq))
    expect(inside.stderr).toBe('')
    expect(inside.status).toBe(0)
    const atC9 = new Map(afterTurn1)
    atC9.delete('doomed.txt')
    atC9.set('a.txt', hashOf('alpha v2\n')).set('c.txt', hashOf('charlie\n'))
    expect(tree(project)).toEqual(atC9)
    expect((await restore(sessionId, '--undo')).status).toBe(0)
    expect(tree(project)).toEqual(afterTurn3)

    const toTurn1 = String(turnEndSeq(sessionId, 1))
    const restored = await restore(sessionId, toTurn1)
    expect(restored.stderr).toBe('')
    expect(restored.status).toBe(0)
    expect(restored.stdout).toContain(`restored files to seq ${toTurn1}`)
    expect(tree(project)).toEqual(afterTurn1)
    expect(readFileSync(outside, 'utf8')).toBe('outside the project\n')
    const event = eventsOf(sessionId).at(-1)
    expect(event?.type).toBe('workspace/restored')
    expect(event?.turn).toBe(0)
    if (event?.type === 'workspace/restored') {
      expect(event.data.written.map((w) => w.path).sort()).toEqual(
        ['a.txt', 'big.bin', 'data.bin', 'doomed.txt', 'src/b.txt'].sort(),
      )
      expect([...event.data.removed].sort()).toEqual(['c.txt', 'f.txt'])
      expect(event.data.drifted).toEqual([])
      expect(event.data.guard.find((g) => g.path === 'c.txt')?.hash).toMatch(/^[0-9a-f]{64}$/)
    }

    const undone = await restore(sessionId, '--undo')
    expect(undone.stderr).toBe('')
    expect(undone.status).toBe(0)
    expect(undone.stdout).toContain('undid the last restore')
    expect(tree(project)).toEqual(afterTurn3)
    // Only the last restore, once.
    const again = await restore(sessionId, '--undo')
    expect(again.status).toBe(1)
    expect(again.stderr).toMatch(/already undone; only the last restore can be undone/)
    expect(tree(project)).toEqual(afterTurn3)

    // A change made outside Bridle stops the restore, named by its path, and nothing changes.
    writeFileSync(join(project, 'a.txt'), 'edited by hand\n')
    const handEdited = tree(project)
    const eventCount = eventsOf(sessionId).length
    const dryRun = await restore(sessionId, toTurn1, '--dry-run')
    expect(dryRun.status).toBe(0)
    expect(dryRun.stdout).toContain('would write 5 and remove 2 file(s) (dry run: nothing changed)')
    expect(dryRun.stdout).toMatch(/^ {2}would remove {2}f\.txt$/m)
    expect(dryRun.stdout).toContain('changed outside Bridle (needs --force): a.txt')
    expect(tree(project)).toEqual(handEdited)
    expect(eventsOf(sessionId)).toHaveLength(eventCount)
    const stopped = await restore(sessionId, toTurn1)
    expect(stopped.status).toBe(1)
    expect(stopped.stderr).toContain('1 file(s) changed outside Bridle')
    expect(stopped.stderr).toMatch(/^ {2}a\.txt$/m)
    expect(stopped.stderr).toContain('--force')
    expect(tree(project)).toEqual(handEdited)
    expect(eventsOf(sessionId).at(-1)?.type).toBe('workspace/restore-undone')

    const forced = await restore(sessionId, toTurn1, '--force')
    expect(forced.status).toBe(0)
    expect(forced.stdout).toContain('overwrote a change made outside Bridle: a.txt')
    expect(tree(project)).toEqual(afterTurn1)
    const last = eventsOf(sessionId).at(-1)
    expect(last?.type === 'workspace/restored' && last.data.drifted).toEqual(['a.txt'])
    // The hand edit is in the guard, so undo brings it back.
    expect((await restore(sessionId, '--undo')).status).toBe(0)
    expect(tree(project)).toEqual(handEdited)

    // The log reads as a timeline.
    const inspect = await runCli(cliArgv({ home }, 'events', sessionId))
    expect(inspect.stdout).toMatch(
      /workspace\/restored .*files put back to seq \d+: 5 written, 2 removed/,
    )
    expect(inspect.stdout).toMatch(/workspace\/restore-undone .*undoes the restore at seq \d+/)
  }, 120_000)

  it('restores inside a fork from the parent’s history before the fork point, undoing the parent’s later files', async () => {
    server = await startModelServer({
      script: [
        calls(call('write', { path: 'a.txt', content: 'one\n' })),
        'Parent turn one.',
        calls(
          call('write', { path: 'a.txt', content: 'two\n' }),
          call('write', { path: 'b.txt', content: 'parent only\n' }),
        ),
        'Parent turn two.',
        calls(call('write', { path: 'c.txt', content: 'child\n' })),
        'Child turn.',
      ],
    })
    const parent = await runTurn('one')
    const turn1End = turnEndSeq(parent, 1)
    await runTurn('two', parent)
    const fork = await runCli(cliArgv({ home }, 'fork', parent, '--at', String(turn1End + 1)))
    expect(fork.status).toBe(0)
    const child = fork.stdout.trim()
    await runTurn('child', child)
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('two\n')

    // The child's history is the parent's turn 1 and its own turn: a.txt goes back to turn 1's
    // content (the parent's later turn left "two" there, which is no drift), c.txt is removed,
    // and so is b.txt: the parent's later turn created it, so at that point of the child's
    // history it was not there (the folder is as turn 1 left it, whichever branch ran since).
    const restored = await restore(child, String(turn1End))
    expect(restored.stderr).toBe('')
    expect(restored.status).toBe(0)
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\n')
    expect(readdirSync(project).sort()).toEqual(['a.txt', 'keep.txt'])
    // The parent's own log has no restore: it was the child's.
    expect(eventsOf(parent).some((e) => e.type === 'workspace/restored')).toBe(false)
    expect(eventsOf(child).at(-1)?.type).toBe('workspace/restored')
  }, 90_000)

  it('counts what a subagent changed as changed by its task call', async () => {
    server = await startModelServer({
      script: [
        calls(
          call('task', { description: 'write notes', prompt: 'Write notes.txt saying hello.' }),
        ),
        calls(call('write', { path: 'notes.txt', content: 'hello from the child\n' })),
        'Child: written.',
        'Parent: the child wrote the notes.',
        calls(call('write', { path: 'other.txt', content: 'parent\n' })),
        'Parent: written too.',
      ],
    })
    const sessionId = await runTurn('delegate')
    await runTurn('write yourself', sessionId)
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('hello from the child\n')
    const events = eventsOf(sessionId)
    const started = events.find((e) => e.type === 'subagent/started')
    expect(started).toBeDefined()

    // Right after the child started, its file did not exist yet; after the task call, it did.
    expect((await restore(sessionId, String(started?.seq))).status).toBe(0)
    expect(readdirSync(project).sort()).toEqual(['keep.txt'])
    expect((await restore(sessionId, String(turnEndSeq(sessionId, 1)))).status).toBe(0)
    expect(readdirSync(project).sort()).toEqual(['keep.txt', 'notes.txt'])
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('hello from the child\n')
  }, 90_000)

  it('is refused while a turn runs in another process', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    server = await startModelServer({
      script: [
        calls(call('write', { path: 'a.txt', content: 'one\n' })),
        'Written.',
        { steps: [{ wait: held }, { text: 'Slow answer.' }] },
      ],
    })
    const sessionId = await runTurn('write')
    const child = spawnCli(
      cliArgv(
        { home, project },
        'run',
        '--json',
        '--base-url',
        server.url,
        '--model',
        'scripted',
        '--session',
        sessionId,
        'take your time',
      ),
    )
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await waitForJsonEvent(child, (event) => event.type === 'request/start')
    const refused = await restore(sessionId, '0')
    expect(refused.status).toBe(1)
    expect(refused.stderr).toMatch(/is open for writing by process \d+/)
    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\n')
    release()
    expect(await exited).toBe(0)
    expect((await restore(sessionId, '0')).status).toBe(0)
    expect(existsSync(join(project, 'a.txt'))).toBe(false)
  }, 60_000)

  it('never writes through a folder that is now a link to .git: the dry run and the restore name it', async () => {
    server = await startModelServer({
      script: [
        calls(
          call('write', { path: 'x/config', content: '[core]\n\tfsmonitor = "touch pwned"\n' }),
          call('write', { path: 'ok.txt', content: 'ok 1\n' }),
        ),
        'Turn one done.',
        calls(
          call('write', { path: 'x/config', content: 'v2\n' }),
          call('write', { path: 'ok.txt', content: 'ok 2\n' }),
        ),
        'Turn two done.',
      ],
    })
    const sessionId = await runTurn('turn one')
    await runTurn('turn two', sessionId)
    mkdirSync(join(project, '.git'))
    writeFileSync(join(project, '.git', 'config'), '[core]\n\tbare = false\n')
    rmSync(join(project, 'x'), { recursive: true })
    symlinkSync('.git', join(project, 'x'))
    const before = tree(join(project, '.git'))
    const refusal = /^ {2}(would skip {4}|skipped {2})x\/config: x is a symbolic link \(to \.git\)/m

    const dryRun = await restore(sessionId, String(turnEndSeq(sessionId, 1)), '--dry-run')
    expect(dryRun.status).toBe(0)
    expect(dryRun.stdout).toMatch(refusal)
    expect(dryRun.stdout).toMatch(/^ {2}would write {3}ok\.txt$/m)
    const done = await restore(sessionId, String(turnEndSeq(sessionId, 1)), '--force')
    expect(done.status).toBe(0)
    expect(done.stdout).toMatch(refusal)
    expect(done.stdout).toMatch(/^ {2}written {2}ok\.txt$/m)
    expect(tree(join(project, '.git'))).toEqual(before)
    expect(readFileSync(join(project, 'ok.txt'), 'utf8')).toBe('ok 1\n')
  }, 60_000)

  it('refuses a seq the session does not have and a session without a restore to undo', async () => {
    server = await startModelServer({ script: ['Hello.'] })
    const sessionId = await runTurn('hi')
    const bad = await restore(sessionId, '999')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toMatch(/seq 999 is not an event of session/)
    const none = await restore(sessionId, '--undo')
    expect(none.status).toBe(1)
    expect(none.stderr).toMatch(/has no restore to undo/)
    const usage = await restore(sessionId)
    expect(usage.status).toBe(2)
  }, 60_000)
})
