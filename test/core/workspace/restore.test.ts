import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EventDataInput } from '../../../main/core/log/index.js'
import { forkSession, Session } from '../../../main/core/log/index.js'
import { openStore } from '../../../main/core/store/index.js'
import { protectedPathReason } from '../../../main/core/tools/protected-paths.js'
import type { Store } from '../../../main/core/store/index.js'
import { FileHistory } from '../../../main/core/workspace/file-history.js'
import { restoreFiles, RestoreError, undoRestore } from '../../../main/core/workspace/restore.js'
import { SnapshotStore } from '../../../main/core/workspace/snapshot.js'

let dir: string
let project: string
let store: Store
let snapshots: SnapshotStore
let session: Session

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-restore-core-')))
  project = join(dir, 'project')
  mkdirSync(project)
  store = openStore(join(dir, 'bridle.db'))
  snapshots = new SnapshotStore(join(dir, 'snapshots'))
  session = Session.create(store, { projectDir: project })
})

afterEach(() => {
  session.close()
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

type DiffFile = EventDataInput<'workspace/diff'>['files'][number]
const put = (text: string) => snapshots.put(Buffer.from(text))

/** A turn that changed `files` (its diff as the workspace logs it), the files written to match. */
function turn(files: DiffFile[], write: Record<string, string | null> = {}): number {
  session.append('turn/start', {})
  session.append('workspace/diff', { files })
  const end = session.length
  session.append('turn/end', { reason: 'completed' })
  for (const [path, text] of Object.entries(write)) {
    if (text === null) rmSync(join(project, path), { force: true })
    else {
      mkdirSync(join(project, path, '..'), { recursive: true })
      writeFileSync(join(project, path), text)
    }
  }
  return end
}

const added = (path: string, text: string): DiffFile => ({
  path,
  status: 'added',
  additions: 1,
  deletions: 0,
  afterHash: put(text),
})
const modified = (path: string, before: string | undefined, after: string): DiffFile => ({
  path,
  status: 'modified',
  additions: 1,
  deletions: 1,
  ...(before === undefined ? {} : { beforeHash: put(before) }),
  afterHash: put(after),
})
const read = (path: string) => readFileSync(join(project, path), 'utf8')
const options = (force = false) => ({
  store,
  snapshots,
  projectDir: project,
  protectedReason: protectedPathReason,
  force,
})

describe('FileHistory', () => {
  it('gives each file at a point: after its last turn, or before the first turn that touched it later', () => {
    const t1 = turn([added('a.txt', 'a1')])
    session.append('turn/start', {})
    const insideTurn2 = session.length
    session.append('user/message', { content: 'change it' })
    session.append('workspace/diff', {
      files: [modified('a.txt', 'a1', 'a2'), modified('b.txt', 'b0', 'b2')],
    })
    session.append('turn/end', { reason: 'completed' })
    // A command changed a.txt unseen (too large to copy first): the known earlier state stands.
    const t3 = turn([modified('a.txt', undefined, 'a3')])
    const history = FileHistory.of(session.slice())
    const text = (path: string, seq: number) => {
      const state = history.stateAt(path, seq)
      return state.kind === 'file' ? snapshots.get(state.hash).toString() : state.kind
    }
    expect(history.paths()).toEqual(['a.txt', 'b.txt'])
    expect(text('a.txt', 0)).toBe('absent')
    expect(text('a.txt', t1)).toBe('a1')
    // Inside turn 2, before its diff: as the turn found the files.
    expect(text('a.txt', insideTurn2)).toBe('a1')
    expect(text('b.txt', insideTurn2)).toBe('b0')
    expect(text('b.txt', t1)).toBe('b0')
    expect(text('a.txt', t3 - 2)).toBe('a2')
    expect(text('a.txt', t3)).toBe('a3')
    expect(history.latest('a.txt')).toEqual(history.stateAt('a.txt', t3))
  })

  it('says a state is unknown when no copy was kept, and why', () => {
    turn([{ path: 'big.bin', status: 'added', additions: 0, deletions: 0 }])
    const state = FileHistory.of(session.slice()).latest('big.bin')
    expect(state.kind).toBe('unknown')
    expect(state.kind === 'unknown' && state.reason).toMatch(
      /no copy of its content at the end of turn 1/,
    )
  })
})

describe('restoreFiles', () => {
  it('skips .git and paths that lead out of the project, and touches nothing there', async () => {
    const outsideDir = join(dir, 'elsewhere')
    mkdirSync(outsideDir)
    writeFileSync(join(outsideDir, 'x.txt'), 'outside\n')
    symlinkSync(outsideDir, join(project, 'link'))
    mkdirSync(join(project, '.git'))
    writeFileSync(join(project, '.git', 'config'), 'git config\n')
    const t1 = turn([])
    turn(
      [
        added('.git/config', 'git config\n'),
        added('../escape.txt', 'escaped\n'),
        added('link/x.txt', 'through the link\n'),
        added('ok.txt', 'ok\n'),
      ],
      { 'ok.txt': 'ok\n' },
    )
    const outcome = await restoreFiles(session, t1, options())
    expect(outcome.ok).toBe(true)
    if (!outcome.ok) return
    expect(outcome.removed).toEqual(['ok.txt'])
    expect(outcome.skipped).toEqual([
      { path: '../escape.txt', reason: 'it is outside the project folder' },
      {
        path: '.git/config',
        reason:
          "it is a protected path (git's settings: they can make git run programs); restore never writes there",
      },
      { path: 'link/x.txt', reason: expect.stringMatching(/^link is a symbolic link \(to /) },
    ])
    expect(read('.git/config')).toBe('git config\n')
    expect(readFileSync(join(outsideDir, 'x.txt'), 'utf8')).toBe('outside\n')
    expect(existsSync(join(dir, 'escape.txt'))).toBe(false)
    expect(existsSync(join(project, 'ok.txt'))).toBe(false)
  })

  it("in a fork, puts back what later branches changed (as they found it), never another conversation's files", async () => {
    writeFileSync(join(project, 'c.md'), 'orig\n')
    const t1 = turn([added('a.md', 'a\n')], { 'a.md': 'a\n' })
    session.flushSync()
    const forkId = forkSession(store, session.id, t1 + 1)
    // The parent goes on after the fork point: a new file, and a file that was there before.
    turn([added('b.md', 'b\n'), modified('c.md', 'orig\n', 'changed\n')], {
      'b.md': 'b\n',
      'c.md': 'changed\n',
    })
    const other = Session.create(store, { projectDir: project })
    other.append('turn/start', {})
    other.append('workspace/diff', { files: [added('z.md', 'z\n')] })
    other.append('turn/end', { reason: 'completed' })
    other.close()
    writeFileSync(join(project, 'z.md'), 'z\n')
    session.flushSync()

    const fork = Session.open(store, forkId)
    try {
      const outcome = await restoreFiles(fork, t1, options())
      expect(outcome).toMatchObject({ ok: true, written: ['c.md'], removed: ['b.md'], drifted: [] })
      expect(read('c.md')).toBe('orig\n')
      expect(existsSync(join(project, 'b.md'))).toBe(false)
      expect(read('a.md')).toBe('a\n')
      expect(read('z.md')).toBe('z\n')
      // And back: undo puts the parent's files back.
      expect(await undoRestore(fork, options())).toMatchObject({ ok: true })
      expect(read('c.md')).toBe('changed\n')
      expect(read('b.md')).toBe('b\n')
      // Now the fork's own log names b.md (its restore and undo, after the point): the point
      // itself still says nothing of it, so the other branches' baseline still holds.
      expect(await restoreFiles(fork, t1, options())).toMatchObject({
        ok: true,
        removed: ['b.md'],
        skipped: [],
      })
      expect(existsSync(join(project, 'b.md'))).toBe(false)
    } finally {
      fork.close()
    }
  })

  it('is refused while a turn is open, and the log refuses the event inside a turn', async () => {
    const t1 = turn([added('a.txt', 'a')], { 'a.txt': 'a' })
    session.append('turn/start', {})
    await expect(restoreFiles(session, t1, options())).rejects.toMatchObject({
      code: 'TURN_RUNNING',
    })
    expect(() =>
      session.append('workspace/restored', {
        toSeq: 0,
        written: [],
        removed: [],
        skipped: [],
        drifted: [],
        guard: [],
      }),
    ).toThrow(/must be outside a turn/)
  })

  it('skips a file whose content at that point was not kept, or whose copy is gone', async () => {
    const gone = 'f'.repeat(64)
    const t1 = turn(
      [
        { path: 'huge.bin', status: 'added', additions: 0, deletions: 0 },
        { path: 'lost.txt', status: 'added', additions: 1, deletions: 0, afterHash: gone },
      ],
      { 'huge.bin': 'huge', 'lost.txt': 'lost' },
    )
    turn([modified('huge.bin', undefined, 'huge2')], { 'huge.bin': 'huge2' })
    const outcome = await restoreFiles(session, t1, options())
    expect(outcome.ok && outcome.skipped.map((s) => s.path)).toEqual(['huge.bin', 'lost.txt'])
    expect(outcome.ok && outcome.skipped[1]?.reason).toBe(
      `its copy ${gone} is missing from the data folder`,
    )
    expect(read('huge.bin')).toBe('huge2')
  })

  it('puts back what it changed when a write fails, and logs the restore as undone', async () => {
    const t1 = turn([added('a.txt', 'a1'), added('d/x.txt', 'x1')], {
      'a.txt': 'a1',
      'd/x.txt': 'x1',
    })
    turn(
      [
        modified('a.txt', 'a1', 'a2'),
        { path: 'd/x.txt', status: 'deleted', additions: 0, deletions: 1, beforeHash: put('x1') },
      ],
      { 'a.txt': 'a2', 'd/x.txt': null },
    )
    // A file where the folder must be: writing d/x.txt fails after a.txt was written.
    rmSync(join(project, 'd'), { recursive: true })
    writeFileSync(join(project, 'd'), 'a file in the way')
    const error = await restoreFiles(session, t1, options()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RestoreError)
    expect((error as RestoreError).code).toBe('RESTORE_WRITE_FAILED')
    expect((error as Error).message).toMatch(
      /could not write d\/x\.txt: .*the files already changed were put back/,
    )
    expect(read('a.txt')).toBe('a2')
    const [restored, undone] = session.slice(-2)
    expect(restored?.type).toBe('workspace/restored')
    expect(undone?.type === 'workspace/restore-undone' && undone.data).toMatchObject({
      restoredSeq: restored?.seq,
      cause: 'failed',
      written: [{ path: 'a.txt' }],
    })
  })

  it('undo is refused once a turn ran after the restore', async () => {
    const t1 = turn([added('a.txt', 'a1')], { 'a.txt': 'a1' })
    turn([modified('a.txt', 'a1', 'a2')], { 'a.txt': 'a2' })
    expect((await restoreFiles(session, t1, options())).ok).toBe(true)
    expect(read('a.txt')).toBe('a1')
    turn([])
    await expect(undoRestore(session, options())).rejects.toThrow(
      /turn 3 ran after the restore at seq \d+, so undoing it would also throw away/,
    )
  })
})
