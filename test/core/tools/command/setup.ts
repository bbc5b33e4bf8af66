import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import {
  judgeShellLine,
  loadShellParser,
  parseShellLine,
} from '../../../../main/core/tools/command/index.js'
import type {
  JudgeContext,
  ShellLine,
  ShellParser,
  SimpleCommand,
} from '../../../../main/core/tools/command/index.js'

export interface Fixture {
  /** `<tmp>/home/dev`: a fake home folder that holds the project, as real homes do. */
  readonly home: string
  /** `<tmp>/home/dev/proj`, realpath'd. */
  readonly project: string
  readonly parser: ShellParser
  readonly ctx: JudgeContext
  parse(line: string, cwd?: string): ShellLine
  /** The commands of a line that must parse. */
  commands(line: string, cwd?: string): readonly SimpleCommand[]
  judge(line: string): ReturnType<typeof judgeShellLine>
}

/** A temp project inside a fake home, and the shared parser; removed after the file's tests. */
export function useFixture(): Fixture {
  const fixture = {} as { -readonly [K in keyof Fixture]: Fixture[K] }
  let root = ''
  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-command-')))
    fixture.home = join(root, 'home', 'dev')
    fixture.project = join(fixture.home, 'proj')
    mkdirSync(fixture.project, { recursive: true })
    fixture.parser = await loadShellParser()
    const git = join(fixture.project, '.git')
    fixture.ctx = {
      projectDir: fixture.project,
      home: fixture.home,
      protectedReason: (path) =>
        path === git || path.startsWith(`${git}/`)
          ? 'it is git metadata (hooks, config)'
          : undefined,
    }
    fixture.parse = (line, cwd = fixture.project) =>
      parseShellLine(fixture.parser, line, { home: fixture.home, cwd })
    fixture.commands = (line, cwd) => {
      const parsed = fixture.parse(line, cwd)
      if (!parsed.ok) throw new Error(`expected ${line} to parse: ${parsed.reason}`)
      return parsed.commands
    }
    fixture.judge = (line) => judgeShellLine(fixture.parse(line), fixture.ctx)
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })
  return fixture
}

/** argv values of each command, with its depth: `0:rm -rf x`. */
export const shape = (commands: readonly SimpleCommand[]) =>
  commands.map((c) => `${c.depth}:${c.argv.map((w) => w.value).join(' ')}`)
