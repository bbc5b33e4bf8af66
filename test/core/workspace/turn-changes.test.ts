import { execFileSync } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { eventData } from '../../../protocol/events.js'
import { SnapshotStore } from '../../../main/core/workspace/snapshot.js'
import { TurnChanges } from '../../../main/core/workspace/turn-changes.js'
import type { WorkspaceDiffFile } from '../../../main/core/workspace/turn-changes.js'

let base: string
let project: string
let snapshots: SnapshotStore

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-ws-')))
  project = join(base, 'project')
  mkdirSync(project)
  snapshots = new SnapshotStore(join(base, 'home', 'snapshots'))
})

afterEach(() => {
  rmSync(base, { recursive: true, force: true })
})

const at = (rel: string): string => join(project, rel)
const turn = (): TurnChanges => new TurnChanges({ projectDir: project, snapshots })

/** The files without their snapshot hashes (tested on their own below). */
const counts = (files: readonly WorkspaceDiffFile[]) =>
  files.map(({ beforeHash: _before, afterHash: _after, ...rest }) => rest)

/** What the write tool does: record, then write. */
function write(changes: TurnChanges, rel: string, text: string): void {
  changes.beforeWrite(at(rel))
  mkdirSync(join(at(rel), '..'), { recursive: true })
  writeFileSync(at(rel), text)
}

/** What the bash tool does: bracket a real child process. */
function run(changes: TurnChanges, script: string): void {
  changes.beginCommand()
  try {
    execFileSync('sh', ['-c', script], { cwd: project })
  } finally {
    changes.endCommand()
  }
}

describe('the snapshot hashes of workspace/diff', () => {
  it('name the content before and after the turn, so its diff survives later changes', () => {
    writeFileSync(at('a.txt'), 'one\n')
    writeFileSync(at('gone.txt'), 'bye\n')
    writeFileSync(at('big.txt'), 'x'.repeat(64))
    const changes = new TurnChanges({ projectDir: project, snapshots, afterSnapshotMaxBytes: 32 })
    write(changes, 'a.txt', 'two\n')
    write(changes, 'new.txt', 'fresh\n')
    write(changes, 'big.txt', 'y'.repeat(64))
    changes.beforeWrite(at('gone.txt'))
    rmSync(at('gone.txt'))
    run(changes, 'echo made > cmd.txt')
    const byPath = new Map(changes.finish().map((file) => [file.path, file]))
    writeFileSync(at('a.txt'), 'three\n')
    const text = (hash: string | undefined) =>
      hash === undefined ? undefined : snapshots.get(hash).toString('utf8')
    expect(text(byPath.get('a.txt')?.beforeHash)).toBe('one\n')
    expect(text(byPath.get('a.txt')?.afterHash)).toBe('two\n')
    expect(byPath.get('new.txt')).toMatchObject({ status: 'added' })
    expect(byPath.get('new.txt')?.beforeHash).toBeUndefined()
    expect(text(byPath.get('new.txt')?.afterHash)).toBe('fresh\n')
    expect(text(byPath.get('gone.txt')?.beforeHash)).toBe('bye\n')
    expect(byPath.get('gone.txt')?.afterHash).toBeUndefined()
    expect(text(byPath.get('cmd.txt')?.afterHash)).toBe('made\n')
    // Over the size budget: the content at the end is not kept.
    expect(text(byPath.get('big.txt')?.beforeHash)).toBe('x'.repeat(64))
    expect(byPath.get('big.txt')?.afterHash).toBeUndefined()
  })
})

describe('TurnChanges through beforeWrite', () => {
  it('counts a modified file exactly: 2 of 5 lines changed and 1 added', () => {
    writeFileSync(at('a.txt'), '1\n2\n3\n4\n5\n')
    const changes = turn()
    write(changes, 'a.txt', '1\nTWO\n3\nFOUR\n5\n6\n')
    expect(counts(changes.finish())).toEqual([
      { path: 'a.txt', status: 'modified', additions: 3, deletions: 2 },
    ])
  })

  it('lists a new file with all its lines and a deleted one with all of its', () => {
    writeFileSync(at('old.txt'), 'x\ny\nz')
    const changes = turn()
    write(changes, 'src/new.ts', 'one\ntwo\n')
    changes.beforeWrite(at('old.txt'))
    unlinkSync(at('old.txt'))
    expect(counts(changes.finish())).toEqual([
      { path: 'old.txt', status: 'deleted', additions: 0, deletions: 3 },
      { path: 'src/new.ts', status: 'added', additions: 2, deletions: 0 },
    ])
  })

  it('keeps the first prior state and omits files written back to identical content', () => {
    writeFileSync(at('a.txt'), 'a\n')
    const changes = turn()
    write(changes, 'a.txt', 'b\n')
    write(changes, 'a.txt', 'a\n')
    write(changes, 'tmp.txt', 'scratch\n')
    changes.beforeWrite(at('tmp.txt'))
    unlinkSync(at('tmp.txt'))
    expect(counts(changes.finish())).toEqual([])
  })

  it('lists binary files without counting lines', () => {
    writeFileSync(at('img.bin'), Buffer.from([1, 0, 2, 10, 3]))
    const changes = turn()
    changes.beforeWrite(at('img.bin'))
    writeFileSync(at('img.bin'), Buffer.from([1, 0, 9, 10, 3, 10]))
    write(changes, 'new.bin', '\0\n\n')
    expect(counts(changes.finish())).toEqual([
      { path: 'img.bin', status: 'modified', additions: 0, deletions: 0 },
      { path: 'new.bin', status: 'added', additions: 0, deletions: 0 },
    ])
  })
})

describe('TurnChanges around commands', () => {
  it('acceptance: two edited files and one created by a command, all with exact counts', () => {
    writeFileSync(at('a.txt'), 'a1\na2\na3\n')
    writeFileSync(at('b.txt'), 'b1\nb2\n')
    const changes = turn()
    write(changes, 'a.txt', 'a1\nA2\na3\na4\n')
    write(changes, 'b.txt', 'b2\n')
    run(changes, 'printf "a\\nb\\nc\\n" > c.txt')
    const files = changes.finish()
    expect(counts(files)).toEqual([
      { path: 'a.txt', status: 'modified', additions: 2, deletions: 1 },
      { path: 'b.txt', status: 'modified', additions: 0, deletions: 1 },
      { path: 'c.txt', status: 'added', additions: 3, deletions: 0 },
    ])
    expect(eventData['workspace/diff'].parse({ files })).toEqual({ files })
  })

  it('diffs files a command modified or deleted against their content before it', () => {
    writeFileSync(at('m.txt'), '1\n2\n3\n')
    writeFileSync(at('d.txt'), 'gone\nsoon\n')
    writeFileSync(at('same.txt'), 'keep\n')
    const changes = turn()
    run(changes, 'printf "1\\n3\\n4\\n5\\n" > m.txt && rm d.txt && touch same.txt')
    expect(counts(changes.finish())).toEqual([
      { path: 'd.txt', status: 'deleted', additions: 0, deletions: 2 },
      { path: 'm.txt', status: 'modified', additions: 2, deletions: 1 },
    ])
    expect(changes.finishWithNotes().notes.unknownBase).toEqual([])
  })

  it('keeps the prior state from an earlier write when a command changes the file again', () => {
    writeFileSync(at('a.txt'), 'v1\n')
    const changes = turn()
    write(changes, 'a.txt', 'v2\n')
    run(changes, 'printf "v3\\nmore\\n" > a.txt')
    expect(counts(changes.finish())).toEqual([
      { path: 'a.txt', status: 'modified', additions: 2, deletions: 1 },
    ])
  })

  it('skips .git, node_modules and gitignored paths', () => {
    writeFileSync(at('.gitignore'), 'dist/\n*.log\n!keep.log\n')
    mkdirSync(at('.git'))
    mkdirSync(at('node_modules'))
    const changes = turn()
    run(
      changes,
      'mkdir -p dist && echo x > dist/out.js && echo x > .git/HEAD && ' +
        'echo x > node_modules/m.js && echo x > debug.log && echo x > keep.log',
    )
    expect(changes.finish().map((file) => file.path)).toEqual(['keep.log'])
  })

  it('over the content budget, command-modified files are listed with an unknown base', () => {
    writeFileSync(at('a.txt'), 'a\n')
    writeFileSync(at('b.txt'), 'b\n')
    const changes = new TurnChanges({ projectDir: project, snapshots, commandSnapshotMaxFiles: 1 })
    run(changes, 'echo more >> a.txt')
    const { files, notes } = changes.finishWithNotes()
    expect(counts(files)).toEqual([
      { path: 'a.txt', status: 'modified', additions: 0, deletions: 0 },
    ])
    expect(files[0]?.beforeHash).toBeUndefined()
    expect(notes).toEqual({
      unknownBase: ['a.txt'],
      approximate: [],
      unreadable: [],
      isTreeTruncated: false,
    })
  })

  it('with a truncated tree, finds deletions and new files inside the cap only', () => {
    for (let i = 0; i < 20; i++) writeFileSync(at(`f${String(i).padStart(2, '0')}.txt`), `${i}\n`)
    const changes = new TurnChanges({ projectDir: project, snapshots, maxTreeFiles: 5 })
    run(changes, 'rm f00.txt && echo new > a-new.txt && echo changed > f19.txt')
    const { files, notes } = changes.finishWithNotes()
    expect(notes.isTreeTruncated).toBe(true)
    expect(counts(files)).toEqual([
      // New, but with `before` truncated it may have existed past the cap: base unknown.
      { path: 'a-new.txt', status: 'modified', additions: 0, deletions: 0 },
      { path: 'f00.txt', status: 'deleted', additions: 0, deletions: 1 },
      // f19.txt lies past the cap: its change is missed (the documented limit).
    ])
  })
})

describe('SnapshotStore', () => {
  it('stores identical content once, owner-only, and reads it back', () => {
    const hash = snapshots.put(Buffer.from('hello\n'))
    const path = join(snapshots.dir, hash.slice(0, 2), hash)
    const writtenAt = statSync(path).mtimeMs
    expect(snapshots.put(Buffer.from('hello\n'))).toBe(hash)
    expect(statSync(path).mtimeMs).toBe(writtenAt)
    expect(readdirSync(join(snapshots.dir, hash.slice(0, 2)))).toEqual([hash])
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(statSync(join(snapshots.dir, hash.slice(0, 2))).mode & 0o777).toBe(0o700)
    expect(statSync(snapshots.dir).mode & 0o777).toBe(0o700)
    expect(snapshots.get(hash).toString()).toBe('hello\n')
  })

  it('refuses names that are not hashes and reports missing blobs by code', () => {
    expect(() => snapshots.get('../../etc/passwd')).toThrow(
      expect.objectContaining({ code: 'SNAPSHOT_BAD_HASH' }),
    )
    expect(() => snapshots.get('0'.repeat(64))).toThrow(
      expect.objectContaining({ code: 'SNAPSHOT_MISSING' }),
    )
  })
})

describe('diffText', () => {
  /** Applies `patch` with git to a copy of `before` and returns the result. */
  function applyWithGit(path: string, before: string | undefined, patch: string): string {
    const dir = join(base, 'apply')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    if (before !== undefined) writeFileSync(join(dir, path), before)
    writeFileSync(join(dir, 'change.patch'), patch)
    execFileSync('git', ['apply', 'change.patch'], { cwd: dir })
    return readFileSync(join(dir, path), 'utf8')
  }

  it('gives a unified diff that git applies to the prior content to get the current one', () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i}\n`)
    const edited = [...long]
    edited[2] = 'changed 2\n'
    edited.splice(20, 3, 'x\n', 'y\n')
    edited.push('tail without newline')
    const cases: [string, string][] = [
      [long.join(''), edited.join('')],
      ['a\nb', 'a\nb\n'],
      ['1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n', '1\n2\nX\n4\n5\n6\n7\n8\nY\n10\n'],
      ['héllo\nwörld\n', 'héllo\nwörld!\n'],
    ]
    for (const [before, after] of cases) {
      writeFileSync(at('f.txt'), before)
      const changes = turn()
      write(changes, 'f.txt', after)
      const patch = changes.diffText('f.txt') ?? ''
      expect(patch.startsWith('--- a/f.txt\n+++ b/f.txt\n@@ ')).toBe(true)
      expect(applyWithGit('f.txt', before, patch)).toBe(after)
    }
  })

  it('diffs a new file from /dev/null and is empty when nothing changed', () => {
    const changes = turn()
    write(changes, 'n.txt', 'a\nb\n')
    expect(changes.diffText('n.txt')).toBe('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n')
    expect(applyWithGit('n.txt', undefined, changes.diffText('n.txt') ?? '')).toBe('a\nb\n')
    write(changes, 'n.txt', 'a\nb\n')
    writeFileSync(at('k.txt'), 'k\n')
    write(changes, 'k.txt', 'k\n')
    expect(changes.diffText('k.txt')).toBe('')
    expect(changes.diffText('untouched.txt')).toBeUndefined()
  })
})

describe('the per-call records of workspace/diff', () => {
  it('keep what each call left in the files it wrote or its command changed', () => {
    writeFileSync(at('a.txt'), 'zero\n')
    writeFileSync(at('b.txt'), 'old')
    const changes = new TurnChanges({ projectDir: project, snapshots, afterSnapshotMaxBytes: 16 })
    write(changes, 'a.txt', 'one\n')
    changes.endCall(1, 'c1')
    // A call that touched nothing records nothing.
    changes.endCall(1, 'c2')
    run(changes, 'printf two > a.txt; printf new > b.txt; printf "%020d" 0 > big.txt')
    changes.endCall(2, 'c1')
    run(changes, 'rm b.txt; printf back > put-back.txt; rm put-back.txt')
    changes.endCall(2, 'c3')
    const files = changes.finish()
    const text = (hash: string | undefined) =>
      hash === undefined ? undefined : snapshots.get(hash).toString()
    const calls = changes.callsFor(files).map(({ step, callId, files: each }) => ({
      step,
      callId,
      files: each.map(({ path, hash, isAbsent }) => ({ path, text: text(hash), isAbsent })),
    }))
    expect(calls).toEqual([
      { step: 1, callId: 'c1', files: [{ path: 'a.txt', text: 'one\n', isAbsent: undefined }] },
      {
        step: 2,
        callId: 'c1',
        files: [
          { path: 'a.txt', text: 'two', isAbsent: undefined },
          { path: 'b.txt', text: 'new', isAbsent: undefined },
          // Over the size kept: listed, with no content (restore skips it at this point).
          { path: 'big.txt', text: undefined, isAbsent: undefined },
        ],
      },
      // put-back.txt is not among the turn's files (created and removed): not listed.
      { step: 2, callId: 'c3', files: [{ path: 'b.txt', text: undefined, isAbsent: true }] },
    ])
    expect(eventData['workspace/diff'].parse({ files, calls: changes.callsFor(files) })).toEqual({
      files,
      calls: changes.callsFor(files),
    })
  })
})
