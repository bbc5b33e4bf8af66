import { chmodSync, linkSync, lstatSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  APPLICATION_ID,
  LATEST_VERSION,
  databasePath,
  openStore,
} from '../../../main/core/store/index.js'
import { applyPragmas } from '../../../main/core/store/pragmas.js'
import { codeOf, freshStore, sha256, tempFolder, track } from './helpers.js'

describe('openStore: a new database', () => {
  it('pins the required pragmas and reads them back', () => {
    const store = freshStore()
    expect(store.pragmas()).toEqual({
      busy_timeout: 5000,
      journal_mode: 'wal',
      synchronous: 2, // FULL
      foreign_keys: 1,
      trusted_schema: 0,
      mmap_size: 0,
    })
  })

  it('creates the file and its -wal/-shm owner-only (0600)', () => {
    const store = freshStore()
    store.createSession({
      id: 's',
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: null,
      createdAt: 1,
    })
    for (const file of [store.path, `${store.path}-wal`, `${store.path}-shm`]) {
      expect((lstatSync(file).mode & 0o777).toString(8), file).toBe('600')
    }
  })

  it('stamps our application_id and the latest schema version', () => {
    const store = freshStore()
    const path = store.path
    store.close()
    const db = new Database(path, { readonly: true })
    try {
      expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID)
      expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    } finally {
      db.close()
    }
  })

  it('reopens an existing database with its rows, and leaves no temporary files', () => {
    const folder = tempFolder()
    const path = databasePath(folder)
    expect(path).toBe(join(folder, 'bridle.db'))
    const first = track(openStore(path))
    first.createSession({
      id: 'kept',
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: 't',
      createdAt: 5,
    })
    first.close()
    const second = track(openStore(path))
    expect(second.getSession('kept')?.title).toBe('t')
    second.close()
    expect(readdirSync(folder)).toEqual(['bridle.db'])
  })

  it('tightens the mode of an existing database that is group- or world-readable', () => {
    const store = freshStore()
    const path = store.path
    store.close()
    // A file restored by hand with a permissive umask: SQLite would give -wal/-shm its mode.
    chmodSync(path, 0o644)
    const reopened = track(openStore(path))
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect((lstatSync(file).mode & 0o777).toString(8), file).toBe('600')
    }
    reopened.close()
  })
})

describe('openStore: unsafe paths', () => {
  it('refuses a symlink, leaving its target untouched', () => {
    const store = freshStore()
    const target = store.path
    store.close()
    const link = join(tempFolder(), 'bridle.db')
    symlinkSync(target, link)
    const before = sha256(target)
    expect(codeOf(() => openStore(link))).toBe('UNSAFE_PATH')
    expect(sha256(target)).toBe(before)
  })

  it('refuses a folder and a hard-linked file', () => {
    const folder = tempFolder()
    mkdirSync(join(folder, 'bridle.db'))
    expect(codeOf(() => openStore(join(folder, 'bridle.db')))).toBe('UNSAFE_PATH')

    const store = freshStore()
    const path = store.path
    store.close()
    linkSync(path, join(tempFolder(), 'second-name.db'))
    expect(codeOf(() => openStore(path))).toBe('UNSAFE_PATH')
  })

  it('does not create a database in a folder that does not exist', () => {
    const missing = join(tempFolder(), 'nope', 'bridle.db')
    expect(() => openStore(missing)).toThrow(/ENOENT/)
  })
})

describe('applyPragmas', () => {
  it('fails with CONFIG_REJECTED when a setting does not take', () => {
    // A connection that ignores writes, like SQLite does with WAL on a file system without
    // shared memory: the read-back catches it.
    const values: Record<string, unknown> = {
      busy_timeout: 5000,
      journal_mode: 'delete',
      synchronous: 2,
      foreign_keys: 1,
      trusted_schema: 0,
      mmap_size: 0,
    }
    const stub = {
      pragma: (source: string) => (source.includes('=') ? undefined : values[source]),
    }
    expect(codeOf(() => applyPragmas(stub))).toBe('CONFIG_REJECTED')
    values['journal_mode'] = 'wal'
    expect(applyPragmas(stub)).toEqual(values)
  })
})
