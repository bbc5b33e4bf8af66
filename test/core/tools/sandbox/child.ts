/**
 * A real Node parent for a sandboxed command, as the harness is: a child process of the test,
 * with its own environment (holding a fake key), that spawns bwrap detached the way the bash tool
 * does. The tests read its output, or kill it with SIGKILL.
 */
import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'

/** What the parent runs: `spawn(file, args, { env, detached: true })`. */
export interface ChildSpec {
  readonly file: string
  readonly args: readonly string[]
  readonly env: Record<string, string>
}

/**
 * The parent's program. It prints `spawned <pid>` on stderr once bwrap runs, relays the
 * command's output on stdout, and exits with its code.
 */
const PARENT = `
import { spawn } from 'node:child_process'
const { file, args, env } = JSON.parse(process.argv[1])
const child = spawn(file, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
let out = ''
child.stdout.on('data', (d) => (out += d))
child.stderr.on('data', (d) => (out += d))
child.once('spawn', () => process.stderr.write('spawned ' + child.pid + '\\n'))
child.once('close', (code) => {
  process.stdout.write(out)
  process.exit(code ?? 1)
})
`

/** Starts the parent with `parentEnv` as its own environment. */
export function startParent(
  spec: ChildSpec,
  parentEnv: Record<string, string>,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--input-type=module', '-e', PARENT, JSON.stringify(spec)], {
    env: parentEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

/** Runs the parent to its end; resolves with what it relayed. */
export function runParent(spec: ChildSpec, parentEnv: Record<string, string>): Promise<string> {
  const parent = startParent(spec, parentEnv)
  let out = ''
  parent.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  return new Promise((resolve, reject) => {
    parent.once('error', reject)
    parent.once('close', () => resolve(out))
  })
}
