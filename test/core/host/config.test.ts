import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig, updateConfig } from '../../../main/core/host/settings/config.js'

let home: string
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-config-'))
})
afterEach(() => rmSync(home, { recursive: true, force: true }))

const write = (value: unknown) => writeFileSync(join(home, 'config.json'), JSON.stringify(value))

describe('config.json', () => {
  it('fills in the compaction defaults, pruning included, when there is no file', () => {
    expect(loadConfig(home).compaction).toEqual({
      threshold: 0.8,
      keepUserTurns: 2,
      prune: { keepSteps: 4, minBytes: 4096 },
    })
  })

  it('takes pruning settings, or false to go straight to a summary', () => {
    write({ compaction: { prune: { keepSteps: 1 } } })
    expect(loadConfig(home).compaction.prune).toEqual({ keepSteps: 1, minBytes: 4096 })
    write({ compaction: { threshold: 0.6, prune: false } })
    expect(loadConfig(home).compaction).toMatchObject({ threshold: 0.6, prune: false })
  })

  it('names the failing entry of a bad setting', () => {
    write({ compaction: { prune: { keepSteps: -1 } } })
    expect(() => loadConfig(home)).toThrow(/compaction\.prune/)
    write({ compaction: { threshold: 2 } })
    expect(() => loadConfig(home)).toThrow(/compaction\.threshold/)
  })

  it('updates the file without freezing defaults into it, and refuses an invalid change', () => {
    write({ approval: 'auto-edit' })
    updateConfig(home, (raw) => ({ ...raw, compaction: { prune: false } }))
    expect(JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'))).toEqual({
      approval: 'auto-edit',
      compaction: { prune: false },
    })
    expect(() => updateConfig(home, (raw) => ({ ...raw, approval: 'sometimes' }))).toThrow()
    expect(loadConfig(home).approval).toBe('auto-edit')
  })
})
