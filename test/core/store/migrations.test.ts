import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  APPLICATION_ID,
  LATEST_VERSION,
  MIGRATIONS,
  migrate,
  openStore,
} from '../../../main/core/store/index.js'
import { codeOf, tempFolder, track } from './helpers.js'

/** A database as schema v1 left it, built with the real v1 migration, with a few events. */
function v1Database(): string {
  const path = join(tempFolder(), 'bridle.db')
  const db = new Database(path)
  try {
    db.pragma(`application_id = ${APPLICATION_ID}`)
    db.pragma('journal_mode = WAL')
    migrate(db, 1)
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    db.prepare(
      `INSERT INTO sessions (id, parent_id, fork_seq, title, project_dir, created_at, updated_at, next_seq)
       VALUES ('old', NULL, NULL, NULL, '/p', 1, 1, 4)`,
    ).run()
    const insert = db.prepare(
      `INSERT INTO events (session_id, seq, type, v, turn, step, at, data) VALUES ('old', ?, ?, 1, 1, 1, 1, ?)`,
    )
    insert.run(0, 'user/message', JSON.stringify({ content: 'please refactor the parser' }))
    insert.run(
      1,
      'assistant/message',
      JSON.stringify({
        blocks: [
          { type: 'reasoning', text: 'hidden thoughts' },
          { type: 'text', text: 'The parser now streams.' },
        ],
        finish: 'stop',
      }),
    )
    insert.run(
      2,
      'tool/result',
      JSON.stringify({ callId: 'c', ok: false, error: { code: 'E', message: 'parser exploded' } }),
    )
    insert.run(3, 'turn/end', JSON.stringify({ reason: 'completed' }))
  } finally {
    db.close()
  }
  return path
}

describe('migrations', () => {
  it('are numbered 1..LATEST_VERSION in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(
      Array.from({ length: LATEST_VERSION }, (_, i) => i + 1),
    )
    expect(LATEST_VERSION).toBe(6)
  })

  it('an old session has no spawner after the lineage migration (v3); a new child records one', () => {
    const store = track(openStore(v1Database()))
    expect(store.getSession('old')?.spawnedBy).toBeNull()
    expect(store.listSpawned('old')).toEqual([])
  })

  it('opening a v1 database migrates it to the latest and backfills the search index', () => {
    const path = v1Database()
    const store = track(openStore(path))
    expect(store.search('parser', { limit: 10 }).map((hit) => [hit.seq, hit.type])).toEqual(
      expect.arrayContaining([
        [0, 'user/message'],
        [1, 'assistant/message'],
        [2, 'tool/result'],
      ]),
    )
    expect(store.search('parser', { limit: 10 })).toHaveLength(3)
    // Reasoning is not indexed, only text blocks.
    expect(store.search('hidden', { limit: 10 })).toEqual([])
    expect(store.readEvents('old')).toHaveLength(4)
    store.close()
    const db = new Database(path, { readonly: true })
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION)
    } finally {
      db.close()
    }
  })

  it('v5 keeps a v4 summary exact and indexes what v4 had not yet, counting nothing twice', () => {
    const path = join(tempFolder(), 'bridle.db')
    const db = new Database(path)
    db.pragma(`application_id = ${APPLICATION_ID}`)
    db.pragma('journal_mode = WAL')
    migrate(db, 4)
    // v4 kept the counts exact in the append; its index had not caught up with the last rows.
    db.prepare(
      `INSERT INTO sessions (id, parent_id, fork_seq, title, project_dir, created_at, updated_at,
         own_event_count, next_seq, message_count, indexed_seq)
       VALUES ('s', NULL, NULL, NULL, '/p', 1, 7, 3, 3, 2, 1)`,
    ).run()
    const insert = db.prepare(
      `INSERT INTO events (session_id, seq, type, v, turn, step, at, data) VALUES ('s', ?, ?, 1, 1, 1, ?, ?)`,
    )
    insert.run(0, 'user/message', 5, JSON.stringify({ content: 'the old words' }))
    insert.run(
      1,
      'assistant/message',
      6,
      JSON.stringify({ blocks: [{ type: 'text', text: 'needle' }] }),
    )
    insert.run(2, 'turn/end', 7, JSON.stringify({ reason: 'completed' }))
    db.close()
    const store = track(openStore(path))
    expect(store.getSession('s')).toMatchObject({
      nextSeq: 3,
      ownEventCount: 3,
      messageCount: 2,
      updatedAt: 7,
    })
    expect(store.search('needle', { limit: 5 }).map((hit) => hit.seq)).toEqual([1])
  })

  it('a failing migration leaves the previous version and schema intact', () => {
    const path = v1Database()
    const db = new Database(path)
    // Something already named like the v2 table makes CREATE VIRTUAL TABLE fail mid-migration.
    db.exec('CREATE TABLE events_fts (x)')
    db.close()
    expect(() => openStore(path)).toThrow(/events_fts/)
    const check = new Database(path, { readonly: true })
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(1)
      expect(check.prepare('SELECT count(*) FROM events').pluck().get()).toBe(4)
    } finally {
      check.close()
    }
  })

  it('migrate() refuses a newer version than it knows', () => {
    const db = new Database(':memory:')
    try {
      db.pragma(`user_version = ${LATEST_VERSION + 1}`)
      expect(codeOf(() => migrate(db))).toBe('NEWER_SCHEMA')
    } finally {
      db.close()
    }
  })
})
