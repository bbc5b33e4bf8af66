import { readFileSync } from 'node:fs'
import { ensureHome } from '../../core/host/index.js'
import { importSession } from '../../core/log/export.js'
import { databasePath } from '../../core/store/index.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'

/** `bridle import <FILE>`: a JSON Lines export becomes a new session (the data folder is made). */
export const importCommand: CliCommand = {
  name: 'import',
  usage: '<FILE>',
  summary: 'Import a JSON Lines export as a new session; prints the new id.',
  run({ positionals }, { home, withStore }) {
    const file = positionals[0]
    if (file === undefined) throw new UsageError('import needs the file to import')
    const lines = readFileSync(file, 'utf8').split('\n')
    const id = withStore(databasePath(ensureHome(home)), (store) => importSession(store, lines))
    process.stdout.write(`${id}\n`)
    return 0
  },
}
