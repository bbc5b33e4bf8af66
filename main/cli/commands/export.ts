import { homedir } from 'node:os'
import { join } from 'node:path'
import { createRedactor, exportTranscript, TRANSCRIPT_FORMATS } from '../../core/export/index.js'
import { chunked, writeFileAtomic } from '../../core/host/files.js'
import { loadConfig } from '../../core/host/settings/config.js'
import { CredentialStore } from '../../core/host/settings/credentials.js'
import { knownSecretValues } from '../../core/host/settings/known-secrets.js'
import { SNAPSHOTS_DIR, withPatch } from '../../core/host/sessions/workspace.js'
import { exportLines } from '../../core/log/export.js'
import { SnapshotStore } from '../../core/workspace/snapshot.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { launchEnvironment } from '../launch-env.js'
import { writeData } from '../terminal.js'

const FORMATS = ['jsonl', ...TRANSCRIPT_FORMATS] as const
type Format = (typeof FORMATS)[number]

/**
 * `bridle export <sessionId>`: a session's whole history, to stdout or `--out`: as JSON Lines
 * (the default, what `import` reads) or as a transcript for people (`--format html|md`).
 */
export function run(
  { positionals, values }: CommandArgs,
  { home, withExistingStore }: CommandContext,
): number {
  const sessionId = positionals[0]
  if (sessionId === undefined) throw new UsageError('export needs a session id')
  const format = parseFormat(values.format)
  withExistingStore((store) => {
    const chunks =
      format === 'jsonl'
        ? chunked(exportLines(store, sessionId))
        : [exportTranscript(store, sessionId, format, transcriptOptions(home)).text]
    if (values.out === undefined) {
      for (const chunk of chunks) writeData(chunk)
    } else {
      writeFileAtomic(values.out, chunks)
    }
  })
  return 0
}

function parseFormat(text: string | undefined): Format {
  if (text === undefined) return 'jsonl'
  const format = FORMATS.find((known) => known === text)
  if (format === undefined) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${text}"`)
  }
  return format
}

/** What a transcript needs from the data folder: the secrets to hide and the snapshots. */
function transcriptOptions(home: string) {
  const secrets = knownSecretValues(
    loadConfig(home),
    new CredentialStore(home),
    launchEnvironment(),
  )
  const snapshots = new SnapshotStore(join(home, SNAPSHOTS_DIR))
  return {
    redact: createRedactor({ secrets, home: homedir() }),
    patchOf: (file: Parameters<typeof withPatch>[1]) => withPatch(snapshots, file),
    now: Date.now(),
  } satisfies Parameters<typeof exportTranscript>[3]
}
