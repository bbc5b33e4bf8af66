/**
 * Starts Bridle without its API keys in its environment. A process's initial environment stays
 * readable in `/proc/<pid>/environ` by every process of the same user for as long as it runs,
 * whatever the code later deletes; with the sandbox off, a command Bridle runs could print the key
 * of the very process that runs it. So when the environment holds a variable that may be a key
 * (`secretVariableNames`), the process replaces itself (`process.execve`: same pid, argv, stdio,
 * cwd and process group, so signals and exit codes are untouched) with one whose environment lacks
 * them, and the values cross the exec over a Unix socket:
 *
 * 1. The first process makes an owner-only temporary folder and starts a helper (a plain Node
 *    with an empty environment, detached through `/bin/sh` so it is nobody's zombie), writing the
 *    values to its stdin. The helper listens on `<folder>/s`, answers one connection with them,
 *    removes the folder and exits; unasked, it does so after `HELPER_LIFETIME_MS`.
 * 2. The first process execs itself with the variables removed and `BRIDLE_KEY_HANDOFF` naming
 *    the socket. Its new `/proc/<pid>/environ` holds no key.
 * 3. The new process, before anything else, connects (retrying while the helper starts), reads
 *    the values into memory (`launch-env.ts`), never into `process.env`.
 *
 * The values live on the helper's socket for one Node start (tens of milliseconds), before
 * Bridle has run any command. A same-user process racing for the socket in that window could take
 * them, and Bridle then refuses to start (the helper has gone) rather than run without them.
 * Where `process.execve` is missing (Windows), the values are still taken out of `process.env`,
 * so no child inherits them, but the first environment keeps them.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { secretsFromEnv } from '../core/export/redact.js'
import { resolveHome } from '../core/host/home.js'
import { rememberLaunchVariables } from './launch-env.js'
import { writeErr } from './terminal.js'

/** The variable naming the socket the keys wait on, in the environment of the exec'd process. */
export const HANDOFF_VARIABLE = 'BRIDLE_KEY_HANDOFF'

/** The helper's folder, under the temporary folder; the receiver removes only folders so named. */
const FOLDER_PREFIX = 'bridle-key-'

/** How long the new process waits for the helper to listen: a Node start on a loaded machine. */
const RECEIVE_TIMEOUT_MS = 15_000
const RETRY_MS = 10

/** The helper's whole life when nobody connects (the exec failed, or the new process died). */
const HELPER_LIFETIME_MS = 30_000

/** Longest Unix socket path Linux and macOS accept, less the terminating NUL. */
const MAX_SOCKET_PATH = 103

/**
 * Runs the helper in the background of a shell that exits at once: the helper is then the child
 * of init, not of the exec'd Bridle (which could not reap it). Its stdin is moved to fd 3 first,
 * because a background job's stdin is otherwise /dev/null.
 */
const DETACH_SCRIPT = 'exec 3<&0; "$@" <&3 3<&- >/dev/null 2>&1 &'

/** The helper (CommonJS for `node -e`; argv[1] is the socket): one answer, then gone. */
const HELPER_SCRIPT = `
const fs = require('node:fs'), net = require('node:net'), path = require('node:path')
const socket = process.argv[1]
const finish = () => {
  try { fs.rmSync(socket, { force: true }); fs.rmdirSync(path.dirname(socket)) } catch {}
  process.exit(0)
}
setTimeout(finish, ${HELPER_LIFETIME_MS})
const chunks = []
process.stdin.on('data', (chunk) => chunks.push(chunk)).on('end', () => {
  const server = net.createServer((connection) => {
    server.close()
    connection.on('error', finish)
    connection.end(Buffer.concat(chunks), finish)
  })
  server.on('error', finish)
  server.listen(socket)
})
`

/**
 * The bin's first step (`bin.ts`). Received values go to `launch-env.ts`. When the environment
 * holds possible keys, they leave `process.env` and, where possible, the process re-execs without
 * them: then this never returns. Rejects, with a message for a person, only when the exec'd
 * process cannot get the values it was promised; a failing re-exec is a warning on stderr.
 */
export async function leaveKeysOutOfEnvironment(): Promise<void> {
  const socket = process.env[HANDOFF_VARIABLE]
  if (socket !== undefined) {
    Reflect.deleteProperty(process.env, HANDOFF_VARIABLE)
    rememberLaunchVariables(await receiveKeys(socket))
    return
  }
  const names = secretVariableNames(process.env, process.argv.slice(2))
  if (names.length === 0) return
  const values: Record<string, string> = {}
  for (const name of names) {
    values[name] = process.env[name] ?? ''
    Reflect.deleteProperty(process.env, name)
  }
  rememberLaunchVariables(values)
  if (process.execve === undefined) return
  const problem = execWithout(values, process.execve.bind(process))
  writeErr(
    `bridle: warning: could not restart without the API keys in the environment (${problem}); a command can read them in /proc/${process.pid}/environ\n`,
  )
}

/**
 * The variables of `env` that may hold a key, each set and not empty: those config.json's
 * endpoints name in `apiKeyEnv`, the one `--api-key-env` names in `argv`, and every name that says
 * it holds a credential (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`: the redactor's rule).
 */
export function secretVariableNames(env: NodeJS.ProcessEnv, argv: readonly string[]): string[] {
  const named = new Set([...configuredKeyNames(env, argv), ...flagValues(argv, '--api-key-env')])
  return Object.keys(env).filter((name) => {
    const value = env[name]
    if (value === undefined || value === '' || name === HANDOFF_VARIABLE) return false
    return named.has(name) || secretsFromEnv({ [name]: value }, []).length > 0
  })
}

/** `apiKeyEnv` of config.json's endpoints, read loosely: a broken file fails later, loudly. */
function configuredKeyNames(env: NodeJS.ProcessEnv, argv: readonly string[]): string[] {
  const home = flagValues(argv, '--home').at(-1) ?? resolveHome(env)
  try {
    const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as {
      endpoints?: Record<string, { apiKeyEnv?: unknown }>
    }
    return Object.values(config.endpoints ?? {}).flatMap((endpoint) =>
      typeof endpoint.apiKeyEnv === 'string' ? [endpoint.apiKeyEnv] : [],
    )
  } catch {
    // No config.json yet, or one the command itself will refuse with a better message.
    return []
  }
}

/** The values of `--flag VALUE` and `--flag=VALUE` in `argv`, in order. */
function flagValues(argv: readonly string[], flag: string): string[] {
  return argv.flatMap((arg, i) => {
    if (arg.startsWith(`${flag}=`)) return [arg.slice(flag.length + 1)]
    const next = argv[i + 1]
    return arg === flag && next !== undefined ? [next] : []
  })
}

/** Hands `values` to a helper and execs without them; returns only on failure, saying why. */
function execWithout(
  values: Record<string, string>,
  execve: NonNullable<typeof process.execve>,
): string {
  let folder: string | undefined
  try {
    folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX))
    const socket = join(folder, 's')
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) return `${socket} is too long for a socket`
    const helper = spawnSync(
      '/bin/sh',
      ['-c', DETACH_SCRIPT, 'bridle-key-helper', process.execPath, '-e', HELPER_SCRIPT, socket],
      { input: JSON.stringify(values), stdio: ['pipe', 'ignore', 'ignore'], env: {} },
    )
    if (helper.error !== undefined) return `the helper did not start: ${helper.error.message}`
    if (helper.status !== 0) return `the helper's shell ended with ${String(helper.status)}`
    const env = { ...process.env, [HANDOFF_VARIABLE]: socket }
    const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
    execve(process.execPath, argv, env)
    return 'process.execve returned'
  } catch (error) {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true })
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * Reads the values the helper at `socket` holds, waiting while it starts. Fails when its folder
 * is gone before an answer came (another process took the values, or the helper gave up).
 */
async function receiveKeys(socket: string): Promise<Record<string, string>> {
  const folder = dirname(socket)
  if (dirname(folder) !== tmpdir() || !basename(folder).startsWith(FOLDER_PREFIX))
    throw new Error(`${HANDOFF_VARIABLE} names ${socket}, not a folder Bridle made`)
  const deadline = Date.now() + RECEIVE_TIMEOUT_MS
  for (;;) {
    try {
      const values = parseValues(await readSocket(socket))
      removeFolder(socket)
      return values
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const isStarting = code === 'ENOENT' || code === 'ECONNREFUSED'
      if (!isStarting || !existsSync(folder) || Date.now() > deadline) {
        removeFolder(socket)
        throw new Error(
          `the API keys Bridle took out of its environment at start never reached it (${describe(error, code)}); start it again`,
          { cause: error },
        )
      }
      await sleep(RETRY_MS)
    }
  }
}

function readSocket(socket: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    connect(socket)
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      .on('error', reject)
  })
}

function parseValues(text: string): Record<string, string> {
  const parsed = JSON.parse(text) as unknown
  const isRecord =
    typeof parsed === 'object' &&
    parsed !== null &&
    Object.values(parsed).every((value) => typeof value === 'string')
  if (!isRecord) throw new Error('the helper answered something else than the values')
  return parsed as Record<string, string>
}

function removeFolder(socket: string): void {
  try {
    rmSync(socket, { force: true })
    rmdirSync(dirname(socket))
  } catch {
    // The helper removes it too; whichever comes second finds it gone.
  }
}

function describe(error: unknown, code: string | undefined): string {
  if (code === 'ENOENT' || code === 'ECONNREFUSED') return 'the helper holding them is gone'
  if (error instanceof SyntaxError) return 'the helper answered something else than the values'
  return error instanceof Error ? error.message : String(error)
}
