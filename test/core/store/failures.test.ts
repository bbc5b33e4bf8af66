import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import {
  classifyStoreFailure,
  isStoreFailure,
  openStore,
  StoreError,
} from '../../../main/core/store/index.js'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { faultFromEnv } from '../../../main/core/store/fault.js'
import {
  holdWriteLock,
  immutableUnsupported,
  killLockHolders,
  mountReadOnly,
  mountTmpfs,
  fillDisk,
  setImmutable,
  unmount,
} from './disk-faults.js'
import { codeOf, row, seedSession, tempFolder, track } from './helpers.js'

const mounts: string[] = []
const immutables: string[][] = []
afterEach(() => {
  killLockHolders()
  for (const paths of immutables.splice(0)) setImmutable(paths, false)
  for (const dir of mounts.splice(0)) unmount(dir)
})

function storeIn(folder: string, opts: Parameters<typeof openStore>[1] = {}): SqliteStore {
  return track(openStore(join(folder, 'bridle.db'), opts))
}

/** The StoreError a call threw (failing the test if it threw anything else, or nothing). */
function failureOf(body: () => unknown): StoreError {
  try {
    body()
  } catch (error) {
    if (error instanceof StoreError) return error
    throw error
  }
  throw new Error('expected a StoreError, nothing was thrown')
}

function appendOne(store: SqliteStore, type = 'turn/start'): void {
  const seq = store.getSession('s')?.nextSeq ?? 0
  store.write(() => store.appendEvents('s', [row('s', seq, { type })]))
}

describe("SQLite's own refusals, said plainly", () => {
  it('classifies a full database, a read-only connection and a held lock; leaves other errors alone', () => {
    const folder = tempFolder()
    const path = join(folder, 'raw.db')
    const db = new Database(path)
    db.pragma('journal_mode = WAL')
    db.exec('CREATE TABLE t (x BLOB)')
    const failure = (body: () => unknown) => {
      try {
        body()
      } catch (error) {
        return classifyStoreFailure(error, path)
      }
      throw new Error('expected SQLite to refuse')
    }

    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`)
    const full = failure(() => db.prepare('INSERT INTO t VALUES (zeroblob(100000))').run())
    expect(full?.code).toBe('STORE_FULL')
    expect(full?.message).toBe(
      `the disk holding ${folder} is full; free some space on it, then try again`,
    )
    expect((full?.cause as { code?: string }).code).toBe('SQLITE_FULL')
    db.pragma('max_page_count = 1000000')

    db.pragma('query_only = ON')
    const readOnly = failure(() => db.prepare('INSERT INTO t VALUES (1)').run())
    expect(readOnly?.code).toBe('STORE_READONLY')
    expect(readOnly?.message).toBe(
      `${path} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
    db.pragma('query_only = OFF')

    const other = new Database(path, { timeout: 0 })
    other.exec('BEGIN IMMEDIATE')
    db.pragma('busy_timeout = 0')
    const busy = classifyStoreFailure(
      (() => {
        try {
          db.exec('BEGIN IMMEDIATE')
        } catch (error) {
          return error
        }
        return undefined
      })(),
      path,
      5000,
    )
    expect(busy?.code).toBe('STORE_BUSY')
    expect(busy?.message).toBe(
      `${path} is in use by another program, which kept it locked for more than 5 s; close that program, then try again`,
    )
    other.exec('ROLLBACK')
    other.close()

    db.exec('CREATE TABLE u (x UNIQUE)')
    db.exec('INSERT INTO u VALUES (1)')
    expect(failure(() => db.exec('INSERT INTO u VALUES (1)'))).toBeUndefined()
    expect(classifyStoreFailure(new StoreError('STALE_WRITER', 'x'), path)).toBeUndefined()
    expect(classifyStoreFailure(new Error('a bug'), path)).toBeUndefined()
    db.close()
  })

  it('write() waits only busyWaitMs for another program', async () => {
    const store = storeIn(tempFolder())
    seedSession(store, 's', 1)
    await holdWriteLock(store.path, 20_000)
    const startedAt = performance.now()
    const failure = failureOf(() =>
      store.write(() => store.appendEvents('s', [row('s', 1)]), {
        busyWaitMs: 100,
      }),
    )
    expect(performance.now() - startedAt).toBeLessThan(2000)
    expect(failure.code).toBe('STORE_BUSY')
    expect(failure.message).toContain('kept it locked for more than 100 ms')
    expect(isStoreFailure(failure)).toBe(true)
    expect(store.getSession('s')?.nextSeq).toBe(1)
  })

  it('a write without busyWaitMs waits the full busy_timeout again', () => {
    const store = storeIn(tempFolder())
    seedSession(store, 's', 1)
    store.write(() => store.appendEvents('s', [row('s', 1)]), {
      busyWaitMs: 100,
    })
    expect(store.pragmas().busy_timeout).toBe(100)
    store.write(() => store.appendEvents('s', [row('s', 2)]))
    expect(store.pragmas().busy_timeout).toBe(5000)
  })
})

describe('the test seam (StoreOptions.fault, BRIDLE_TEST_STORE_FAULT)', () => {
  it('full: SQLite refuses the batch holding the event type, and every append after it', () => {
    const folder = tempFolder()
    const store = storeIn(folder, { fault: { kind: 'full', atEventType: 'tool/call' } })
    seedSession(store, 's', 1)
    appendOne(store, 'turn/start')
    const failure = failureOf(() => appendOne(store, 'tool/call'))
    expect(failure.code).toBe('STORE_FULL')
    expect(failure.message).toContain(`the disk holding ${folder} is full`)
    expect((failure.cause as { code?: string }).code).toBe('SQLITE_FULL')
    expect(codeOf(() => appendOne(store, 'turn/start'))).toBe('STORE_FULL')
    expect(store.getSession('s')?.nextSeq).toBe(2)
    store.close()
    // Reopened without the fault: nothing of the seam is left in the file, and it takes writes.
    const again = storeIn(folder)
    appendOne(again, 'tool/call')
    expect(again.getSession('s')?.nextSeq).toBe(3)
    const raw = new Database(again.path, { readonly: true })
    expect(
      raw.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'bridle_test%'").all(),
    ).toEqual([])
    raw.close()
  })

  it('readonly: SQLITE_READONLY from then on; releasing the session lock and closing still do not throw', () => {
    const store = storeIn(tempFolder(), { fault: { kind: 'readonly', atEventType: 'tool/call' } })
    seedSession(store, 's', 1)
    const release = store.lockSession('s')
    expect(codeOf(() => appendOne(store, 'tool/call'))).toBe('STORE_READONLY')
    expect(codeOf(() => appendOne(store, 'turn/start'))).toBe('STORE_READONLY')
    expect(() => release()).not.toThrow()
    expect(() => store.close()).not.toThrow()
  })

  it('refuses a malformed BRIDLE_TEST_STORE_FAULT instead of testing nothing', () => {
    expect(faultFromEnv({})).toBeUndefined()
    expect(faultFromEnv({ BRIDLE_TEST_STORE_FAULT: 'readonly@tool/call' })).toEqual({
      kind: 'readonly',
      atEventType: 'tool/call',
    })
    expect(codeOf(() => faultFromEnv({ BRIDLE_TEST_STORE_FAULT: 'full' }))).toBe('CONFIG_REJECTED')
  })
})

describe('real disks that refuse writes (skipped, saying why, where this machine cannot)', () => {
  it('a full tmpfs: creating the database is STORE_FULL; an open store fails its write the same way', (ctx) => {
    const dir = join(tempFolder(), 'tiny')
    const why = mountTmpfs(dir, 1024)
    if (why !== undefined) return ctx.skip(why)
    mounts.push(dir)
    const store = storeIn(dir)
    seedSession(store, 's', 1)
    fillDisk(dir)
    // Each batch grows the WAL; the first page that finds no block fails the commit.
    let failure: StoreError | undefined
    for (let i = 0; i < 100 && failure === undefined; i++) {
      try {
        appendOne(store, 'x'.repeat(3000))
      } catch (error) {
        if (!(error instanceof StoreError)) throw error
        failure = error
      }
    }
    expect(failure?.code).toBe('STORE_FULL')
    expect(failure?.message).toContain(`the disk holding ${dir} is full`)
    store.close()
    expect(codeOf(() => openStore(join(dir, 'other.db')))).toBe('STORE_FULL')
  })

  it('a read-only mount: opening is STORE_READONLY naming the folder', (ctx) => {
    const source = tempFolder()
    storeIn(source).close()
    const view = join(tempFolder(), 'view')
    const why = mountReadOnly(source, view)
    if (why !== undefined) return ctx.skip(why)
    mounts.push(view)
    const failure = failureOf(() => openStore(join(view, 'bridle.db')))
    expect(failure.code).toBe('STORE_READONLY')
    expect(failure.message).toBe(
      `${view} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`,
    )
  })

  it('an immutable database mid-session (stops root too): the I/O error is named read-only', (ctx) => {
    const folder = tempFolder()
    const why = immutableUnsupported(folder)
    if (why !== undefined) return ctx.skip(why)
    const store = storeIn(folder)
    seedSession(store, 's', 1)
    const files = [store.path, `${store.path}-wal`]
    expect(setImmutable(files, true)).toBeUndefined()
    immutables.push(files)
    const failure = failureOf(() => appendOne(store))
    expect(failure.code).toBe('STORE_READONLY')
    expect(failure.message).toContain(`${store.path} is read-only`)
    expect((failure.cause as { code?: string }).code).toMatch(/^SQLITE_IOERR/)
    expect(dirname(store.path)).toBe(folder)
  })
})
