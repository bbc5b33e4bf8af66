import { databasePath } from '../../core/store/index.js'
import { uncompactCommand } from '../compact.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'
import { parseCount } from './options.js'

/** `bridle uncompact <sessionId> <checkpointSeq>`: undoes a compaction (`../compact.ts`). */
export const uncompact: CliCommand = {
  name: 'uncompact',
  usage: '<sessionId> <checkpointSeq>',
  summary: "Undo a compaction: the originals return to the model's view.",
  async run({ positionals }, { home, print, withStoreAsync }) {
    const [sessionId, seqText] = positionals
    if (sessionId === undefined || seqText === undefined)
      throw new UsageError('uncompact needs a session id and the checkpoint seq')
    const checkpointSeq = parseCount('checkpointSeq', seqText)
    await withStoreAsync(databasePath(home), (store) =>
      uncompactCommand(store, sessionId, checkpointSeq),
    )
    print(`checkpoint ${checkpointSeq} undone: its originals are back in the model's view`)
    return 0
  },
}
