/**
 * "Import…" over the bridge: `import/scan` finds the fixture sessions laid out as each tool keeps
 * them under a fake home folder, `import/inspect` reports the recorded folder without trusting
 * it, and `import/run` writes the session (pi's branches as forks) into the folder the caller
 * names, or refuses and writes nothing.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  truncateSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type {
  ErrorCode,
  MethodName,
  NotificationOf,
  ParamsOf,
  ResultOf,
} from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'import')

let base: string
let home: string
let userHome: string
let project: string
let host: Host
let changes: string[][]

/** Where each tool keeps the fixture, relative to the home folder. */
const LAYOUT = {
  'claude-code.jsonl': '.claude/projects/-home-dev-demo/3f1c2a9e-claude.jsonl',
  'codex-rollout.jsonl': '.codex/sessions/2026/12/06/rollout-2026-12-06T10-00-00-a.jsonl',
  'pi-session.jsonl': '.pi/agent/sessions/--home-dev-demo--/2026-12-06_pi.jsonl',
  'deepseek-harness.jsonl': '.dsh/sessions/demo/ds-7f3a9c1e.jsonl',
} as const

function place(fixture: keyof typeof LAYOUT): string {
  const path = join(userHome, LAYOUT[fixture])
  mkdirSync(join(path, '..'), { recursive: true })
  copyFileSync(join(fixtures, fixture), path)
  return path
}

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-import-host-')))
  home = join(base, 'data')
  userHome = join(base, 'user')
  project = join(base, 'project')
  mkdirSync(project)
  mkdirSync(userHome)
  host = await boot({ home, version: '0.0.0', versions: {}, env: { HOME: userHome } })
  changes = []
  host.onNotification((topic, payload) => {
    if (topic === 'sessions/changed') {
      changes.push((payload as NotificationOf<'sessions/changed'>).sessionIds)
    }
  })
})

afterEach(async () => {
  await host.close()
  rmSync(base, { recursive: true, force: true })
})

const call = <M extends MethodName>(method: M, params: ParamsOf<M>) =>
  dispatchCall(host, method, params, { transport: 'in-process' })

async function ok<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await call(method, params)
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

async function failure<M extends MethodName>(
  method: M,
  params: ParamsOf<M>,
): Promise<{ code: ErrorCode; message: string }> {
  const result = await call(method, params)
  if (result.ok) throw new Error(`${method} succeeded: ${JSON.stringify(result.value)}`)
  return result.error
}

async function sessionCount(): Promise<number> {
  return (await ok('session/tree', {})).sessions.length
}

describe('import/scan', () => {
  it("lists each tool's sessions in its default folder, paths shown with ~", async () => {
    for (const fixture of Object.keys(LAYOUT) as (keyof typeof LAYOUT)[]) place(fixture)
    // Not a session of any tool: left out, though it sits in a scanned folder.
    writeFileSync(join(userHome, '.claude/projects/-home-dev-demo/notes.jsonl'), '{"a":1}\n')

    const { sessions, folders } = await ok('import/scan', {})
    expect(sessions.map((s) => s.tool).sort()).toEqual([
      'claude-code',
      'codex',
      'deepseek-harness',
      'pi',
    ])
    const codex = sessions.find((s) => s.tool === 'codex')
    expect(codex).toMatchObject({
      path: join(userHome, LAYOUT['codex-rollout.jsonl']),
      displayPath: `~/${LAYOUT['codex-rollout.jsonl']}`,
      label: 'Codex CLI',
      recordedProjectDir: '/home/dev/demo',
      bytes: readFileSync(join(fixtures, 'codex-rollout.jsonl')).length,
    })
    expect(codex?.title).toContain('Create notes.txt saying hello')
    expect(folders.map((f) => f.folder)).toEqual(
      expect.arrayContaining(['~/.claude/projects', '~/.codex/sessions', '~/.pi/agent/sessions']),
    )
  })

  it('finds nothing, and says where it looked, in a home folder no tool used', async () => {
    const { sessions, folders } = await ok('import/scan', {})
    expect(sessions).toEqual([])
    expect(folders).toHaveLength(4)
  })
})

describe('import/inspect', () => {
  it('names the format and the recorded folder, which does not exist here', async () => {
    const path = place('claude-code.jsonl')
    const seen = await ok('import/inspect', { path: `~/${LAYOUT['claude-code.jsonl']}` })
    expect(seen).toEqual({
      path,
      displayPath: `~/${LAYOUT['claude-code.jsonl']}`,
      format: 'claude-code',
      label: 'Claude Code',
      recordedProjectDir: '/home/dev/demo',
      recordedProjectDirExists: false,
    })
    expect(await sessionCount()).toBe(0)
  })

  it('says when the recorded folder exists, and writes nothing', async () => {
    const file = join(base, 'session.jsonl')
    writeFileSync(
      file,
      readFileSync(join(fixtures, 'pi-session.jsonl'), 'utf8').replaceAll(
        '/home/dev/demo',
        project,
      ),
    )
    const seen = await ok('import/inspect', { path: file })
    expect(seen).toMatchObject({
      format: 'pi',
      recordedProjectDir: project,
      recordedProjectDirExists: true,
    })
    expect(await sessionCount()).toBe(0)
  })

  it('refuses a file in no known format, a missing file and a relative path', async () => {
    const unknown = await failure('import/inspect', { path: join(fixtures, 'not-a-session.jsonl') })
    expect(unknown.code).toBe('IMPORT_REFUSED')
    expect(unknown.message).toContain('not a session file Bridle can import')
    expect((await failure('import/inspect', { path: join(base, 'nope.jsonl') })).code).toBe(
      'NOT_FOUND',
    )
    expect((await failure('import/inspect', { path: 'session.jsonl' })).code).toBe('INVALID_PATH')
    expect((await failure('import/inspect', { path: base })).code).toBe('INVALID_PATH')
  })

  it('refuses a file past the size limit before reading it (a sparse 600 MiB file)', async () => {
    const huge = join(base, 'huge.jsonl')
    writeFileSync(huge, '{"type":"session"}\n')
    truncateSync(huge, 600 * 1024 * 1024)
    const refused = await failure('import/inspect', { path: huge })
    expect(refused.code).toBe('IMPORT_REFUSED')
    expect(refused.message).toMatch(/512 MiB/)
  })
})

describe('import/run', () => {
  it('imports into the folder named, opens nothing else, and announces the session', async () => {
    const path = place('codex-rollout.jsonl')
    const { session, forkIds, label } = await ok('import/run', { path, projectDir: project })
    expect(label).toBe('Codex CLI')
    expect(forkIds).toEqual([])
    expect(session.projectDir).toBe(project)
    expect(session.messageCount).toBeGreaterThanOrEqual(4)
    expect(changes).toContainEqual([session.id])

    const { events } = await ok('session/events', { sessionId: session.id })
    const imported = events.find((e) => e.type === 'session/imported')
    expect(imported?.data).toMatchObject({ source: 'codex', recordedProjectDir: '/home/dev/demo' })
    const created = events.find((e) => e.type === 'session/created')
    expect(created?.data).toMatchObject({ projectDir: project })
    const prompts = events
      .filter((e) => e.type === 'user/message')
      .map((e) => JSON.stringify(e.data))
    expect(prompts.join('\n')).toContain('Create notes.txt saying hello')
    expect(events.some((e) => e.type === 'tool/result')).toBe(true)
    // The folder chosen is now a recent project, so the sidebar can show the session there.
    expect((await ok('project/recent', {})).projects.map((p) => p.path)).toContain(project)
  })

  it("gives pi's other branch as a fork of the new session", async () => {
    const path = place('pi-session.jsonl')
    const { session, forkIds } = await ok('import/run', { path, projectDir: project })
    expect(forkIds).toHaveLength(1)
    const tree = (await ok('session/tree', {})).sessions
    expect(tree.find((s) => s.id === forkIds[0])).toMatchObject({
      parentId: session.id,
      projectDir: project,
    })
    expect(changes).toContainEqual([session.id, ...forkIds])
  })

  it('refuses, writing nothing, a file in no known format or a folder that is not one', async () => {
    const unknown = await failure('import/run', {
      path: join(fixtures, 'not-a-session.jsonl'),
      projectDir: project,
    })
    expect(unknown.code).toBe('IMPORT_REFUSED')
    const path = place('deepseek-harness.jsonl')
    const noFolder = await failure('import/run', { path, projectDir: join(base, 'missing') })
    expect(noFolder.code).toBe('INVALID_PATH')
    expect(noFolder.message).toContain('does not exist')
    // The folder the file recorded is not taken for one left out: the contract wants it named.
    expect((await failure('import/run', { path } as ParamsOf<'import/run'>)).code).toBe(
      'INVALID_PARAMS',
    )
    expect(await sessionCount()).toBe(0)
    expect(changes).toEqual([])
  })
})
