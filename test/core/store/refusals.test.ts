import { randomBytes } from 'node:crypto'
import { closeSync, openSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { LATEST_VERSION, openStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore, row, sha256, tempFolder, track } from './helpers.js'

/** A closed Bridle database with `events` rows of ~300 bytes (with search text) in one session. */
function populatedDatabase(events: number): string {
  const store = freshStore()
  store.createSession({
    id: 'big',
    parentId: null,
    forkSeq: null,
    projectDir: '/p',
    title: null,
    createdAt: 1,
  })
  const text = 'lorem ipsum dolor sit amet '.repeat(10)
  store.write(() => {
    const rows = Array.from({ length: events }, (_, seq) =>
      row('big', seq, {
        type: 'user/message',
        data: JSON.stringify({ content: `${seq} ${text}` }),
      }),
    )
    store.appendEvents('big', rows)
  })
  const path = store.path
  store.close()
  return path
}

/** Each refusal must leave the file exactly as it was: same bytes, nothing "repaired". */
function expectRefusedUntouched(path: string, code: string): void {
  const before = sha256(path)
  const size = statSync(path).size
  expect(codeOf(() => openStore(path))).toBe(code)
  expect(statSync(path).size).toBe(size)
  expect(sha256(path)).toBe(before)
}

describe('openStore refuses files that are not a usable Bridle database', () => {
  it('a zero-byte file (SQLite would silently treat it as a fresh database)', () => {
    const path = join(tempFolder(), 'bridle.db')
    writeFileSync(path, '', { mode: 0o600 })
    expectRefusedUntouched(path, 'NOT_A_BRIDLE_DATABASE')
    expect(statSync(path).size).toBe(0)
  })

  it('a file of random bytes', () => {
    const path = join(tempFolder(), 'bridle.db')
    writeFileSync(path, randomBytes(16_384), { mode: 0o600 })
    expectRefusedUntouched(path, 'NOT_A_BRIDLE_DATABASE')
  })

  it("another application's SQLite file", () => {
    const path = join(tempFolder(), 'bridle.db')
    const other = new Database(path)
    other.pragma('application_id = 1234')
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('theirs')")
    other.close()
    expectRefusedUntouched(path, 'NOT_A_BRIDLE_DATABASE')
  })

  it('an SQLite file with no application_id at all', () => {
    const path = join(tempFolder(), 'bridle.db')
    const other = new Database(path)
    other.exec('CREATE TABLE t (x)')
    other.close()
    expectRefusedUntouched(path, 'NOT_A_BRIDLE_DATABASE')
  })

  it('a database written by a newer Bridle, whose user_version stays as it was', () => {
    const store = freshStore()
    const path = store.path
    store.close()
    const newer = new Database(path)
    newer.pragma(`user_version = ${LATEST_VERSION + 5}`)
    newer.close()
    expectRefusedUntouched(path, 'NEWER_SCHEMA')
    const check = new Database(path, { readonly: true })
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(LATEST_VERSION + 5)
    } finally {
      check.close()
    }
  })

  it('a database with a damaged interior page, never opened as if fresh', () => {
    const path = populatedDatabase(3000)
    const pageSize = 4096
    const pages = statSync(path).size / pageSize
    expect(pages).toBeGreaterThan(100)
    const middle = Math.floor(pages / 2)
    // The page header and cell pointers: quick_check verifies the b-tree structure, not payload
    // bytes (a flipped byte inside a JSON value is the log layer's to find when it parses rows).
    const fd = openSync(path, 'r+')
    try {
      writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, middle * pageSize)
    } finally {
      closeSync(fd)
    }
    const before = sha256(path)
    const code = codeOf(() => openStore(path))
    expect(['CORRUPT', 'NOT_A_BRIDLE_DATABASE']).toContain(code)
    expect(sha256(path)).toBe(before)
  })

  it('a database truncated to half its size', () => {
    const path = populatedDatabase(2000)
    truncateSync(path, Math.floor(statSync(path).size / 2 / 4096) * 4096)
    const before = sha256(path)
    expect(['CORRUPT', 'NOT_A_BRIDLE_DATABASE']).toContain(codeOf(() => openStore(path)))
    expect(sha256(path)).toBe(before)
  })

  it('still opens the intact original of the damaged copies above', () => {
    const path = populatedDatabase(500)
    const store = track(openStore(path))
    expect(store.getSession('big')?.nextSeq).toBe(500)
  })
})
