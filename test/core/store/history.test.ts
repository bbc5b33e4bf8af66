import { describe, expect, it } from 'vitest'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { codeOf, freshStore, row } from './helpers.js'

const TYPES = ['user/message', 'assistant/message', 'tool/result'] as const

/** Rows [from, from + count) of `id`, with types cycling and turn = seq / 3 + 1. */
function appendRows(store: SqliteStore, id: string, from: number, count: number): void {
  const rows = Array.from({ length: count }, (_, i) => {
    const seq = from + i
    return row(id, seq, {
      type: TYPES[seq % 3] ?? 'turn/start',
      turn: Math.floor(seq / 3) + 1,
      step: seq % 2,
      data: JSON.stringify({ origin: id }),
    })
  })
  store.write(() => store.appendEvents(id, rows))
}

function create(
  store: SqliteStore,
  id: string,
  fork?: { parentId: string; forkSeq: number },
): void {
  store.createSession({
    id,
    parentId: fork?.parentId ?? null,
    forkSeq: fork?.forkSeq ?? null,
    projectDir: '/p',
    title: null,
    createdAt: 1,
  })
}

/** root: 10 events; child forked at 6 with 4 own; grandchild forked at 8 with 3 own. */
function forkChain(): SqliteStore {
  const store = freshStore()
  create(store, 'root')
  appendRows(store, 'root', 0, 10)
  create(store, 'child', { parentId: 'root', forkSeq: 6 })
  appendRows(store, 'child', 6, 4)
  create(store, 'grand', { parentId: 'child', forkSeq: 8 })
  appendRows(store, 'grand', 8, 3)
  return store
}

const origins = (rows: readonly { seq: number; sessionId: string }[]) =>
  rows.map((r) => `${r.seq}:${r.sessionId}`)

describe('fork chains', () => {
  it('segments walk the parent links to the root', () => {
    const store = forkChain()
    expect(store.segments('grand')).toEqual([
      { sessionId: 'root', fromSeq: 0, toSeq: 6 },
      { sessionId: 'child', fromSeq: 6, toSeq: 8 },
      { sessionId: 'grand', fromSeq: 8, toSeq: Infinity },
    ])
    expect(store.segments('root')).toEqual([{ sessionId: 'root', fromSeq: 0, toSeq: Infinity }])
    expect(codeOf(() => store.segments('missing'))).toBe('NO_SUCH_SESSION')
  })

  it('readEvents returns the whole history, each seq from the session that stores it', () => {
    const store = forkChain()
    const rows = store.readEvents('grand')
    expect(rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(origins(rows)).toEqual([
      '0:root',
      '1:root',
      '2:root',
      '3:root',
      '4:root',
      '5:root',
      '6:child',
      '7:child',
      '8:grand',
      '9:grand',
      '10:grand',
    ])
    expect(rows.every((r) => r.data === JSON.stringify({ origin: r.sessionId }))).toBe(true)
    expect(store.readEvents('child').map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(store.getSession('grand')).toMatchObject({ nextSeq: 11, ownEventCount: 3, forkSeq: 8 })
  })

  it('readEvents filters by range, type, turn, step and limit across segments', () => {
    const store = forkChain()
    expect(origins(store.readEvents('grand', { fromSeq: 4, toSeq: 9 }))).toEqual([
      '4:root',
      '5:root',
      '6:child',
      '7:child',
      '8:grand',
    ])
    expect(origins(store.readEvents('grand', { types: ['user/message'] }))).toEqual([
      '0:root',
      '3:root',
      '6:child',
      '9:grand',
    ])
    expect(
      origins(store.readEvents('grand', { types: ['user/message', 'tool/result'], fromSeq: 3 })),
    ).toEqual(['3:root', '5:root', '6:child', '8:grand', '9:grand'])
    expect(origins(store.readEvents('grand', { turn: 3 }))).toEqual([
      '6:child',
      '7:child',
      '8:grand',
    ])
    expect(origins(store.readEvents('grand', { turn: 3, step: 0 }))).toEqual(['6:child', '8:grand'])
    expect(origins(store.readEvents('grand', { limit: 7 }))).toEqual([
      '0:root',
      '1:root',
      '2:root',
      '3:root',
      '4:root',
      '5:root',
      '6:child',
    ])
    expect(origins(store.readEvents('grand', { fromSeq: 5, limit: 2 }))).toEqual([
      '5:root',
      '6:child',
    ])
    expect(store.readEvents('grand', { types: [] })).toEqual([])
    expect(store.readEvents('grand', { limit: 0 })).toEqual([])
    expect(store.readEvents('grand', { fromSeq: 11 })).toEqual([])
    expect(() => store.readEvents('grand', { fromSeq: -1 })).toThrow(RangeError)
  })

  it('readOwnEvents never includes ancestors', () => {
    const store = forkChain()
    expect(origins(store.readOwnEvents('child'))).toEqual([
      '6:child',
      '7:child',
      '8:child',
      '9:child',
    ])
    expect(origins(store.readOwnEvents('grand', { types: ['tool/result'] }))).toEqual(['8:grand'])
    expect(codeOf(() => store.readOwnEvents('missing'))).toBe('NO_SUCH_SESSION')
  })

  it('lastSeqOfType searches newest first across the segments', () => {
    const store = forkChain()
    expect(store.lastSeqOfType('grand', 'user/message', 11)).toBe(9)
    expect(store.lastSeqOfType('grand', 'user/message', 9)).toBe(6)
    expect(store.lastSeqOfType('grand', 'user/message', 6)).toBe(3)
    expect(store.lastSeqOfType('grand', 'assistant/message', 8)).toBe(7)
    // seq 7 of root is not in grand's history (child's 7 is); root's own tail is ignored.
    expect(store.lastSeqOfType('grand', 'tool/result', 8)).toBe(5)
    expect(store.lastSeqOfType('grand', 'user/message', 0)).toBeUndefined()
    expect(store.lastSeqOfType('grand', 'turn/end', 11)).toBeUndefined()
  })

  it('a fork below its parent’s own fork point skips the parent entirely', () => {
    const store = forkChain()
    create(store, 'early', { parentId: 'grand', forkSeq: 4 })
    appendRows(store, 'early', 4, 1)
    expect(store.segments('early')).toEqual([
      { sessionId: 'root', fromSeq: 0, toSeq: 4 },
      { sessionId: 'early', fromSeq: 4, toSeq: Infinity },
    ])
    expect(origins(store.readEvents('early'))).toEqual([
      '0:root',
      '1:root',
      '2:root',
      '3:root',
      '4:early',
    ])
  })

  it('a fork at 0 has only its own rows; a fork at the tail has all of the parent’s', () => {
    const store = forkChain()
    create(store, 'blank', { parentId: 'root', forkSeq: 0 })
    expect(store.segments('blank')).toEqual([{ sessionId: 'blank', fromSeq: 0, toSeq: Infinity }])
    create(store, 'tail', { parentId: 'grand', forkSeq: 11 })
    expect(store.readEvents('tail')).toHaveLength(11)
    expect(store.getSession('tail')?.nextSeq).toBe(11)
  })

  it('createSession validates the parent and the fork point', () => {
    const store = forkChain()
    expect(codeOf(() => create(store, 'x', { parentId: 'missing', forkSeq: 0 }))).toBe(
      'NO_SUCH_SESSION',
    )
    expect(codeOf(() => create(store, 'x', { parentId: 'root', forkSeq: 11 }))).toBe('INVALID_ROW')
    expect(codeOf(() => create(store, 'x', { parentId: 'root', forkSeq: -1 }))).toBe('INVALID_ROW')
    expect(codeOf(() => create(store, 'root'))).toBe('INVALID_ROW')
    expect(
      codeOf(() =>
        store.createSession({
          id: 'x',
          parentId: null,
          forkSeq: 3,
          projectDir: '/p',
          title: null,
          createdAt: 1,
        }),
      ),
    ).toBe('INVALID_ROW')
    expect(store.getSession('x')).toBeUndefined()
  })
})
