import { printTranscript } from '../inspect.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'

/** `bridle show <sessionId>`: a session's conversation (`../inspect.ts`). */
export function run(
  { positionals }: CommandArgs,
  { print, withExistingStore }: CommandContext,
): number {
  const sessionId = positionals[0]
  if (sessionId === undefined) throw new UsageError('show needs a session id')
  withExistingStore((store) => printTranscript(store, sessionId, print))
  return 0
}
