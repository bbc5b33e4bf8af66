import { describe, expect, it } from 'vitest'
import type { SessionRow, SqliteStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore } from './helpers.js'

/** 25 sessions s00..s24 with distinct updated_at (s24 newest); s03 and s17 trashed. */
function manySessions(): SqliteStore {
  const store = freshStore()
  for (let i = 0; i < 25; i++) {
    const id = `s${String(i).padStart(2, '0')}`
    store.createSession({
      id,
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: null,
      createdAt: 1_000 + i * 10,
    })
  }
  store.setDeleted('s03', 5)
  store.setDeleted('s17', 5)
  return store
}

function allPages(store: SqliteStore, limit: number, includeDeleted?: boolean): SessionRow[][] {
  const pages: SessionRow[][] = []
  let cursor: string | null = null
  do {
    const page = store.listSessions({
      cursor,
      limit,
      ...(includeDeleted ? { includeDeleted } : {}),
    })
    pages.push([...page.items])
    cursor = page.nextCursor
    expect(pages.length).toBeLessThan(10)
  } while (cursor !== null)
  return pages
}

describe('listSessions', () => {
  it('pages newest first by 10 with no duplicates or gaps, trashed sessions left out', () => {
    const store = manySessions()
    const pages = allPages(store, 10)
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3])
    const ids = pages.flat().map((s) => s.id)
    const expected = Array.from(
      { length: 25 },
      (_, i) => `s${String(24 - i).padStart(2, '0')}`,
    ).filter((id) => id !== 's03' && id !== 's17')
    expect(ids).toEqual(expected)
  })

  it('includes trashed sessions when asked', () => {
    const store = manySessions()
    const ids = allPages(store, 10, true)
      .flat()
      .map((s) => s.id)
    expect(ids).toHaveLength(25)
    expect(new Set(ids).size).toBe(25)
    expect(ids).toContain('s17')
  })

  it('breaks ties of updated_at by id, and an exact last page has no next cursor', () => {
    const store = freshStore()
    for (const id of ['b', 'a', 'c', 'd']) {
      store.createSession({
        id,
        parentId: null,
        forkSeq: null,
        projectDir: '/p',
        title: null,
        createdAt: 7,
      })
    }
    const first = store.listSessions({ limit: 2 })
    expect(first.items.map((s) => s.id)).toEqual(['d', 'c'])
    const second = store.listSessions({ cursor: first.nextCursor, limit: 2 })
    expect(second.items.map((s) => s.id)).toEqual(['b', 'a'])
    expect(second.nextCursor).toBeNull()
  })

  it('moves a session to the front when its activity changes', () => {
    const store = manySessions()
    store.setTitle('s00', 'renamed', 99_999)
    expect(store.listSessions({ limit: 1 }).items[0]).toMatchObject({
      id: 's00',
      title: 'renamed',
      updatedAt: 99_999,
    })
  })

  it('refuses a cursor it did not produce and a bad limit', () => {
    const store = manySessions()
    expect(codeOf(() => store.listSessions({ cursor: 'not a cursor', limit: 5 }))).toBe(
      'INVALID_CURSOR',
    )
    const forged = Buffer.from(JSON.stringify({ a: 1 })).toString('base64url')
    expect(codeOf(() => store.listSessions({ cursor: forged, limit: 5 }))).toBe('INVALID_CURSOR')
    expect(() => store.listSessions({ limit: 0 })).toThrow(RangeError)
  })
})

describe('sessions', () => {
  it('getSession maps every column, NULLs as null', () => {
    const store = freshStore()
    store.createSession({
      id: 'r',
      parentId: null,
      forkSeq: null,
      projectDir: '/work',
      title: null,
      createdAt: 42,
    })
    expect(store.getSession('r')).toEqual({
      id: 'r',
      parentId: null,
      forkSeq: null,
      title: null,
      projectDir: '/work',
      createdAt: 42,
      updatedAt: 42,
      ownEventCount: 0,
      nextSeq: 0,
      messageCount: 0,
      deletedAt: null,
      spawnedBy: null,
    })
    expect(store.getSession('missing')).toBeUndefined()
  })

  it('listTree has every live session with its parent and fork point', () => {
    const store = freshStore()
    store.createSession({
      id: 'root',
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: null,
      createdAt: 1,
    })
    store.createSession({
      id: 'fork',
      parentId: 'root',
      forkSeq: 0,
      projectDir: '/p',
      title: 'f',
      createdAt: 2,
    })
    store.createSession({
      id: 'gone',
      parentId: 'root',
      forkSeq: 0,
      projectDir: '/p',
      title: null,
      createdAt: 3,
    })
    store.setDeleted('gone', 4)
    expect(store.listTree().map((s) => [s.id, s.parentId, s.forkSeq])).toEqual([
      ['root', null, null],
      ['fork', 'root', 0],
    ])
    store.setDeleted('gone', null)
    expect(store.listTree()).toHaveLength(3)
  })

  it('setTitle and setDeleted refuse unknown sessions', () => {
    const store = freshStore()
    expect(codeOf(() => store.setTitle('missing', 't', 1))).toBe('NO_SUCH_SESSION')
    expect(codeOf(() => store.setDeleted('missing', 1))).toBe('NO_SUCH_SESSION')
  })
})

describe('subagent lineage', () => {
  it('records the spawning session and call, lists children per call, and refuses an unknown spawner', () => {
    const store = freshStore()
    const base = { parentId: null, forkSeq: null, projectDir: '/p', title: null }
    store.createSession({ ...base, id: 'parent', createdAt: 1 })
    store.createSession({
      ...base,
      id: 'a',
      createdAt: 2,
      spawnedBy: { sessionId: 'parent', callId: 'c1' },
    })
    store.createSession({
      ...base,
      id: 'b',
      createdAt: 3,
      spawnedBy: { sessionId: 'parent', callId: 'c2' },
    })
    expect(store.getSession('a')).toMatchObject({
      parentId: null,
      forkSeq: null,
      spawnedBy: { sessionId: 'parent', callId: 'c1' },
    })
    expect(store.getSession('parent')?.spawnedBy).toBeNull()
    expect(store.listSpawned('parent').map((row) => row.id)).toEqual(['a', 'b'])
    expect(store.listSpawned('parent', 'c2').map((row) => row.id)).toEqual(['b'])
    expect(store.listSpawned('a')).toEqual([])
    expect(
      codeOf(() =>
        store.createSession({
          ...base,
          id: 'x',
          createdAt: 4,
          spawnedBy: { sessionId: 'nobody', callId: 'c' },
        }),
      ),
    ).toBe('NO_SUCH_SESSION')
  })
})
