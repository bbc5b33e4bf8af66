import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { StoreError } from '../../../main/core/store/index.js'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore, row } from './helpers.js'

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
  it('appends contiguous rows and updates the session counters', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', [row('s', 0), row('s', 1)], { messages: 1, at: 50 }))
    store.write(() =>
      store.appendEvents('s', [row('s', 2, { type: 'user/message' })], { messages: 1, at: 6000 }),
    )
    expect(store.getSession('s')).toMatchObject({
      nextSeq: 3,
      ownEventCount: 3,
      messageCount: 2,
      updatedAt: 6000,
    })
    expect(store.readEvents('s').map((r) => [r.seq, r.type])).toEqual([
      [0, 'turn/start'],
      [1, 'turn/start'],
      [2, 'user/message'],
    ])
    expect(onDisk(store, (db) => db.prepare('SELECT count(*) FROM events').pluck().get())).toBe(3)
  })

  it('moves the activity time only when it is a second or more away from the stored one', () => {
    const store = storeWithSession()
    const activityAfter = (seq: number, at: number) => {
      store.write(() => store.appendEvents('s', [row('s', seq)], { messages: 0, at }))
      return store.getSession('s')?.updatedAt
    }
    // storeWithSession creates the session at 10.
    expect(activityAfter(0, 500)).toBe(10)
    expect(activityAfter(1, 1009)).toBe(10)
    expect(activityAfter(2, 1010)).toBe(1010)
    expect(activityAfter(3, 1500)).toBe(1010)
    expect(activityAfter(4, 2500)).toBe(2500)
    // A clock set back by more than a second moves it too, as before.
    expect(activityAfter(5, 100)).toBe(100)
    expect(store.getSession('s')).toMatchObject({ nextSeq: 6, ownEventCount: 6 })
  })

  it('puts the session written to first in the list at once, even within the second', () => {
    const store = storeWithSession('a')
    store.createSession({ ...sessionFields('b'), createdAt: 20 })
    const first = () => store.listSessions({ limit: 1 }).items[0]?.id
    expect(first()).toBe('b')
    store.write(() => store.appendEvents('a', [row('a', 0)], { messages: 0, at: 30 }))
    expect(first()).toBe('a')
    expect(store.getSession('a')?.updatedAt).toBe(30)
    // Already first: a second append within the second leaves the stored time alone.
    store.write(() => store.appendEvents('a', [row('a', 1)], { messages: 0, at: 40 }))
    expect(store.getSession('a')?.updatedAt).toBe(30)
    store.write(() => store.appendEvents('b', [row('b', 0)], { messages: 0, at: 50 }))
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
    store.write(() => store.appendEvents('s', [written], { messages: 1, at: 1 }))
    expect(store.readEvents('s')).toEqual([{ ...written }])
  })

  it('refuses a wrong first seq with STALE_WRITER and writes nothing', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', [row('s', 0)], { messages: 0, at: 1 }))
    for (const first of [0, 2]) {
      const error = catchError(() =>
        store.write(() =>
          store.appendEvents('s', [row('s', first), row('s', first + 1)], {
            messages: 0,
            at: 9000,
          }),
        ),
      )
      expect(error.code).toBe('STALE_WRITER')
      expect(error.message).toContain('expected seq 1')
      expect(error.message).toContain(`${first}`)
    }
    expect(store.getSession('s')).toMatchObject({ nextSeq: 1, ownEventCount: 1, updatedAt: 10 })
    expect(store.readEvents('s')).toHaveLength(1)
  })

  it('refuses a gap inside the batch with STALE_WRITER and writes nothing', () => {
    const store = storeWithSession()
    const code = codeOf(() =>
      store.write(() =>
        store.appendEvents('s', [row('s', 0), row('s', 1), row('s', 3)], { messages: 0, at: 1 }),
      ),
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
          store.appendEvents('s', [row('s', 0), row('s', 1, { data: 5 as unknown as string })], {
            messages: 0,
            at: 1,
          }),
        ),
      ).toBe('INVALID_ROW')
      store.appendEvents('s', [row('s', 0)], { messages: 0, at: 1 })
    })
    expect(store.readEvents('s').map((r) => r.seq)).toEqual([0])
  })

  it('refuses rows of another session, unknown sessions and calls outside write()', () => {
    const store = storeWithSession()
    expect(
      codeOf(() =>
        store.write(() => store.appendEvents('s', [row('t', 0)], { messages: 0, at: 1 })),
      ),
    ).toBe('INVALID_ROW')
    expect(
      codeOf(() =>
        store.write(() => store.appendEvents('nope', [row('nope', 0)], { messages: 0, at: 1 })),
      ),
    ).toBe('NO_SUCH_SESSION')
    expect(() => store.appendEvents('s', [row('s', 0)], { messages: 0, at: 1 })).toThrow(
      /inside store.write/,
    )
    expect(store.readEvents('s')).toEqual([])
  })

  it('an empty batch changes nothing', () => {
    const store = storeWithSession()
    store.write(() => store.appendEvents('s', [], { messages: 3, at: 99 }))
    expect(store.getSession('s')).toMatchObject({ nextSeq: 0, messageCount: 0, updatedAt: 10 })
  })
})

describe('commitEvents', () => {
  it('commits a batch on its own, synced or not, and counts it as write would', () => {
    const store = storeWithSession()
    const before = store.counters()
    store.commitEvents('s', [row('s', 0), row('s', 1)], { messages: 1, at: 50 })
    store.commitEvents('s', [row('s', 2)], { messages: 0, at: 60 }, { isSynced: false })
    store.commitEvents('s', [], { messages: 0, at: 70 })
    expect(store.counters()).toEqual({
      commits: before.commits + 2,
      syncedCommits: before.syncedCommits + 1,
    })
    expect(onDisk(store, (db) => db.prepare('SELECT seq FROM events').pluck().all())).toEqual([
      0, 1, 2,
    ])
    expect(store.getSession('s')).toMatchObject({ nextSeq: 3, ownEventCount: 3, messageCount: 1 })
    // The connection is back at synchronous=FULL (2) after the unsynced commit.
    expect(store.pragmas()['synchronous']).toBe(2)
  })

  it('refuses a stale batch and leaves nothing behind', () => {
    const store = storeWithSession()
    store.commitEvents('s', [row('s', 0)], { messages: 0, at: 50 })
    expect(codeOf(() => store.commitEvents('s', [row('s', 0)], { messages: 0, at: 60 }))).toBe(
      'STALE_WRITER',
    )
    expect(
      codeOf(() => store.commitEvents('s', [row('s', 1), row('s', 3)], { messages: 0, at: 60 })),
    ).toBe('STALE_WRITER')
    expect(store.readEvents('s').map((r) => r.seq)).toEqual([0])
    expect(store.getSession('s')?.nextSeq).toBe(1)
  })

  it('inside a write joins it, and is rolled back with it', () => {
    const store = storeWithSession()
    expect(() =>
      store.write(() => {
        store.commitEvents('s', [row('s', 0)], { messages: 0, at: 50 })
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
        store.appendEvents('s', [row('s', 0), row('s', 1)], { messages: 2, at: 5 })
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
      store.appendEvents('s', [row('s', 0)], { messages: 0, at: 1 })
      expect(() =>
        store.write(() => {
          store.appendEvents('s', [row('s', 1)], { messages: 0, at: 2 })
          throw new Error('inner')
        }),
      ).toThrow('inner')
      store.appendEvents('s', [row('s', 1, { type: 'turn/end' })], { messages: 0, at: 3 })
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
      { messages: 0, at: 1 },
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
