import { basename } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { ensureHome } from '../../core/host/home.js'
import {
  chooseProjectDir,
  importRead,
  readImportFile,
  scanSessions,
} from '../../core/import/index.js'
import { databasePath } from '../../core/store/index.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { visibleText } from '../../../protocol/visible-text.js'
import { writeErr, writeOut } from '../terminal.js'

/**
 * `bridle import <FILE>`: a Bridle export, or a Claude Code, Codex, pi or DeepSeek Harness
 * session log, becomes a new session (pi's branches become forks); prints the new id.
 * `bridle import --scan`: lists the sessions of those tools found under the home folder.
 */
export async function run(
  { positionals, values }: CommandArgs,
  { home, withStore }: CommandContext,
): Promise<number> {
  if (values.scan) {
    for (const found of scanSessions(homeFolder())) {
      if (values.json) {
        writeOut(`${JSON.stringify(found)}\n`)
      } else {
        const when = new Date(found.modifiedAt).toISOString().slice(0, 16).replace('T', ' ')
        writeOut(
          `${found.source}\t${when}\t${found.projectDir ?? '-'}\t${found.title ?? '-'}\t${found.path}\n`,
        )
      }
    }
    return 0
  }
  const file = positionals[0]
  if (file === undefined) throw new UsageError('import needs the file to import (or --scan)')
  const read = readImportFile(file)
  const choice = await chooseProjectDir({
    ...(values.project === undefined ? {} : { flag: values.project }),
    ...(read.recordedProjectDir === undefined ? {} : { recorded: read.recordedProjectDir }),
    cwd: process.cwd(),
    ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: confirmOnTerminal } : {}),
  })
  const result = withStore(databasePath(ensureHome(home)), (store) =>
    importRead(store, read, { projectDir: choice.dir, file: basename(file) }),
  )
  // Said once the import stood: a refused file gets its reason alone.
  if (choice.notice) writeErr(`bridle: ${choice.notice}\n`)
  writeErr(
    `bridle: imported ${read.label} session into ${choice.dir}${result.forks.length > 0 ? `, with ${result.forks.length} fork(s) for its other branches: ${result.forks.join(', ')}` : ''}\n`,
  )
  writeOut(`${result.sessionId}\n`)
  return 0
}

/** The user's home folder, where other tools keep their sessions ($HOME first, so tests can move it). */
function homeFolder(): string {
  const home = process.env.HOME ?? process.env.USERPROFILE
  if (!home) throw new UsageError('--scan needs a home folder ($HOME is not set)')
  return home
}

async function confirmOnTerminal(dir: string): Promise<boolean> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = await terminal.question(
      `The session was recorded in ${visibleText(dir)}. The agent will read, write and run commands there when you continue it.\nUse it as the project folder? [y/N] `,
    )
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    terminal.close()
  }
}
