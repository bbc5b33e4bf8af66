import Database from 'better-sqlite3'
import { describe, expect, it, vi } from 'vitest'
import { searchTextOf } from '../../../main/core/store/index.js'
import type { SqliteStore } from '../../../main/core/store/index.js'
import { toFtsQuery } from '../../../main/core/store/fts-query.js'
import { freshStore, row } from './helpers.js'

function addSession(store: SqliteStore, id: string, texts: readonly string[]): void {
  store.createSession({
    id,
    parentId: null,
    forkSeq: null,
    projectDir: '/p',
    title: null,
    createdAt: 1,
  })
  const rows = texts.map((text, seq) =>
    row(id, seq, {
      type: 'user/message',
      data: JSON.stringify({ content: text }),
    }),
  )
  store.write(() => store.appendEvents(id, rows))
}

function searchable(): SqliteStore {
  const store = freshStore()
  addSession(store, 'a', [
    'the parser crashes on empty input',
    'unrelated words here',
    'Café au lait',
  ])
  addSession(store, 'b', ['rewrite the PARSER in rust', 'nothing to see'])
  store.createSession({
    id: 'c',
    parentId: null,
    forkSeq: null,
    projectDir: '/p',
    title: null,
    createdAt: 1,
  })
  store.write(() =>
    store.appendEvents('c', [
      row('c', 0, { type: 'turn/start' }),
      row('c', 1, { type: 'user/message', data: '{"content":""}' }),
    ]),
  )
  return store
}

describe('search', () => {
  it('finds hits across sessions with marked snippets', () => {
    const store = searchable()
    const hits = store.search('parser', { limit: 10 })
    expect(hits.map((h) => `${h.sessionId}:${h.seq}:${h.type}`).sort()).toEqual([
      'a:0:user/message',
      'b:0:user/message',
    ])
    const snippets = Object.fromEntries(hits.map((h) => [h.sessionId, h.snippet]))
    expect(snippets['a']).toBe('the «parser» crashes on empty input')
    expect(snippets['b']).toBe('rewrite the «PARSER» in rust')
  })

  it('requires every word, folds case and diacritics, and honours limit and sessionId', () => {
    const store = searchable()
    expect(store.search('parser rust', { limit: 10 }).map((h) => h.sessionId)).toEqual(['b'])
    expect(store.search('cafe', { limit: 10 }).map((h) => h.snippet)).toEqual(['«Café» au lait'])
    expect(store.search('parser', { limit: 1 })).toHaveLength(1)
    expect(store.search('parser', { limit: 10, sessionId: 'a' }).map((h) => h.sessionId)).toEqual([
      'a',
    ])
    expect(store.search('parser', { limit: 0 })).toEqual([])
  })

  it('leaves out trashed sessions', () => {
    const store = searchable()
    store.setDeleted('b', 9)
    expect(store.search('parser', { limit: 10 }).map((h) => h.sessionId)).toEqual(['a'])
  })

  it('treats FTS5 syntax as plain words and never throws on it', () => {
    const store = searchable()
    const queries = [
      'foo" OR "bar',
      'NEAR(',
      'NEAR(parser crashes',
      '"',
      '*',
      'parser*',
      '^parser',
      'text:parser',
      '(parser',
      'parser AND',
      'NOT parser',
      '-parser',
      '\u0000parser',
      '',
      '   ',
      '))) ((( """',
    ]
    for (const query of queries) {
      expect(() => store.search(query, { limit: 5 }), query).not.toThrow()
    }
    // Quoted as words, these still match what they literally say.
    expect(store.search('(parser', { limit: 5 })).toHaveLength(2)
    expect(store.search('parser*', { limit: 5 })).toHaveLength(2)
    // "OR" is a word to find, not an operator: no message contains it.
    expect(store.search('crashes OR rust', { limit: 5 })).toEqual([])
    expect(store.search('', { limit: 5 })).toEqual([])
    expect(store.search('"', { limit: 5 })).toEqual([])
  })
})

describe('toFtsQuery', () => {
  it('quotes every word, doubles quotes and ANDs the phrases', () => {
    expect(toFtsQuery('foo" OR "bar')).toBe('"foo""" AND "OR" AND """bar"')
    expect(toFtsQuery('NEAR(')).toBe('"NEAR("')
    expect(toFtsQuery('  hello \t world ')).toBe('"hello" AND "world"')
  })

  it('drops words without a letter or digit, and gives undefined when none is left', () => {
    expect(toFtsQuery('hello (')).toBe('"hello"')
    expect(toFtsQuery('*** ---')).toBeUndefined()
    expect(toFtsQuery('')).toBeUndefined()
  })
})

describe('searchTextOf', () => {
  it('takes user text, assistant text blocks and tool output or error message', () => {
    expect(searchTextOf('user/message', { content: 'hi', kind: 'input' })).toBe('hi')
    expect(
      searchTextOf('assistant/message', {
        blocks: [
          { type: 'text', text: 'one' },
          { type: 'reasoning', text: 'secret' },
          { type: 'tool-call', callId: 'c', name: 'read', args: '{}' },
          { type: 'text', text: 'two' },
        ],
        finish: 'stop',
      }),
    ).toBe('one\ntwo')
    expect(searchTextOf('tool/result', { callId: 'c', ok: true, output: 'out' })).toBe('out')
    expect(
      searchTextOf('tool/result', { callId: 'c', ok: false, error: { code: 'E', message: 'bad' } }),
    ).toBe('bad')
  })

  it('gives undefined for other types, empty text and unexpected shapes', () => {
    expect(searchTextOf('turn/start', {})).toBeUndefined()
    expect(searchTextOf('session/title', { title: 'x' })).toBeUndefined()
    expect(searchTextOf('user/message', { content: '' })).toBeUndefined()
    expect(
      searchTextOf('assistant/message', { blocks: [{ type: 'reasoning', text: 'r' }] }),
    ).toBeUndefined()
    expect(searchTextOf('assistant/message', { blocks: 'nope' })).toBeUndefined()
    expect(searchTextOf('user/message', null)).toBeUndefined()
    expect(searchTextOf('tool/result', { ok: false })).toBeUndefined()
  })
})

describe('the background index batch', () => {
  it('indexes after the append commits, in a commit of its own without an fsync', async () => {
    const store = freshStore()
    const reader = new Database(store.path, { readonly: true })
    const indexed = () => reader.prepare('SELECT count(*) FROM events_fts').pluck().get() as number
    const before = store.counters()
    addSession(store, 'a', ['the parser crashes'])
    // The append's commit wrote the events only.
    expect(indexed()).toBe(0)
    expect(store.counters()).toEqual({
      commits: before.commits + 2,
      syncedCommits: before.syncedCommits + 2,
    })
    // The batch runs on its own, with no search to ask for it.
    await vi.waitFor(() => expect(indexed()).toBe(1), { timeout: 5000, interval: 20 })
    expect(store.counters()).toEqual({
      commits: before.commits + 3,
      syncedCommits: before.syncedCommits + 2,
    })
    reader.close()
  })

  it('is caught up by a search that comes before it', () => {
    const store = freshStore()
    addSession(store, 'a', ['the parser crashes'])
    expect(store.search('parser', { limit: 5 }).map((hit) => hit.seq)).toEqual([0])
  })
})
