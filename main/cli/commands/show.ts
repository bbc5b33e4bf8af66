import { printTranscript } from '../inspect.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'

/** `bridle show <sessionId>`: a session's conversation (`../inspect.ts`). */
export const show: CliCommand = {
  name: 'show',
  usage: '<sessionId>',
  summary: "Print a session's conversation.",
  run({ positionals }, { print, withExistingStore }) {
    const sessionId = positionals[0]
    if (sessionId === undefined) throw new UsageError('show needs a session id')
    withExistingStore((store) => printTranscript(store, sessionId, print))
    return 0
  },
}
