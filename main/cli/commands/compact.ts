import { ensureHome } from '../../core/host/home.js'
import { loadConfig } from '../../core/host/settings/config.js'
import { databasePath } from '../../core/store/index.js'
import { compactCommand } from '../compact.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { launchEnvironment } from '../launch-env.js'
import { modelFlags } from './options.js'
import { writeErr } from '../terminal.js'

/**
 * `bridle compact <sessionId>`: compaction now (`../compact.ts`); prints the checkpoint and how
 * to undo it. Exits 130 when Ctrl+C cancelled it.
 */
export async function run(
  { positionals, values }: CommandArgs,
  { home, print, withStoreAsync }: CommandContext,
): Promise<number> {
  const sessionId = positionals[0]
  if (sessionId === undefined) throw new UsageError('compact needs a session id')
  const config = loadConfig(ensureHome(home))
  const result = await withStoreAsync(databasePath(home), (store) =>
    compactCommand({
      store,
      sessionId,
      config,
      env: launchEnvironment(),
      dataDir: home,
      ...(values.focus === undefined ? {} : { focus: values.focus }),
      ...modelFlags(values),
    }),
  )
  if (!result.ok) {
    writeErr(`bridle: ${result.code}: ${result.message}\n`)
    return result.code === 'CANCELLED' ? 130 : 1
  }
  print(
    `checkpoint ${result.checkpointSeq}: replaced seq ${result.fromSeq}..${result.toSeq}, ${result.tokensBefore} -> ${result.tokensAfter} tokens (undo: bridle uncompact ${sessionId} ${result.checkpointSeq})`,
  )
  return 0
}
