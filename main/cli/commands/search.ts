import { printSearch } from '../inspect.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'
import { parseCount } from './options.js'

/** `bridle search <text>`: full-text search over every session (`../inspect.ts`). */
export const search: CliCommand = {
  name: 'search',
  usage: '<text>',
  summary: 'Full-text search over messages and tool output of every session.',
  options: [{ flag: '--limit N', text: 'At most N hits (default 20).' }],
  run({ positionals, values }, { print, withExistingStore }) {
    const text = positionals.join(' ')
    if (text.trim() === '') throw new UsageError('search needs some words to look for')
    const limit = values.limit === undefined ? 20 : parseCount('--limit', values.limit)
    withExistingStore((store) => printSearch(store, text, limit, print))
    return 0
  },
}
