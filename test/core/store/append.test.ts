import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { NEXT_SEQ_OF_SESSION } from '../../../main/core/store/rows.js'
import { openStore, StoreError } from '../../../main/core/store/index.js'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore, row, track } from './helpers.js'

function sessionFields(id: string) {
  return { id, parentId: null, forkSeq: null, projectDir: '/p', title: null, createdAt: 10 }
}

function storeWithSession(id = 's'): SqliteStore {
  const store = freshStore()
  store.createSession(sessionFields(id))
  return store
}

/** A second, raw connection: what is on disk, not what this store's connection believes. */
function onDisk<T>(store: SqliteStore, query: (db: Database.Database) => T): T {
  const db = new Database(store.path, { readonly: true })
  try {
    return query(db)
  } finally {
    db.close()
  }
}

describe('appendEvents', () => {
  it('appends contiguous rows; the summary is derived from them, exact on this connection', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', [row('s', 0), row('s', 1)]))
    store.write(() =>
      store.appendEvents('s', [
        row('s', 2, { type: 'user/message', data: '{"content":"hi"}', at: 6000 }),
        // Context the harness adds is not a message; an answer is.
        row('s', 3, { type: 'user/message', data: '{"content":"x","kind":"context"}', at: 6001 }),
        row('s', 4, { type: 'assistant/message', data: '{"blocks":[]}', at: 6002 }),
      ]),
    )
    expect(store.getSession('s')).toMatchObject({
      nextSeq: 5,
      ownEventCount: 5,
      messageCount: 2,
      updatedAt: 6002,
    })
    expect(store.readEvents('s').map((r) => [r.seq, r.type])).toEqual([
      [0, 'turn/start'],
      [1, 'turn/start'],
      [2, 'user/message'],
      [3, 'user/message'],
      [4, 'assistant/message'],
    ])
    expect(onDisk(store, (db) => db.prepare('SELECT count(*) FROM events').pluck().get())).toBe(5)
  })

  it('writes the rows alone: the session row is left to the catch-up batch', () => {
    const store = storeWithSession()
    const sessionRow = (db: Database.Database) =>
      db.prepare('SELECT derived_seq, message_count, updated_at FROM sessions').get()
    const before = onDisk(store, sessionRow)
    store.commitEvents('s', [row('s', 0, { type: 'assistant/message', data: '{"blocks":[]}' })])
    // Another connection sees the new length at once, and the summary once the batch has run.
    expect(onDisk(store, sessionRow)).toEqual(before)
    const other = new Database(store.path, { readonly: true })
    const length = () =>
      other.prepare(`SELECT ${NEXT_SEQ_OF_SESSION} FROM sessions WHERE id = 's'`).pluck().get()
    expect(length()).toBe(1)
    other.close()
    expect(store.getSession('s')).toMatchObject({ nextSeq: 1, messageCount: 1, updatedAt: 1000 })
    expect(onDisk(store, sessionRow)).toEqual({
      derived_seq: 1,
      message_count: 1,
      updated_at: 1000,
    })
  })

  it('another connection reads a summary exact: it catches up the rows it finds behind it', () => {
    const store = storeWithSession()
    const other = track(openStore(store.path))
    store.commitEvents('s', [
      row('s', 0, { type: 'assistant/message', data: '{"blocks":[]}', at: 4000 }),
    ])
    expect(other.getSession('s')).toMatchObject({ nextSeq: 1, messageCount: 1, updatedAt: 4000 })
    store.commitEvents('s', [row('s', 1, { type: 'user/message', data: '{"content":"x"}' })])
    expect(other.listTree()).toMatchObject([{ id: 's', messageCount: 2 }])
  })

  it('reads a summary as it is while another program holds the write lock, exact after', () => {
    const store = storeWithSession()
    const other = track(openStore(store.path))
    store.commitEvents('s', [row('s', 0, { type: 'assistant/message', data: '{"blocks":[]}' })])
    const holder = new Database(store.path)
    holder.exec('BEGIN IMMEDIATE')
    try {
      // The length is read from the rows; the count waits for a catch-up that cannot run now.
      expect(other.getSession('s')).toMatchObject({ nextSeq: 1, messageCount: 0 })
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    expect(other.getSession('s')).toMatchObject({ nextSeq: 1, messageCount: 1 })
  })

  it('moves the activity time to the latest row, and never back', () => {
    const store = storeWithSession()
    const activityAfter = (seq: number, at: number) => {
      store.write(() => store.appendEvents('s', [row('s', seq, { at })]))
      return store.getSession('s')?.updatedAt
    }
    // storeWithSession creates the session at 10.
    expect(activityAfter(0, 500)).toBe(500)
    expect(activityAfter(1, 1009)).toBe(1009)
    // A clock set back leaves the latest activity where it was.
    expect(activityAfter(2, 100)).toBe(1009)
    expect(store.getSession('s')).toMatchObject({ nextSeq: 3, ownEventCount: 3 })
  })

  it('puts the session written to first in the list at once', () => {
    const store = storeWithSession('a')
    store.createSession({ ...sessionFields('b'), createdAt: 20 })
    const first = () => store.listSessions({ limit: 1 }).items[0]?.id
    expect(first()).toBe('b')
    store.write(() => store.appendEvents('a', [row('a', 0, { at: 30 })]))
    expect(first()).toBe('a')
    store.write(() => store.appendEvents('b', [row('b', 0, { at: 31 })]))
    expect(first()).toBe('b')
  })

  it('round-trips every field exactly', () => {
    const store = storeWithSession()
    const written = row('s', 0, {
      type: 'user/message',
      v: 1,
      turn: 3,
      step: 2,
      at: 1_700_000_000_123,
      data: '{"content":"é ✓"}',
    })
    store.write(() => store.appendEvents('s', [written]))
    expect(store.readEvents('s')).toEqual([{ ...written }])
  })

  it('refuses a wrong first seq with STALE_WRITER and writes nothing', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', [row('s', 0)]))
    for (const first of [0, 2]) {
      const error = catchError(() =>
        store.write(() => store.appendEvents('s', [row('s', first), row('s', first + 1)])),
      )
      expect(error.code).toBe('STALE_WRITER')
      expect(error.message).toContain('expected seq 1')
      expect(error.message).toContain(`${first}`)
    }
    expect(store.getSession('s')).toMatchObject({ nextSeq: 1, ownEventCount: 1, updatedAt: 1000 })
    expect(store.readEvents('s')).toHaveLength(1)
  })

  it('refuses a gap inside the batch with STALE_WRITER and writes nothing', () => {
    const store = storeWithSession()
    const code = codeOf(() =>
      store.write(() => store.appendEvents('s', [row('s', 0), row('s', 1), row('s', 3)])),
    )
    expect(code).toBe('STALE_WRITER')
    expect(store.readEvents('s')).toEqual([])
    expect(store.getSession('s')?.nextSeq).toBe(0)
  })

  it('keeps the batch all-or-nothing even when the caller catches inside write()', () => {
    const store = storeWithSession()
    store.write(() => {
      expect(
        codeOf(() =>
          store.appendEvents('s', [row('s', 0), row('s', 1, { data: 5 as unknown as string })]),
        ),
      ).toBe('INVALID_ROW')
      store.appendEvents('s', [row('s', 0)])
    })
    expect(store.readEvents('s').map((r) => r.seq)).toEqual([0])
  })

  it('refuses rows of another session, unknown sessions and calls outside write()', () => {
    const store = storeWithSession()
    expect(codeOf(() => store.write(() => store.appendEvents('s', [row('t', 0)])))).toBe(
      'INVALID_ROW',
    )
    expect(codeOf(() => store.write(() => store.appendEvents('nope', [row('nope', 0)])))).toBe(
      'NO_SUCH_SESSION',
    )
    expect(() => store.appendEvents('s', [row('s', 0)])).toThrow(/inside store.write/)
    expect(store.readEvents('s')).toEqual([])
  })

  it('an empty batch changes nothing', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', []))
    expect(store.getSession('s')).toMatchObject({ nextSeq: 0, messageCount: 0, updatedAt: 10 })
  })
})

describe('commitEvents', () => {
  it('commits a batch on its own, synced or not, and counts it as write would', () => {
    const store = storeWithSession()
    const before = store.counters()
    store.commitEvents('s', [row('s', 0), row('s', 1)])
    store.commitEvents('s', [row('s', 2)], { isSynced: false })
    store.commitEvents('s', [])
    expect(store.counters()).toEqual({
      commits: before.commits + 2,
      syncedCommits: before.syncedCommits + 1,
    })
    expect(onDisk(store, (db) => db.prepare('SELECT seq FROM events').pluck().all())).toEqual([
      0, 1, 2,
    ])
    expect(store.getSession('s')).toMatchObject({ nextSeq: 3, ownEventCount: 3, messageCount: 0 })
    // The connection is back at synchronous=FULL (2) after the unsynced commit.
    expect(store.pragmas()['synchronous']).toBe(2)
  })

  it('refuses a stale batch and leaves nothing behind', () => {
    const store = storeWithSession()
    store.commitEvents('s', [row('s', 0)])
    expect(codeOf(() => store.commitEvents('s', [row('s', 0)]))).toBe('STALE_WRITER')
    expect(codeOf(() => store.commitEvents('s', [row('s', 1), row('s', 3)]))).toBe('STALE_WRITER')
    expect(store.readEvents('s').map((r) => r.seq)).toEqual([0])
    expect(store.getSession('s')?.nextSeq).toBe(1)
  })

  it('inside a write joins it, and is rolled back with it', () => {
    const store = storeWithSession()
    expect(() =>
      store.write(() => {
        store.commitEvents('s', [row('s', 0)])
        expect(store.readEvents('s')).toHaveLength(1)
        throw new Error('the caller changes its mind')
      }),
    ).toThrow('the caller changes its mind')
    expect(store.readEvents('s')).toEqual([])
    expect(store.getSession('s')?.nextSeq).toBe(0)
  })
})

describe('the events table is append-only', () => {
  it('UPDATE and DELETE of event rows raise, through any connection', () => {
    const store = storeWithSession()
    seedRows(store, 3)
    const path = store.path
    store.close()
    const db = new Database(path)
    try {
      expect(() => db.prepare("UPDATE events SET data = '{}' WHERE seq = 1").run()).toThrow(
        /append-only/,
      )
      expect(() => db.prepare('DELETE FROM events WHERE seq = 2').run()).toThrow(/append-only/)
      expect(db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(3)
    } finally {
      db.close()
    }
  })
})

describe('write()', () => {
  it('rolls everything back when the body throws, and rethrows the error', () => {
    const store = storeWithSession()
    const boom = new Error('boom')
    expect(() =>
      store.write(() => {
        store.createSession({
          id: 't',
          parentId: null,
          forkSeq: null,
          projectDir: '/p',
          title: null,
          createdAt: 1,
        })
        store.appendEvents('s', [row('s', 0), row('s', 1)])
        store.setTitle('s', 'renamed', 6)
        throw boom
      }),
    ).toThrow(boom)
    expect(store.getSession('t')).toBeUndefined()
    expect(store.getSession('s')).toMatchObject({ nextSeq: 0, title: null, messageCount: 0 })
    expect(store.readEvents('s')).toEqual([])
    expect(store.search('anything', { limit: 5 })).toEqual([])
  })

  it('a nested write rolls back only its own part', () => {
    const store = storeWithSession()
    store.write(() => {
      store.appendEvents('s', [row('s', 0)])
      expect(() =>
        store.write(() => {
          store.appendEvents('s', [row('s', 1)])
          throw new Error('inner')
        }),
      ).toThrow('inner')
      store.appendEvents('s', [row('s', 1, { type: 'turn/end' })])
    })
    expect(store.readEvents('s').map((r) => r.type)).toEqual(['turn/start', 'turn/end'])
  })

  it('returns the body result and refuses an async body', () => {
    const store = storeWithSession()
    expect(store.write(() => 42)).toBe(42)
    expect(() => store.write(async () => Promise.resolve())).toThrow()
  })
})

function seedRows(store: SqliteStore, count: number): void {
  store.write(() =>
    store.appendEvents(
      's',
      Array.from({ length: count }, (_, seq) => row('s', seq)),
    ),
  )
}

function catchError(body: () => unknown): StoreError {
  try {
    body()
  } catch (error) {
    if (error instanceof StoreError) return error
    throw error
  }
  throw new Error('expected a StoreError')
}
