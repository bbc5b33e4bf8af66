import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
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
})
