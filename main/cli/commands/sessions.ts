import { printSessions } from '../inspect.js'
import type { CliCommand } from './command.js'

/** `bridle sessions`: the session tree (`../inspect.ts`). */
export const sessions: CliCommand = {
  name: 'sessions',
  usage: '',
  summary: 'List sessions, newest first, forks indented under their parent.',
  run(_args, { print, withExistingStore }) {
    withExistingStore((store) => printSessions(store, print))
    return 0
  },
}
