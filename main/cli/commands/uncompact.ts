import { databasePath } from '../../core/store/index.js'
import { uncompactCommand } from '../compact.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseCount } from './options.js'

/** `bridle uncompact <sessionId> <checkpointSeq>`: undoes a compaction (`../compact.ts`). */
export async function run(
  { positionals }: CommandArgs,
  { home, print, withStoreAsync }: CommandContext,
): Promise<number> {
  const [sessionId, seqText] = positionals
  if (sessionId === undefined || seqText === undefined)
    throw new UsageError('uncompact needs a session id and the checkpoint seq')
  const checkpointSeq = parseCount('checkpointSeq', seqText)
  await withStoreAsync(databasePath(home), (store) =>
    uncompactCommand(store, sessionId, checkpointSeq),
  )
  print(`checkpoint ${checkpointSeq} undone: its originals are back in the model's view`)
  return 0
}
