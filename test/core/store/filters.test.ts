import { describe, expect, it } from 'vitest'
import type { SessionRow, SqliteStore } from '../../../main/core/store/index.js'
import { freshStore, row, seedSession } from './helpers.js'

/** Sessions in two projects, one of them trashed. */
function twoProjects(): SqliteStore {
  const store = freshStore()
  const add = (id: string, projectDir: string, createdAt: number) =>
    store.createSession({ id, parentId: null, forkSeq: null, projectDir, title: null, createdAt })
  add('a1', '/a', 1)
  add('b1', '/b', 2)
  add('a2', '/a', 3)
  add('a3', '/a', 4)
  add('b2', '/b', 5)
  store.setDeleted('a3', 6)
  return store
}

const ids = (rows: readonly SessionRow[]) => rows.map((r) => r.id)

describe('session listings filtered by project', () => {
  it('listSessions pages within one project, trash left out unless asked', () => {
    const store = twoProjects()
    const first = store.listSessions({ limit: 1, projectDir: '/a' })
    expect(ids(first.items)).toEqual(['a2'])
    const second = store.listSessions({ cursor: first.nextCursor, limit: 1, projectDir: '/a' })
    expect(ids(second.items)).toEqual(['a1'])
    expect(second.nextCursor).toBeNull()
    expect(
      ids(store.listSessions({ limit: 10, projectDir: '/a', includeDeleted: true }).items),
    ).toEqual(['a3', 'a2', 'a1'])
    expect(store.listSessions({ limit: 10, projectDir: '/none' }).items).toEqual([])
  })

  it('listTree filters by project and includes the trash when asked', () => {
    const store = twoProjects()
    expect(ids(store.listTree())).toEqual(['a1', 'b1', 'a2', 'b2'])
    expect(ids(store.listTree({ projectDir: '/b' }))).toEqual(['b1', 'b2'])
    expect(ids(store.listTree({ projectDir: '/a', includeDeleted: true }))).toEqual([
      'a1',
      'a2',
      'a3',
    ])
  })
})

describe('countEvents', () => {
  it('counts a history by seq range and type across the fork chain', () => {
    const store = freshStore()
    seedSession(store, 'root', 10)
    store.write(() =>
      store.appendEvents('root', [row('root', 10, { type: 'error' })], { messages: 0, at: 3_000 }),
    )
    seedSession(store, 'child', 3, { parentId: 'root', forkSeq: 6 })
    expect(store.countEvents('root')).toBe(11)
    expect(store.countEvents('child')).toBe(9)
    expect(store.countEvents('child', { fromSeq: 4, toSeq: 8 })).toBe(4)
    expect(store.countEvents('child', { types: ['turn/start'] })).toBe(9)
    expect(store.countEvents('child', { types: ['error'] })).toBe(0)
    expect(store.countEvents('root', { types: ['error', 'nope'] })).toBe(1)
    expect(store.countEvents('root', { types: [] })).toBe(0)
    expect(() => store.countEvents('missing')).toThrow(/no session/)
  })
})
