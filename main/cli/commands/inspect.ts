import { printEvents } from '../inspect.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'
import { parseCount } from './options.js'

/** `bridle inspect <sessionId>` (or `events`): a session's timeline, filtered (`../inspect.ts`). */
export const inspect: CliCommand = {
  name: 'inspect',
  aliases: ['events'],
  usage: '<sessionId>',
  summary: "Print a session's timeline, one line per event.",
  options: [
    { flag: '--type TYPE', text: 'Only events of this type (repeatable, e.g. --type tool/call).' },
    { flag: '--turn N', text: 'Only events of turn N.' },
    { flag: '--from SEQ', text: 'Start at this seq.' },
    { flag: '--limit N', text: 'At most N events.' },
  ],
  run({ positionals, values }, { print, withExistingStore }) {
    const sessionId = positionals[0]
    if (sessionId === undefined) throw new UsageError('events needs a session id')
    const filter = {
      ...(values.type ? { types: values.type } : {}),
      ...(values.turn === undefined ? {} : { turn: parseCount('--turn', values.turn) }),
      ...(values.from === undefined ? {} : { fromSeq: parseCount('--from', values.from) }),
      ...(values.limit === undefined ? {} : { limit: parseCount('--limit', values.limit) }),
    }
    withExistingStore((store) => printEvents(store, sessionId, filter, print))
    return 0
  },
}
