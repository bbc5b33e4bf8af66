import { printSearch } from '../inspect.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseCount } from './options.js'

/** `bridle search <text>`: full-text search over every session (`../inspect.ts`). */
export function run(
  { positionals, values }: CommandArgs,
  { print, withExistingStore }: CommandContext,
): number {
  const text = positionals.join(' ')
  if (text.trim() === '') throw new UsageError('search needs some words to look for')
  const limit = values.limit === undefined ? 20 : parseCount('--limit', values.limit)
  withExistingStore((store) => printSearch(store, text, limit, print))
  return 0
}
