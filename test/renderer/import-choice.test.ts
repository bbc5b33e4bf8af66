/**
 * The "Import…" dialog's choices: sessions grouped by tool in the scan's order, and the project
 * folders offered for a file, where the folder it recorded is untrusted: offered only when it
 * exists, never the one chosen at first.
 */
import { describe, expect, it } from 'vitest'
import type { ResultOf, ScannedImport } from '../../protocol/contract'
import {
  chosenFolder,
  folderOptions,
  formatSize,
  groupByTool,
} from '../../renderer/src/features/sessions/import-choice'

const found = (tool: ScannedImport['tool'], name: string): ScannedImport => ({
  path: `/home/u/${name}.jsonl`,
  displayPath: `~/${name}.jsonl`,
  tool,
  label: tool,
  modifiedAt: 1,
  bytes: 10,
})

const inspected = (recorded: string | undefined, exists: boolean): ResultOf<'import/inspect'> => ({
  path: '/home/u/s.jsonl',
  displayPath: '~/s.jsonl',
  format: 'pi',
  label: 'pi',
  ...(recorded === undefined ? {} : { recordedProjectDir: recorded }),
  recordedProjectDirExists: exists,
})

describe('groupByTool', () => {
  it("keeps the scan's tool order, each tool's sessions in order, and leaves out empty tools", () => {
    const groups = groupByTool({
      sessions: [found('pi', 'b'), found('codex', 'a'), found('pi', 'c')],
      folders: [
        { tool: 'codex', label: 'Codex CLI', folder: '~/.codex/sessions' },
        { tool: 'claude-code', label: 'Claude Code', folder: '~/.claude/projects' },
        { tool: 'pi', label: 'pi', folder: '~/.pi/agent/sessions' },
      ],
    })
    expect(groups.map((g) => [g.tool, g.sessions.map((s) => s.displayPath)])).toEqual([
      ['codex', ['~/a.jsonl']],
      ['pi', ['~/b.jsonl', '~/c.jsonl']],
    ])
  })
})

describe('folderOptions', () => {
  it('offers an existing recorded folder but starts on the open project', () => {
    const options = folderOptions(inspected('/home/u/demo', true), '/srv/app')
    expect(options).toEqual({ recorded: '/home/u/demo', open: '/srv/app', initial: 'open' })
    expect(chosenFolder(options.initial, options, '')).toBe('/srv/app')
    expect(chosenFolder('recorded', options, '')).toBe('/home/u/demo')
  })

  it('names a recorded folder that is not one here without offering it', () => {
    const options = folderOptions(inspected('/etc/nowhere', false), '/srv/app')
    expect(options.recorded).toBeUndefined()
    expect(options.recordedMissing).toBe('/etc/nowhere')
    expect(chosenFolder('recorded', options, '')).toBeUndefined()
  })

  it('with no project open, starts on a path to type, and has none until one is typed', () => {
    const options = folderOptions(inspected('/home/u/demo', true), undefined)
    expect(options.initial).toBe('other')
    expect(chosenFolder('other', options, '  ')).toBeUndefined()
    expect(chosenFolder('other', options, ' ~/code ')).toBe('~/code')
  })
})

it('formatSize says bytes, KB and MB', () => {
  expect([formatSize(900), formatSize(15_974), formatSize(3 * 1024 * 1024)]).toEqual([
    '900 B',
    '15.6 KB',
    '3.0 MB',
  ])
})
