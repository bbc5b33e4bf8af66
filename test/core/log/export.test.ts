import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { forkSession, Session } from '../../../main/core/log/index.js'
import { exportSession, ImportError, importSession } from '../../../main/core/log/export.js'
import type { ExportHeader } from '../../../main/core/log/export.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from './helpers.js'
import type { TempHome } from './helpers.js'

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

let now = 1_700_000_000_000
const clock = () => (now += 7)

/**
 * A root with two completed turns (tool calls, one failing) and a checkpoint over turn 1; a fork
 * cut inside turn 2 between `tool/call` and `tool/result`; the child with queued input, its own
 * turn with a tool call, and a second checkpoint that swallows the first.
 */
function forkedSession(): { rootId: string; childId: string; forkSeq: number } {
  const root = Session.create(store, {
    projectDir: '/home/dev/project',
    title: 'Fix the build',
    clock,
  })
  const turn1 = root.length
  appendTurn(root, 'read two files', [
    { calls: ['a', 'b'], reply: 'reading' },
    { reply: 'both read' },
  ])
  const visible = root
    .slice(turn1)
    .filter((e) => e.type === 'user/message' || e.type === 'assistant/message')
  root.append('compaction/checkpoint', {
    fromSeq: visible[0]?.seq ?? -1,
    toSeq: visible.at(-1)?.seq ?? -1,
    summary: 'The user asked to read a and b; both were read.',
    tokensBefore: 900,
    tokensAfter: 60,
  })
  const turn2 = root.length
  appendTurn(root, 'now run it', [{ calls: ['c'], reply: 'running' }, { reply: 'ran' }])
  const resultC = root.slice(turn2).find((e) => e.type === 'tool/result')
  root.close()

  const forkSeq = resultC?.seq ?? -1
  const childId = forkSession(store, root.id, forkSeq, { clock })
  const child = Session.open(store, childId, { mode: 'write', clock })
  const checkpoint1 = child.slice().find((e) => e.type === 'compaction/checkpoint')
  const unknown = child.slice(forkSeq).find((e) => e.type === 'tool/result')
  expect(unknown?.data).toMatchObject({ callId: 'c', error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
  child.append('compaction/checkpoint', {
    fromSeq: checkpoint1?.seq ?? -1,
    toSeq: unknown?.seq ?? -1,
    summary: 'Files read; running was interrupted by a fork, outcome unknown.',
    tokensBefore: 300,
    tokensAfter: 40,
  })
  child.append('inbox/queued', { requestId: 'r1', message: 'try again', wake: true })
  appendTurn(child, 'try again', [{ calls: ['d'], reply: 'retrying' }, { reply: 'it works' }])
  child.close()
  return { rootId: root.id, childId, forkSeq }
}

function lineError(fn: () => unknown): ImportError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError)
    return error as ImportError
  }
  throw new Error('expected the import to fail')
}

const eventRowCount = (dbPath: string) => {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }
  } finally {
    db.close()
  }
}

describe('export', () => {
  it('writes a header with the flattened ancestry, then every event of the history from seq 0', () => {
    const { rootId, childId, forkSeq } = forkedSession()
    const lines = exportSession(store, childId)
    const header = JSON.parse(lines[0] ?? '') as ExportHeader
    const length = Session.open(store, childId, { mode: 'read' }).length
    expect(header).toMatchObject({
      format: 'bridle-session',
      version: 1,
      session: { id: childId, title: null, projectDir: '/home/dev/project' },
      ancestry: [
        { sessionId: rootId, fromSeq: 0, toSeq: forkSeq },
        { sessionId: childId, fromSeq: forkSeq, toSeq: length },
      ],
    })
    expect(lines).toHaveLength(length + 1)
    lines.slice(1).forEach((line, seq) => {
      expect(Object.keys(JSON.parse(line) as object)).toEqual([
        'seq',
        'type',
        'v',
        'turn',
        'step',
        'at',
        'data',
      ])
      expect(JSON.parse(line)).toMatchObject({ seq, v: 1 })
    })
  })
})

describe('import', () => {
  it('round-trips a forked, compacted session: same events, same derived messages', () => {
    const { childId } = forkedSession()
    const lines = exportSession(store, childId)
    const importedId = importSession(store, lines, { clock })
    expect(importedId).not.toBe(childId)

    const original = Session.open(store, childId, { mode: 'read' })
    const imported = Session.open(store, importedId, { mode: 'read' })
    expect(imported.slice()).toEqual(original.slice())
    expect(imported.deriveMessages()).toEqual(original.deriveMessages())
    expect(
      original.deriveMessages().filter((m) => m.role === 'user' && m.kind === 'summary'),
    ).toHaveLength(1)

    const row = store.getSession(importedId)
    expect(row).toMatchObject({
      parentId: null,
      forkSeq: null,
      // The fork's own title (none yet): a fork does not copy its parent's.
      title: null,
      nextSeq: original.length,
    })
    expect(row?.ownEventCount).toBe(original.length)
    expect(store.segments(importedId)).toEqual([
      { sessionId: importedId, fromSeq: 0, toSeq: Infinity },
    ])
    // The import exports to the same events; only the header (id, ancestry, times) differs.
    expect(exportSession(store, importedId).slice(1)).toEqual(lines.slice(1))
    // It is a live session: it can be opened for writing and continued.
    const continued = Session.open(store, importedId, { mode: 'write' })
    expect(continued.length).toBe(original.length)
    appendTurn(continued, 'more')
    continued.close()
  })

  it('flattens forks of forks, above and below the parent’s own fork point', () => {
    const { rootId, childId, forkSeq } = forkedSession()
    const childLength = Session.open(store, childId, { mode: 'read' }).length
    const above = forkSession(store, childId, childLength - 3, { clock })
    const below = forkSession(store, childId, forkSeq - 4, { clock })
    const ancestry = (id: string) =>
      (JSON.parse(exportSession(store, id)[0] ?? '') as ExportHeader).ancestry
    expect(ancestry(above)).toEqual([
      { sessionId: rootId, fromSeq: 0, toSeq: forkSeq },
      { sessionId: childId, fromSeq: forkSeq, toSeq: childLength - 3 },
      { sessionId: above, fromSeq: childLength - 3, toSeq: expect.any(Number) },
    ])
    expect(ancestry(below)).toEqual([
      { sessionId: rootId, fromSeq: 0, toSeq: forkSeq - 4 },
      { sessionId: below, fromSeq: forkSeq - 4, toSeq: expect.any(Number) },
    ])
    for (const id of [above, below]) {
      const imported = importSession(store, exportSession(store, id))
      const original = Session.open(store, id, { mode: 'read' })
      expect(Session.open(store, imported, { mode: 'read' }).slice()).toEqual(original.slice())
    }
  })

  describe('refuses a bad file with the line number and leaves nothing behind', () => {
    const cases: {
      name: string
      line: number
      pattern: RegExp
      edit: (lines: string[]) => void
    }[] = [
      {
        name: 'a line that is not JSON',
        line: 3,
        pattern: /not JSON/,
        edit: (lines) => void (lines[2] = '{"seq": 1, "type": "session/title",'),
      },
      {
        name: 'an unknown event type',
        line: 5,
        pattern: /unknown event type "bogus\/thing"/,
        edit: (lines) =>
          void (lines[4] = JSON.stringify({ ...JSON.parse(lines[4] ?? ''), type: 'bogus/thing' })),
      },
      {
        name: 'a seq gap',
        line: 6,
        pattern: /expected seq 4/,
        edit: (lines) => void lines.splice(5, 1),
      },
      {
        name: 'a tool/result without its call',
        line: 0, // set below: the first tool/result
        pattern: /tool\/result ghost has no call/,
        edit: (lines) => {
          const at = lines.findIndex((l) => l.includes('"type":"tool/result"'))
          const event = JSON.parse(lines[at] ?? '') as { data: { callId: string } }
          event.data.callId = 'ghost'
          lines[at] = JSON.stringify(event)
        },
      },
      {
        name: 'a wrong turn number',
        line: 0,
        pattern: /says turn 7 step 0, but the log places it in turn 1 step 0/,
        edit: (lines) => {
          const at = lines.findIndex((l) => l.includes('"type":"turn/start"'))
          lines[at] = JSON.stringify({ ...JSON.parse(lines[at] ?? ''), turn: 7 })
        },
      },
      {
        name: 'a request/start pointing at something other than a request/header',
        line: 0,
        pattern: /is not a request\/header/,
        edit: (lines) => {
          const at = lines.findIndex((l) => l.includes('"type":"request/start"'))
          const event = JSON.parse(lines[at] ?? '') as { data: { headerSeq: number } }
          event.data.headerSeq = 0
          lines[at] = JSON.stringify(event)
        },
      },
      {
        name: 'a truncated file',
        line: 1,
        pattern: /ancestry covers \d+ events but the file has \d+/,
        edit: (lines) => void lines.splice(-3),
      },
      {
        name: 'a foreign header',
        line: 1,
        pattern: /not a bridle-session v1 header: format/,
        edit: (lines) => void (lines[0] = JSON.stringify({ format: 'other', version: 1 })),
      },
    ]
    for (const bad of cases) {
      it(bad.name, () => {
        const { childId } = forkedSession()
        const lines = exportSession(store, childId)
        const original = [...lines]
        bad.edit(lines)
        const expectedLine =
          bad.line || lines.findIndex((line, i) => line !== original[i] || i >= original.length) + 1
        const sessionsBefore = store.listTree().map((s) => s.id)
        const rowsBefore = eventRowCount(home.dbPath)

        const error = lineError(() => importSession(store, lines, { id: 'doomed-import' }))
        expect(error.line).toBe(expectedLine)
        expect(error.message).toMatch(new RegExp(`^line ${expectedLine}: `))
        expect(error.message).toMatch(bad.pattern)

        expect(store.listTree().map((s) => s.id)).toEqual(sessionsBefore)
        expect(store.getSession('doomed-import')).toBeUndefined()
        expect(eventRowCount(home.dbPath)).toEqual(rowsBefore)
        // The failed import released everything: the same id imports fine from the good file.
        expect(importSession(store, original, { id: 'doomed-import' })).toBe('doomed-import')
      })
    }
  })
})

describe('bridle export / import (the real CLI)', () => {
  const repoRoot = join(import.meta.dirname, '..', '..', '..')
  const tsx = join(repoRoot, 'node_modules/tsx/dist/cli.mjs')
  const bridle = (...args: string[]) =>
    spawnSync(process.execPath, [tsx, 'main/cli/index.ts', ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, BRIDLE_HOME: '' },
    })

  it('exports to a file or stdout and imports into another data folder', () => {
    const { childId } = forkedSession()
    const messages = Session.open(store, childId, { mode: 'read' }).deriveMessages()
    store.close()
    const other = mkdtempSync(join(tmpdir(), 'bridle-import-'))
    try {
      const out = join(home.dir, 'exported.jsonl')
      const exported = bridle('export', childId, '--home', home.dir, '--out', out)
      expect(exported.stderr).toBe('')
      expect(exported.status).toBe(0)
      expect(exported.stdout).toBe('')
      const file = readFileSync(out, 'utf8')
      expect(readdirSync(home.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
      const toStdout = bridle('export', childId, '--home', home.dir)
      expect(toStdout.status).toBe(0)
      expect(toStdout.stdout).toBe(file)

      const imported = bridle('import', out, '--home', other)
      expect(imported.stderr).toContain('imported Bridle export session into')
      expect(imported.status).toBe(0)
      const id = imported.stdout.trim()
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      const otherStore = openStore(databasePath(other))
      try {
        expect(Session.open(otherStore, id, { mode: 'read' }).deriveMessages()).toEqual(messages)
      } finally {
        otherStore.close()
      }

      const missing = bridle('export', 'no-such-session', '--home', home.dir)
      expect(missing.status).toBe(1)
      expect(missing.stderr).toMatch(/^bridle: there is no session no-such-session/)
      const broken = join(home.dir, 'broken.jsonl')
      rmSync(broken, { force: true })
      const lines = file.split('\n')
      lines[2] = 'garbage'
      writeFileSync(broken, lines.join('\n'))
      const refused = bridle('import', broken, '--home', other)
      expect(refused.status).toBe(1)
      expect(refused.stderr).toMatch(/^bridle: line 3: not JSON/)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  }, 30_000) // five CLI runs, each starting tsx
})
