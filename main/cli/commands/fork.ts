import { forkSession } from '../../core/log/index.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'
import { parseCount } from './options.js'

/** `bridle fork <sessionId> --at SEQ`: a new session sharing the first SEQ events; prints its id. */
export const fork: CliCommand = {
  name: 'fork',
  usage: '<sessionId> --at SEQ',
  summary: 'Fork a session: the new one shares events 0..SEQ-1; prints its id.',
  run({ positionals, values }, { print, withExistingStore }) {
    const sessionId = positionals[0]
    if (sessionId === undefined || values.at === undefined)
      throw new UsageError('fork needs a session id and --at SEQ')
    const atSeq = parseCount('--at', values.at)
    print(withExistingStore((store) => forkSession(store, sessionId, atSeq)))
    return 0
  },
}
