import { forkSession } from '../../core/log/index.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseCount } from './options.js'

/** `bridle fork <sessionId> --at SEQ`: a new session sharing the first SEQ events; prints its id. */
export function run(
  { positionals, values }: CommandArgs,
  { print, withExistingStore }: CommandContext,
): number {
  const sessionId = positionals[0]
  if (sessionId === undefined || values.at === undefined)
    throw new UsageError('fork needs a session id and --at SEQ')
  const atSeq = parseCount('--at', values.at)
  print(withExistingStore((store) => forkSession(store, sessionId, atSeq)))
  return 0
}
