import { resolve } from 'node:path'
import { ensureHome } from '../../core/host/home.js'
import { loadConfig } from '../../core/host/settings/config.js'
import { isApprovalMode } from '../../core/tools/approvals.js'
import { databasePath } from '../../core/store/index.js'
import { checkHomeProject } from '../home-project.js'
import { runPrompt } from '../run.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { launchEnvironment } from '../launch-env.js'
import { modelFlags, parseContextWindow, parseCount, parseFolder } from './options.js'
import { writeErr, writeOut } from '../terminal.js'

/**
 * `bridle run "prompt"`: one turn (`../run.ts`). Exits 0 when it completes, 130 when the user
 * cancelled it, 143 when a signal interrupted it, 1 otherwise.
 */
export async function run(
  { positionals, values }: CommandArgs,
  { home, version, withStoreAsync }: CommandContext,
): Promise<number> {
  const prompt = positionals.join(' ')
  if (prompt.trim() === '')
    throw new UsageError('run needs a prompt, e.g. bridle run "explain this repo"')
  const projectDir = parseFolder('--project', values.project ?? '.')
  const contextWindow =
    values['context-window'] === undefined
      ? undefined
      : parseContextWindow(values['context-window'])
  const config = loadConfig(ensureHome(home))
  const approval = values.approval ?? config.approval
  if (!isApprovalMode(approval)) {
    throw new UsageError(`--approval must be ask, auto-edit or full-auto, not "${approval}"`)
  }
  await checkHomeProject(resolve(values.project ?? '.'), {
    allowed: values['allow-home'] ?? false,
    input: process.stdin.isTTY ? process.stdin : undefined,
    err: writeErr,
  })
  const outcome = await withStoreAsync(databasePath(home), (store) =>
    runPrompt({
      store,
      config,
      prompt,
      projectDir,
      json: values.json ?? false,
      dataDir: home,
      approval,
      ...(process.stdin.isTTY ? { approvalInput: process.stdin } : {}),
      env: launchEnvironment(),
      version,
      trustProjectMcp: values['trust-project-mcp'] ?? false,
      codeMode: values['code-mode'] ?? false,
      out: (text) => writeOut(text),
      err: (text) => writeErr(text),
      ...(values.session === undefined ? {} : { sessionId: values.session }),
      ...modelFlags(values),
      ...(values['max-steps'] === undefined
        ? {}
        : { maxSteps: parseCount('--max-steps', values['max-steps']) }),
      ...(contextWindow === undefined ? {} : { contextWindow }),
    }),
  )
  if (outcome.reason === 'completed') return 0
  writeErr(
    `bridle: the turn ended: ${outcome.reason}${outcome.error ? ` (${outcome.error.code}: ${outcome.error.message})` : ''}\n`,
  )
  return outcome.reason === 'cancelled' ? 130 : outcome.reason === 'interrupted' ? 143 : 1
}
