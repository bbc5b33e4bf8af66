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
    store.write(() => store.appendEvents('root', [row('root', 10, { type: 'error' })]))
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

describe('readEvents with a long type list', () => {
  /** 60 events cycling through ten types, in a parent and a fork of it. */
  function mixed(): SqliteStore {
    const store = freshStore()
    const types = Array.from({ length: 10 }, (_, i) => `kind/${i}`)
    const rows = (id: string, from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        row(id, from + i, { type: types[(from + i) % types.length] ?? 'kind/0' }),
      )
    store.write(() => {
      store.createSession({
        id: 'root',
        parentId: null,
        forkSeq: null,
        projectDir: '/project',
        title: null,
        createdAt: 1_000,
      })
      store.appendEvents('root', rows('root', 0, 40))
    })
    store.write(() => {
      store.createSession({
        id: 'fork',
        parentId: 'root',
        forkSeq: 30,
        projectDir: '/project',
        title: null,
        createdAt: 3_000,
      })
      store.appendEvents('fork', rows('fork', 30, 30))
    })
    return store
  }

  it('pages "all but a few types" in seq order across the fork, like a short list does', () => {
    const store = mixed()
    // Eight of ten types takes the seq scan; two takes the type index. Both must agree.
    const many = Array.from({ length: 8 }, (_, i) => `kind/${i}`)
    const expected = store
      .readEvents('fork')
      .filter((event) => many.includes(event.type))
      .map((event) => event.seq)
    const paged: number[] = []
    for (let from = 0; ;) {
      const page = store.readEvents('fork', { fromSeq: from, types: many, limit: 7 })
      paged.push(...page.map((event) => event.seq))
      if (page.length < 7) break
      from = (page.at(-1)?.seq ?? 0) + 1
    }
    expect(paged).toEqual(expected)
    expect(expected).toHaveLength(48)
    expect(store.countEvents('fork', { types: many })).toBe(48)
    const few = ['kind/8', 'kind/9']
    expect(store.readEvents('fork', { types: few }).map((event) => event.seq)).toEqual(
      store
        .readEvents('fork')
        .filter((event) => few.includes(event.type))
        .map((event) => event.seq),
    )
    expect(store.countEvents('fork', { types: few, fromSeq: 20 })).toBe(8)
  })
})
