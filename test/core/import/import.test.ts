import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  chooseProjectDir,
  IMPORT_NO_RESULT,
  IMPORT_SKIPPED,
  IMPORT_UNMAPPED,
  importRead,
  readImport,
  scanSessions,
} from '../../../main/core/import/index.js'
import type { ReadImport } from '../../../main/core/import/index.js'
import { Chain } from '../../../main/core/import/transcript.js'
import { ImportError } from '../../../main/core/log/export.js'
import { Session } from '../../../main/core/log/index.js'
import type { Store } from '../../../main/core/store/index.js'
import type { LogEvent } from '../../../protocol/events.js'
import { tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'import')
const fixture = (name: string) => readFileSync(join(fixtures, name))

let home: TempHome
let store: Store
let project: string

beforeEach(() => {
  home = tempHome()
  store = home.open()
  project = mkdtempSync(join(tmpdir(), 'bridle-import-project-'))
})

afterEach(async () => {
  await home.cleanup()
  rmSync(project, { recursive: true, force: true })
})

let now = 1_800_000_000_000
const clock = () => (now += 5)

function importFixture(name: string) {
  const read = readImport(fixture(name))
  return { read, ...importRead(store, read, { projectDir: project, file: name, clock }) }
}

function eventsOf(id: string): LogEvent[] {
  const session = Session.open(store, id, { mode: 'read' })
  try {
    return session.slice()
  } finally {
    session.close()
  }
}

const ofType = <T extends LogEvent['type']>(events: LogEvent[], type: T) =>
  events.filter((e): e is Extract<LogEvent, { type: T }> => e.type === type)

/** What each sample file holds (test/fixtures/import/README.md says how each was made). */
const SAMPLES = [
  {
    file: 'claude-code.jsonl',
    source: 'claude-code',
    prompts: ['Create notes.txt saying hello', 'What does notes.txt say?'],
    calls: ['Write', 'Bash'],
    output: 'hello',
    reasoning: 'I should create the file.',
  },
  {
    file: 'codex-rollout.jsonl',
    source: 'codex',
    prompts: ['Create notes.txt saying hello', 'What does notes.txt say?'],
    calls: ['exec_command', 'exec_command'],
    output: 'Output:\nhello',
    reasoning: 'I should create the file with a shell command.',
  },
  {
    file: 'pi-session.jsonl',
    source: 'pi',
    prompts: ['Create notes.txt saying hello', 'Leave notes.txt alone and say goodbye'],
    calls: ['write'],
    output: 'Successfully wrote 6 bytes to notes.txt',
    reasoning: 'I should create the file.',
  },
  {
    file: 'deepseek-harness.jsonl',
    source: 'deepseek-harness',
    prompts: ['What does notes.txt say?'],
    calls: ['bash'],
    output: 'hello\n',
    reasoning: 'I should read the file.',
  },
] as const

describe('import of other tools’ sessions', () => {
  it.each(SAMPLES)(
    '$source: the prompts, calls (their own names), results and reasoning, marked as imported',
    ({ file, source, prompts, calls, output, reasoning }) => {
      const { read, sessionId, format } = importFixture(file)
      expect(format).toBe(source)
      expect(read.recordedProjectDir).toBe('/home/dev/demo')
      const events = eventsOf(sessionId)
      expect(events[0]).toMatchObject({ type: 'session/created', data: { projectDir: project } })
      expect(events[1]).toMatchObject({ type: 'session/imported', data: { source, file } })
      const said = ofType(events, 'user/message').filter((e) => e.data.kind === 'input')
      expect(said.map((e) => e.data.content)).toEqual(prompts)
      expect(ofType(events, 'tool/call').map((e) => e.data.name)).toEqual(calls)
      const results = ofType(events, 'tool/result')
      expect(results.length).toBe(calls.length)
      expect(results.some((r) => r.data.ok && r.data.output.includes(output))).toBe(true)
      const blocks = ofType(events, 'assistant/message').flatMap((e) => e.data.blocks)
      expect(blocks).toContainEqual(expect.objectContaining({ type: 'reasoning', text: reasoning }))
      // Every turn the import opened is closed: the log's invariants hold when it is reopened.
      expect(ofType(events, 'turn/start').length).toBe(ofType(events, 'turn/end').length)
      const reopened = Session.open(store, sessionId)
      expect(reopened.length).toBe(events.length) // write mode: nothing left to repair
      reopened.close()
    },
  )

  it('pi: the other branch of the tree becomes a fork of the root at the branch point', () => {
    const { sessionId, forks } = importFixture('pi-session.jsonl')
    expect(forks).toHaveLength(1)
    const fork = store.getSession(forks[0] ?? '')
    expect(fork?.parentId).toBe(sessionId)
    const root = eventsOf(sessionId)
    const branch = eventsOf(forks[0] ?? '')
    // The fork shares turn 1 (up to its turn/end) and then has its own turn 2.
    const turnEnd = root.findIndex((e) => e.type === 'turn/end')
    expect(fork?.forkSeq).toBe(turnEnd + 1)
    const prompts = (events: LogEvent[]) =>
      ofType(events, 'user/message').map((e) => e.data.content)
    expect(prompts(branch)).toEqual(['Create notes.txt saying hello', 'What does notes.txt say?'])
    expect(prompts(root)).toEqual([
      'Create notes.txt saying hello',
      'Leave notes.txt alone and say goodbye',
    ])
    expect(ofType(branch, 'tool/call').map((e) => e.data.name)).toEqual(['write', 'bash'])
    expect(ofType(branch, 'recovery/repaired')).toEqual([]) // a clean cut between turns
  })

  it('keeps what it cannot map as notices, and counts what carries nothing', () => {
    const { sessionId } = importFixture('deepseek-harness.jsonl')
    const notices = ofType(eventsOf(sessionId), 'notice')
    expect(notices).toContainEqual(
      expect.objectContaining({
        data: expect.objectContaining({
          code: IMPORT_UNMAPPED,
          message: expect.stringContaining('todo/write'),
        }),
      }),
    )
    const skipped = notices.find((n) => n.data.code === IMPORT_SKIPPED)
    expect(skipped?.data.message).toMatch(/2 step\/start/)
  })

  it('gives a call the source never answered a result saying so', () => {
    const chain = new Chain()
    chain.add({ kind: 'user', role: 'input', text: 'run it' })
    chain.add({
      kind: 'assistant',
      blocks: [{ type: 'tool-call', callId: 'c1', name: 'Bash', args: '{"command":"make"}' }],
    })
    chain.add({ kind: 'user', role: 'input', text: 'never mind' })
    const read: ReadImport = {
      format: 'claude-code',
      label: 'Claude Code',
      transcript: { source: 'claude-code', nodes: chain.nodes, skipped: chain.skipped },
    }
    const { sessionId } = importRead(store, read, { projectDir: project, file: 'x.jsonl', clock })
    const events = eventsOf(sessionId)
    const result = ofType(events, 'tool/result')[0]
    expect(result?.data).toMatchObject({
      callId: 'c1',
      ok: false,
      error: { code: IMPORT_NO_RESULT },
    })
    expect(ofType(events, 'turn/end')).toHaveLength(2)
  })

  it('refuses a file in no known format, and an empty or compressed one, creating nothing', () => {
    expect(() => readImport(fixture('not-a-session.jsonl'))).toThrow(ImportError)
    expect(() => readImport(fixture('not-a-session.jsonl'))).toThrow(
      /not a session file Bridle can import.*Claude Code/,
    )
    expect(() => readImport(Buffer.from('\n\n'))).toThrow(/empty/)
    expect(() => readImport(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 1]))).toThrow(/zstd -d/)
    expect(store.listSessions({ limit: 10 }).items).toEqual([])
  })

  it('writes nothing when any part of an import fails (one transaction)', () => {
    const chain = new Chain()
    chain.add({ kind: 'user', role: 'input', text: 'hello' })
    // A call id the log refuses (empty): the write fails after the session row was made.
    chain.add({
      kind: 'assistant',
      blocks: [{ type: 'tool-call', callId: '', name: 'x', args: '{}' }],
    })
    const read: ReadImport = {
      format: 'pi',
      label: 'pi',
      transcript: { source: 'pi', nodes: chain.nodes, skipped: chain.skipped },
    }
    expect(() => importRead(store, read, { projectDir: project, file: 'x', clock })).toThrow()
    expect(store.listSessions({ limit: 10 }).items).toEqual([])
  })
})

describe('scanSessions', () => {
  it('finds each tool’s sessions in its default folder under HOME, newest first', () => {
    const fakeHome = mkdtempSync(join(tmpdir(), 'bridle-scan-home-'))
    try {
      const put = (file: string, ...path: string[]) => {
        mkdirSync(join(fakeHome, ...path.slice(0, -1)), { recursive: true })
        copyFileSync(join(fixtures, file), join(fakeHome, ...path))
      }
      put('claude-code.jsonl', '.claude', 'projects', '-home-dev-demo', 'a.jsonl')
      put('codex-rollout.jsonl', '.codex', 'sessions', '2026', '12', '06', 'rollout-x.jsonl')
      put('pi-session.jsonl', '.pi', 'agent', 'sessions', '--home-dev-demo--', 'p.jsonl')
      put('deepseek-harness.jsonl', '.dsh', 'sessions', 'cwd-0123456789ab', 'd.jsonl')
      // Not sessions: a file in the wrong place, and one in no format.
      put('pi-session.jsonl', '.codex', 'sessions', 'stray.jsonl')
      put('not-a-session.jsonl', '.claude', 'projects', '-home-dev-demo', 'b.jsonl')
      const found = scanSessions(fakeHome)
      expect(found.map((f) => f.source).sort()).toEqual(
        ['claude-code', 'codex', 'deepseek-harness', 'pi'].sort(),
      )
      for (const session of found) expect(session.projectDir).toBe('/home/dev/demo')
      expect(found.find((f) => f.source === 'codex')?.title).toBe('Create notes.txt saying hello')
      expect(found.find((f) => f.source === 'deepseek-harness')?.title).toBe(
        'What does notes.txt say?',
      )
      expect(scanSessions(join(fakeHome, 'nowhere'))).toEqual([])
    } finally {
      rmSync(fakeHome, { recursive: true, force: true })
    }
  })
})

describe('chooseProjectDir', () => {
  it('takes --project, and refuses one that is not a folder', async () => {
    expect(await chooseProjectDir({ flag: project, recorded: '/etc', cwd: '/' })).toMatchObject({
      how: 'flag',
    })
    await expect(chooseProjectDir({ flag: join(project, 'nope'), cwd: '/' })).rejects.toThrow(
      /no folder/,
    )
  })

  it('never takes a recorded folder without confirmation: /etc headless, ~, ../../..', async () => {
    const headless = await chooseProjectDir({ recorded: '/etc', cwd: project })
    expect(headless.how).toBe('current')
    expect(headless.notice).toContain('/etc')
    const confirm = vi.fn(() => Promise.resolve(false))
    const refused = await chooseProjectDir({ recorded: '/etc', cwd: project, confirm })
    expect(confirm).toHaveBeenCalledWith('/etc')
    expect(refused.how).toBe('current')
    for (const recorded of ['~', '../../..']) {
      const asked = vi.fn(() => Promise.resolve(true))
      const choice = await chooseProjectDir({ recorded, cwd: project, confirm: asked })
      expect(asked).not.toHaveBeenCalled() // not an absolute folder here: never offered
      expect(choice.how).toBe('current')
    }
  })

  it('takes the recorded folder when it exists and the user confirms it', async () => {
    const recorded = mkdtempSync(join(tmpdir(), 'bridle-recorded-'))
    try {
      writeFileSync(join(recorded, 'x'), '')
      const choice = await chooseProjectDir({
        recorded,
        cwd: project,
        confirm: () => Promise.resolve(true),
      })
      expect(choice).toMatchObject({ how: 'recorded' })
    } finally {
      rmSync(recorded, { recursive: true, force: true })
    }
  })
})
