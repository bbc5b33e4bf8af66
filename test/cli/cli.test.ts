import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const repoRoot = join(import.meta.dirname, '..', '..')
const tsx = join(repoRoot, 'node_modules/tsx/dist/cli.mjs')

function bridle(...args: string[]) {
  return spawnSync(process.execPath, [tsx, 'main/cli/index.ts', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, BRIDLE_HOME: '' },
  })
}

describe('the bridle CLI', () => {
  it('prints its usage for --help and exits 0', () => {
    const run = bridle('--help')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain('Usage: bridle <command>')
    expect(run.stdout).toContain('serve')
  })

  it('prints the app info as JSON for a given data folder', () => {
    const home = mkdtempSync(join(tmpdir(), 'bridle-cli-'))
    try {
      const run = bridle('info', '--home', home)
      expect(run.status).toBe(0)
      expect(JSON.parse(run.stdout)).toMatchObject({ name: 'Bridle', dataDir: home })
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('exits 2 with a clear message on an unknown command or option', () => {
    const unknown = bridle('frobnicate')
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain('unknown command "frobnicate"')
    const badOption = bridle('info', '--nope')
    expect(badOption.status).toBe(2)
    expect(badOption.stderr).toContain('--nope')
  })

  it('refuses a data folder whose bridle.db is not a Bridle database, and leaves it untouched', () => {
    const home = mkdtempSync(join(tmpdir(), 'bridle-cli-'))
    try {
      writeFileSync(join(home, 'bridle.db'), 'these are my notes, not a database\n')
      const run = bridle('info', '--home', home)
      expect(run.status).toBe(1)
      expect(run.stderr).toMatch(/^bridle: .*not a Bridle database/m)
      expect(readFileSync(join(home, 'bridle.db'), 'utf8')).toBe(
        'these are my notes, not a database\n',
      )
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('lists sessions, prints a timeline and searches, on a database made by import', () => {
    const home = mkdtempSync(join(tmpdir(), 'bridle-cli-'))
    try {
      const file = join(home, 'in.jsonl')
      const header = {
        format: 'bridle-session',
        version: 1,
        session: { id: 'x', title: 'Parser work', projectDir: '/proj', createdAt: 1, updatedAt: 2 },
        ancestry: [{ sessionId: 'x', fromSeq: 0, toSeq: 5 }],
      }
      const events = [
        { type: 'session/created', data: { projectDir: '/proj' }, turn: 0, step: 0 },
        { type: 'turn/start', data: {}, turn: 1, step: 0 },
        { type: 'step/start', data: {}, turn: 1, step: 1 },
        {
          type: 'user/message',
          data: { content: 'the tokenizer mangles CRLF', kind: 'input' },
          turn: 1,
          step: 1,
        },
        { type: 'step/end', data: { reason: 'completed' }, turn: 1, step: 1 },
      ].map((e, seq) => JSON.stringify({ seq, v: 1, at: 1000 + seq, ...e }))
      writeFileSync(file, [JSON.stringify(header), ...events].join('\n') + '\n')
      const imported = bridle('import', file, '--home', home)
      // Its recorded folder (/proj) is not here: the current folder, said on stderr.
      expect(imported.stderr).toContain('the folder it recorded, /proj, is not a folder here')
      expect(imported.status).toBe(0)
      const id = imported.stdout.trim()
      expect(bridle('sessions', '--home', home).stdout).toContain(id)
      const timeline = bridle('events', id, '--home', home, '--type', 'user/message').stdout
      expect(timeline).toMatch(/^\s+3 .* user\/message\s+the tokenizer mangles CRLF$/m)
      expect(bridle('search', 'tokenizer', '--home', home).stdout).toContain('«tokenizer»')
      expect(bridle('events', id, '--home', home, '--limit', 'x').status).toBe(2)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
