#!/usr/bin/env node
import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import {
  boot,
  dispatchCall,
  ensureHome,
  loadConfig,
  resolveHome,
  runtimeVersions,
} from '../core/host/index.js'
import { forkSession } from '../core/log/index.js'
import { discoverEndpoints } from '../core/models/discovery.js'
import type { ModelInfo } from '../core/models/types.js'
import { isApprovalMode } from '../core/tools/approvals.js'
import { exportLines, importSession } from '../core/log/export.js'
import { databasePath, openStore } from '../core/store/index.js'
import type { Store } from '../core/store/index.js'
import { chunked, writeFileAtomic } from '../core/host/files.js'
import { printEvents, printSearch, printSessions, printTranscript } from './inspect.js'
import { compactCommand, uncompactCommand } from './compact.js'
import { probeCardLines } from '../core/host/endpoints/probe-card.js'
import { probeCommand } from './probe.js'
import { runPrompt } from './run.js'
import { startServe } from './serve.js'

const USAGE = `Bridle: a desktop agent harness whose event log is the truth.

Usage: bridle <command> [options]

Commands:
  run "prompt"              Ask the agent; streams the answer. Exits 0 when the turn completes.
      --project DIR         The project folder (default: the current folder).
      --session ID          Continue this session (repairs it first if it crashed).
      --base-url URL        An OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1.
      --model NAME          The model (default: defaultModel in config.json).
      --api-key-env VAR     Read the API key from this environment variable.
      --max-steps N         Stop the turn after N model requests.
      --approval MODE       ask (default), auto-edit or full-auto: what may run without asking.
                            In ask mode a terminal is asked before edits and commands; without
                            one (piped, CI) they are refused with NO_APPROVAL_CHANNEL.
      --json                Print every event as JSON Lines instead of the answer.
      --context-window N    The model's context in tokens (default: what the server reports,
                            else contextWindow in config.json); compaction starts at 80% of it.
  compact <sessionId>       Summarise the early part of a session's history now (the originals
                            stay in the log). Takes --base-url/--model like run.
      --focus TEXT          What the summary should keep above all.
  uncompact <sessionId> <checkpointSeq>
                            Undo a compaction: the originals return to the model's view.
  discover                  Look for local model servers (Ollama, LM Studio, llama.cpp, vLLM)
                            on their usual ports and list their models.
      --port N              Probe this port instead (repeatable: --port 8080 --port 9000).
  probe                     Test what a model on a server can do: tool calls (streamed, not
                            streamed, as text), where reasoning comes, stream_options, and the
                            context window it really honours. Prints a capability card, and
                            Bridle talks to that model accordingly from then on.
                            Takes --base-url/--model/--api-key-env like run.
      --context-tokens N    Size of the long-prompt test (default 6000).
      --json                Print the report as JSON.
  show <sessionId>          Print a session's conversation.
  fork <sessionId> --at SEQ Fork a session: the new one shares events 0..SEQ-1; prints its id.
  info                      Print the app info (version, data folder, platform) as JSON.
  serve                     Serve the UI and the bridge on a loopback port, for a browser.
                            Prints the address to open: http://127.0.0.1:PORT/?token=...
      --project DIR         Open this project folder first (it heads the recent projects).
      --home DIR            The data folder (as for every command).
      --port N              Port to listen on (default 7420; 0 picks a free one).
      --host ADDR           127.0.0.1 (default), localhost or ::1; never a public address.
      --renderer DIR        The built renderer to serve (default: out/renderer; npm run build).
      --base-url URL        A model endpoint for new sessions (as for run; also --model,
                            --api-key-env, --context-window); default: config.json's.
  export <sessionId>        Write a session's whole history (forks flattened) as JSON Lines.
      --out FILE            Write to FILE (atomically: all or nothing) instead of stdout.
  import <FILE>             Import a JSON Lines export as a new session; prints the new id.
  sessions                  List sessions, newest first, forks indented under their parent.
  inspect <sessionId>       Print a session's timeline, one line per event (alias: events).
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
  npm run bridle -- run --base-url http://127.0.0.1:11434/v1 --model qwen3:8b "what does this repo do?"
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
      port: { type: 'string', multiple: true },
      host: { type: 'string' },
      renderer: { type: 'string' },
      out: { type: 'string' },
      type: { type: 'string', multiple: true },
      turn: { type: 'string' },
      from: { type: 'string' },
      limit: { type: 'string' },
      project: { type: 'string' },
      session: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key-env': { type: 'string' },
      'max-steps': { type: 'string' },
      json: { type: 'boolean' },
      approval: { type: 'string' },
      at: { type: 'string' },
      focus: { type: 'string' },
      'context-window': { type: 'string' },
      'context-tokens': { type: 'string' },
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
      const project = values.project === undefined ? undefined : resolvePath(values.project)
      if (project !== undefined && !statSync(project, { throwIfNoEntry: false })?.isDirectory()) {
        throw new UsageError(`--project ${values.project ?? ''} is not a folder`)
      }
      // `--base-url` (with --model, --api-key-env, --context-window) adds an endpoint `cli`
      // that new sessions use by default, as `bridle run` would.
      const baseUrl = values['base-url']
      if (baseUrl === undefined && (values.model ?? values['api-key-env']) !== undefined) {
        throw new UsageError('serve takes --model and --api-key-env only with --base-url')
      }
      const host = await boot({
        home,
        version: readVersion(),
        versions: runtimeVersions(process.versions),
        ...(baseUrl === undefined
          ? {}
          : {
              modelOverride: {
                baseUrl,
                ...(values.model === undefined ? {} : { model: values.model }),
                ...(values['api-key-env'] === undefined
                  ? {}
                  : { apiKeyEnv: values['api-key-env'] }),
                ...(values['context-window'] === undefined
                  ? {}
                  : {
                      contextWindow: parseCount('--context-window', values['context-window']),
                    }),
              },
            }),
      })
      if (project !== undefined) {
        // Through the contract like any client; a failure is reported, the UI can still open one.
        const ctx = { transport: 'in-process' } as const
        const opened = await dispatchCall(host, 'project/open', { path: project }, ctx)
        if (!opened.ok) {
          process.stderr.write(
            `bridle: could not open the project ${project} (${opened.error.code}): ${opened.error.message}\n`,
          )
        }
      }
      const serving = await startServe({
        host,
        rendererDir: values.renderer ?? `${repoRoot}out/renderer`,
        port: parsePort(values.port?.at(-1)),
        hostname: values.host ?? '127.0.0.1',
      })
      process.stdout.write(`Bridle is serving at ${serving.url}\n`)
      process.stdout.write('Open that address in a browser; press Ctrl+C to stop.\n')
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve)
        process.once('SIGTERM', resolve)
        process.once('SIGHUP', resolve)
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
    case 'run': {
      const prompt = positionals.slice(1).join(' ')
      if (prompt.trim() === '')
        throw new UsageError('run needs a prompt, e.g. bridle run "explain this repo"')
      const config = loadConfig(ensureHome(home))
      const approval = values.approval ?? config.approval
      if (!isApprovalMode(approval)) {
        throw new UsageError(`--approval must be ask, auto-edit or full-auto, not "${approval}"`)
      }
      const outcome = await withStoreAsync(databasePath(home), (store) =>
        runPrompt({
          store,
          config,
          prompt,
          projectDir: values.project ?? process.cwd(),
          json: values.json ?? false,
          dataDir: home,
          approval,
          ...(process.stdin.isTTY ? { approvalInput: process.stdin } : {}),
          env: process.env,
          out: (text) => process.stdout.write(text),
          err: (text) => process.stderr.write(text),
          ...(values.session === undefined ? {} : { sessionId: values.session }),
          ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
          ...(values.model === undefined ? {} : { model: values.model }),
          ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
          ...(values['max-steps'] === undefined
            ? {}
            : { maxSteps: parseCount('--max-steps', values['max-steps']) }),
          ...(values['context-window'] === undefined
            ? {}
            : { contextWindow: parseCount('--context-window', values['context-window']) }),
        }),
      )
      if (outcome.reason === 'completed') return 0
      process.stderr.write(
        `bridle: the turn ended: ${outcome.reason}${outcome.error ? ` (${outcome.error.code}: ${outcome.error.message})` : ''}\n`,
      )
      return outcome.reason === 'cancelled' ? 130 : outcome.reason === 'interrupted' ? 143 : 1
    }
    case 'compact': {
      const sessionId = positionals[1]
      if (sessionId === undefined) throw new UsageError('compact needs a session id')
      const config = loadConfig(ensureHome(home))
      const result = await withStoreAsync(databasePath(home), (store) =>
        compactCommand({
          store,
          sessionId,
          config,
          env: process.env,
          dataDir: home,
          ...(values.focus === undefined ? {} : { focus: values.focus }),
          ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
          ...(values.model === undefined ? {} : { model: values.model }),
          ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
        }),
      )
      if (!result.ok) {
        process.stderr.write(`bridle: ${result.code}: ${result.message}\n`)
        return result.code === 'CANCELLED' ? 130 : 1
      }
      print(
        `checkpoint ${result.checkpointSeq}: replaced seq ${result.fromSeq}..${result.toSeq}, ${result.tokensBefore} -> ${result.tokensAfter} tokens (undo: bridle uncompact ${sessionId} ${result.checkpointSeq})`,
      )
      return 0
    }
    case 'uncompact': {
      const [, sessionId, seqText] = positionals
      if (sessionId === undefined || seqText === undefined)
        throw new UsageError('uncompact needs a session id and the checkpoint seq')
      const checkpointSeq = parseCount('checkpointSeq', seqText)
      await withStoreAsync(databasePath(home), (store) =>
        uncompactCommand(store, sessionId, checkpointSeq),
      )
      print(`checkpoint ${checkpointSeq} undone: its originals are back in the model's view`)
      return 0
    }
    case 'discover': {
      const found = await discoverEndpoints(
        values.port ? { ports: values.port.map((p) => parsePort(p)) } : {},
      )
      if (found.length === 0)
        print('No local model server answered on the usual ports (11434, 1234, 8080, 8000).')
      for (const endpoint of found) {
        const models = endpoint.models.map(describeListedModel).join(', ')
        print(
          `${endpoint.baseUrl}  ${endpoint.kind}  ${endpoint.error ? `${endpoint.error.code}: ${endpoint.error.message}` : models || '(no models)'}`,
        )
      }
      return 0
    }
    case 'probe': {
      const config = loadConfig(ensureHome(home))
      const report = await probeCommand({
        config,
        env: process.env,
        dataDir: home,
        ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
        ...(values.model === undefined ? {} : { model: values.model }),
        ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
        ...(values['context-tokens'] === undefined
          ? {}
          : { contextTokens: parseCount('--context-tokens', values['context-tokens']) }),
      })
      if (values.json) print(JSON.stringify(report, null, 2))
      else for (const line of probeCardLines(report)) print(line)
      return 0
    }
    case 'show': {
      const sessionId = positionals[1]
      if (sessionId === undefined) throw new UsageError('show needs a session id')
      withExistingStore(home, (store) => printTranscript(store, sessionId, print))
      return 0
    }
    case 'fork': {
      const sessionId = positionals[1]
      if (sessionId === undefined || values.at === undefined)
        throw new UsageError('fork needs a session id and --at SEQ')
      const atSeq = parseCount('--at', values.at)
      print(withExistingStore(home, (store) => forkSession(store, sessionId, atSeq)))
      return 0
    }
    case 'inspect':
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

/** `qwen3:8b (4,096 tokens: the server's default; trained for 40,960)`. */
function describeListedModel(model: ModelInfo): string {
  if (model.contextWindow === undefined) return model.id
  const source = {
    server: 'what the server runs',
    default: "the server's default",
    advertised: 'advertised; the server may run less',
  }[model.contextSource ?? 'advertised']
  const trained =
    model.trainedContext === undefined
      ? ''
      : `; trained for ${model.trainedContext.toLocaleString('en')}`
  return `${model.id} (${model.contextWindow.toLocaleString('en')} tokens: ${source}${trained})`
}

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

async function withStoreAsync<T>(dbPath: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(dbPath)
  try {
    return await body(store)
  } finally {
    store.close()
  }
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
