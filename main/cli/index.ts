#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { boot, dispatchCall, resolveHome, runtimeVersions } from '../core/host/index.js'
import { startServe } from './serve.js'

const USAGE = `Bridle: a desktop agent harness whose event log is the truth.

Usage: bridle <command> [options]

Commands:
  info                      Print the app info (version, data folder, platform) as JSON.
  serve                     Serve the UI and the bridge on a loopback port, for a browser.
      --port N              Port to listen on (default 7420; 0 picks a free one).
      --host ADDR           127.0.0.1 (default), localhost or ::1; never a public address.
      --renderer DIR        The built renderer to serve (default: out/renderer; npm run build).
  help                      Print this help.

Options for every command:
  --home DIR                The data folder (default: $BRIDLE_HOME, else ~/.bridle).
  -h, --help                Print this help.
  -v, --version             Print the version.

Examples:
  npm run bridle -- info
  npm run bridle -- serve --port 0
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
    default:
      throw new UsageError(`unknown command "${command}"; run \`bridle --help\` for the list`)
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
