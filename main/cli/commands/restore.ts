import { databasePath } from '../../core/store/index.js'
import { restoreCommand } from '../restore.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseCount } from './options.js'
import { writeErr } from '../terminal.js'

/**
 * `bridle restore <sessionId> <seq> [--force]` / `--undo` (`../restore.ts`): prints what changed;
 * exits 1 naming each file changed outside Bridle when the drift check stops it.
 */
export async function run(
  { positionals, values }: CommandArgs,
  { home, print, withStoreAsync }: CommandContext,
): Promise<number> {
  const [sessionId, seqText] = positionals
  const isUndo = values.undo === true
  if (sessionId === undefined || (seqText === undefined) !== isUndo)
    throw new UsageError('restore needs a session id and either a seq or --undo')
  const toSeq = seqText === undefined ? undefined : parseCount('seq', seqText)
  const isDryRun = values['dry-run'] === true
  const outcome = await withStoreAsync(databasePath(home), (store) =>
    restoreCommand({
      store,
      home,
      sessionId,
      toSeq,
      force: values.force === true,
      dryRun: isDryRun,
    }),
  )
  if (!outcome.ok) {
    writeErr(
      [
        `bridle: ${outcome.drifted.length} file(s) changed outside Bridle since the session last saw them:`,
        ...outcome.drifted.map((path) => `  ${path}`),
        `Nothing was changed. Run again with --force to overwrite them.`,
        '',
      ].join('\n'),
    )
    return 1
  }
  if (outcome.seq === undefined) {
    const what = isUndo ? 'undoing the last restore' : `restoring files to seq ${toSeq}`
    print(
      `${what} would write ${outcome.written.length} and remove ${outcome.removed.length} file(s) (dry run: nothing changed)`,
    )
    for (const path of outcome.written) print(`  would write   ${path}`)
    for (const path of outcome.removed) print(`  would remove  ${path}`)
    for (const { path, reason } of outcome.skipped) print(`  would skip    ${path}: ${reason}`)
    for (const path of outcome.drifted) print(`  changed outside Bridle (needs --force): ${path}`)
    return 0
  }
  const what = isUndo ? 'undid the last restore' : `restored files to seq ${toSeq}`
  print(
    `${what} (event ${outcome.seq}): ${outcome.written.length} written, ${outcome.removed.length} removed`,
  )
  for (const path of outcome.written) print(`  written  ${path}`)
  for (const path of outcome.removed) print(`  removed  ${path}`)
  for (const { path, reason } of outcome.skipped) print(`  skipped  ${path}: ${reason}`)
  for (const path of outcome.drifted) print(`  overwrote a change made outside Bridle: ${path}`)
  if (!isUndo) print(`undo: bridle restore ${sessionId} --undo`)
  return 0
}
