import { printSessions } from '../inspect.js'
import type { CommandArgs, CommandContext } from './command.js'

/** `bridle sessions`: the session tree (`../inspect.ts`). */
export function run(_args: CommandArgs, { print, withExistingStore }: CommandContext): number {
  withExistingStore((store) => printSessions(store, print))
  return 0
}
