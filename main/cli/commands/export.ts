import { chunked, writeFileAtomic } from '../../core/host/files.js'
import { exportLines } from '../../core/log/export.js'
import { UsageError } from './command.js'
import type { CliCommand } from './command.js'

/** `bridle export <sessionId>`: a session's whole history as JSON Lines, to stdout or `--out`. */
export const exportCommand: CliCommand = {
  name: 'export',
  usage: '<sessionId>',
  summary: "Write a session's whole history (forks flattened) as JSON Lines.",
  options: [
    {
      flag: '--out FILE',
      text: 'Write to FILE (atomically: all or nothing) instead of stdout.',
    },
  ],
  run({ positionals, values }, { withExistingStore }) {
    const sessionId = positionals[0]
    if (sessionId === undefined) throw new UsageError('export needs a session id')
    withExistingStore((store) => {
      const lines = exportLines(store, sessionId)
      if (values.out === undefined) {
        for (const chunk of chunked(lines)) process.stdout.write(chunk)
      } else {
        writeFileAtomic(values.out, chunked(lines))
      }
    })
    return 0
  },
}
