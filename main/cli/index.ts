#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { boot, dispatchCall, ensureHome, resolveHome, runtimeVersions } from '../core/host/index.js'
import { exportLines, importSession } from '../core/log/export.js'
import { databasePath, openStore } from '../core/store/index.js'
import type { Store } from '../core/store/index.js'
import { chunked, writeFileAtomic } from './files.js'
import { printEvents, printSearch, printSessions } from './inspect.js'
import { startServe } from './serve.js'

const USAGE = `Bridle: a desktop agent harness whose event log is the truth.

Usage: bridle <command> [options]

Commands:
  info                      Print the app info (version, data folder, platform) as JSON.
  serve                     Serve the UI and the bridge on a loopback port, for a browser.
      --port N              Port to listen on (default 7420; 0 picks a free one).
      --host ADDR           127.0.0.1 (default), localhost or ::1; never a public address.
      --renderer DIR        The built renderer to serve (default: out/renderer; npm run build).
  export <sessionId>        Write a session's whole history (forks flattened) as JSON Lines.
      --out FILE            Write to FILE (atomically: all or nothing) instead of stdout.
  import <FILE>             Import a JSON Lines export as a new session; prints the new id.
  sessions                  List sessions, newest first, forks indented under their parent.
  events <sessionId>        Print a session's timeline, one line per event.
      --type TYPE           Only events of this type (repeatable, e.g. --type tool/call).
      --turn N              Only events of turn N.
      --from SEQ            Start at this seq.
      --limit N             At most N events.
  search <text>             Full-text search over messages and tool output of every session.
      --limit N             At most N hits (default 20).
  help                      Print this help.

Options for every command:
  --home DIR                The data folder (default: $BRIDLE_HOME, else ~/.bridle).
  -h, --help                Print this help.
  -v, --version             Print the version.

Examples:
  npm run bridle -- info
  npm run bridle -- serve --port 0
  npm run bridle -- export 3f2a... --out session.jsonl
  npm run bridle -- import session.jsonl
`

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string
  }
  return pkg.version ?? '0.0.0'
}

class UsageError extends Error {}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 7420
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${text}"`)
  }
  return port
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      home: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      renderer: { type: 'string' },
      out: { type: 'string' },
      type: { type: 'string', multiple: true },
      turn: { type: 'string' },
      from: { type: 'string' },
      limit: { type: 'string' },
    },
  })
  const command = positionals[0] ?? 'help'
  if (values.help || command === 'help') {
    process.stdout.write(USAGE)
    return 0
  }
  if (values.version) {
    process.stdout.write(`${readVersion()}\n`)
    return 0
  }
  const home = values.home ?? resolveHome(process.env)
  const bootHost = () =>
    boot({ home, version: readVersion(), versions: runtimeVersions(process.versions) })

  switch (command) {
    case 'info': {
      const host = await bootHost()
      const result = await dispatchCall(host, 'app/info', {}, { transport: 'in-process' })
      await host.close()
      if (!result.ok) throw new Error(result.error.message)
      process.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`)
      return 0
    }
    case 'serve': {
      const host = await bootHost()
      const serving = await startServe({
        host,
        rendererDir: values.renderer ?? `${repoRoot}out/renderer`,
        port: parsePort(values.port),
        hostname: values.host ?? '127.0.0.1',
      })
      process.stdout.write(`Bridle is serving at ${serving.url}\n`)
      process.stdout.write('Open that address in a browser; press Ctrl+C to stop.\n')
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve)
        process.once('SIGTERM', resolve)
      })
      await serving.close()
      await host.close()
      return 0
    }
    case 'export': {
      const sessionId = positionals[1]
      if (sessionId === undefined) throw new UsageError('export needs a session id')
      withExistingStore(home, (store) => {
        const lines = exportLines(store, sessionId)
        if (values.out === undefined) {
          for (const chunk of chunked(lines)) process.stdout.write(chunk)
        } else {
          writeFileAtomic(values.out, chunked(lines))
        }
      })
      return 0
    }
    case 'import': {
      const file = positionals[1]
      if (file === undefined) throw new UsageError('import needs the file to import')
      const lines = readFileSync(file, 'utf8').split('\n')
      const id = withStore(databasePath(ensureHome(home)), (store) => importSession(store, lines))
      process.stdout.write(`${id}\n`)
      return 0
    }
    case 'sessions':
      withExistingStore(home, (store) => printSessions(store, print))
      return 0
    case 'events': {
      const sessionId = positionals[1]
      if (sessionId === undefined) throw new UsageError('events needs a session id')
      const filter = {
        ...(values.type ? { types: values.type } : {}),
        ...(values.turn === undefined ? {} : { turn: parseCount('--turn', values.turn) }),
        ...(values.from === undefined ? {} : { fromSeq: parseCount('--from', values.from) }),
        ...(values.limit === undefined ? {} : { limit: parseCount('--limit', values.limit) }),
      }
      withExistingStore(home, (store) => printEvents(store, sessionId, filter, print))
      return 0
    }
    case 'search': {
      const text = positionals.slice(1).join(' ')
      if (text.trim() === '') throw new UsageError('search needs some words to look for')
      const limit = values.limit === undefined ? 20 : parseCount('--limit', values.limit)
      withExistingStore(home, (store) => printSearch(store, text, limit, print))
      return 0
    }
    default:
      throw new UsageError(`unknown command "${command}"; run \`bridle --help\` for the list`)
  }
}

const print = (line: string) => process.stdout.write(`${line}\n`)

function parseCount(option: string, text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`${option} must be a whole number, not "${text}"`)
  }
  return value
}

/** Opens the data folder's database for reading commands; never creates one. */
function withExistingStore<T>(home: string, body: (store: Store) => T): T {
  const dbPath = databasePath(home)
  if (!existsSync(dbPath))
    throw new Error(`there is no Bridle database in ${home} (nothing has been recorded yet)`)
  return withStore(dbPath, body)
}

function withStore<T>(dbPath: string, body: (store: Store) => T): T {
  const store = openStore(dbPath)
  try {
    return body(store)
  } finally {
    store.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    const isUsage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    process.stderr.write(`bridle: ${error instanceof Error ? error.message : String(error)}\n`)
    if (isUsage) process.stderr.write('Run `bridle --help` for usage.\n')
    process.exitCode = isUsage ? 2 : 1
  },
)
