import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ServeProcess {
  /** The address serve printed: `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string
  /** `http://127.0.0.1:PORT`, no token. */
  readonly origin: string
  readonly token: string
  readonly home: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

const repoRoot = join(import.meta.dirname, '..', '..')

/**
 * Starts `bridle serve --port 0` as a real child process with a fresh data folder and waits for
 * the address it prints, with `env` added to the environment. The renderer must have been built
 * (`npm run test:e2e` builds first).
 */
export async function startServeProcess(
  extraArgs: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
  /** Written to the data folder's config.json before serve starts. */
  config?: Readonly<Record<string, unknown>>,
  /** Fills the data folder before serve starts (a long history written through the store). */
  seed?: (home: string) => void,
): Promise<ServeProcess> {
  const home = mkdtempSync(join(tmpdir(), 'bridle-e2e-'))
  if (config !== undefined) writeFileSync(join(home, 'config.json'), JSON.stringify(config))
  seed?.(home)
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'node_modules/tsx/dist/cli.mjs'),
      'main/cli/index.ts',
      'serve',
      '--port',
      '0',
      '--home',
      home,
      ...extraArgs,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  )
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`bridle serve printed no address:\n${output}`)),
      20_000,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /serving at (http:\/\/\S+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`bridle serve exited with ${code}:\n${output}`))
    })
  })
  const printed = new URL(url)
  const token = printed.searchParams.get('token')
  if (!token) throw new Error(`bridle serve printed an address without a token: ${url}`)
  return {
    url,
    origin: printed.origin,
    token,
    home,
    child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(home, { recursive: true, force: true })
    },
  }
}
