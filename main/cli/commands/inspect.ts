import { EVENT_TYPES } from '../../../protocol/events.js'
import { printEvents } from '../inspect.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseCount } from './options.js'

/** `bridle inspect <sessionId>` (or `events`): a session's timeline, filtered (`../inspect.ts`). */
export function run(
  { positionals, values }: CommandArgs,
  { print, withExistingStore }: CommandContext,
): number {
  const sessionId = positionals[0]
  if (sessionId === undefined) throw new UsageError('events needs a session id')
  const filter = {
    ...(values.type ? { types: values.type.map(parseEventType) } : {}),
    ...(values.turn === undefined ? {} : { turn: parseCount('--turn', values.turn) }),
    ...(values.from === undefined ? {} : { fromSeq: parseCount('--from', values.from) }),
    ...(values.limit === undefined ? {} : { limit: parseCount('--limit', values.limit) }),
  }
  withExistingStore((store) => printEvents(store, sessionId, filter, print))
  return 0
}

/** `--type T`: one of the log's event types (`protocol/events.ts`), else a `UsageError` listing them. */
function parseEventType(text: string): string {
  if ((EVENT_TYPES as readonly string[]).includes(text)) return text
  throw new UsageError(`unknown event type ${text}; known types: ${EVENT_TYPES.join(', ')}`)
}
