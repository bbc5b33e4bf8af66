/**
 * The stdio transport of a local MCP server, ours rather than the SDK's because of what the
 * server may leave behind: the server leads its own process group (an `npx` wrapper and the node
 * it starts go together), so closing ends the whole group, and nothing it spawned outlives the
 * app. Its stderr is kept, bounded, for the user; a line on stdout that is not JSON-RPC ends the
 * connection with what was sent, rather than leaving a call to wait for its timeout.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** The last `limit` characters written to it, cut at a line start when it can be. */
export class TextTail {
  private text = ''
  constructor(private readonly limit = 64 * 1024) {}

  push(chunk: string): void {
    this.text += chunk
    if (this.text.length <= this.limit) return
    const cut = this.text.length - this.limit
    const lineStart = this.text.indexOf('\n', cut)
    this.text = this.text.slice(lineStart >= 0 && lineStart - cut < 1024 ? lineStart + 1 : cut)
  }

  toString(): string {
    return this.text
  }

  /** The last few lines, for an error message. */
  lastLines(count = 5): string {
    return this.text.trimEnd().split('\n').slice(-count).join('\n')
  }
}

export interface StdioServerSpawn {
  readonly command: string
  readonly args: readonly string[]
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** Where its stderr goes (kept across restarts by the owner). */
  readonly stderr: TextTail
}

/** How long a server gets to exit after its stdin closes, then after SIGTERM. */
const GRACE_MS = 1500
/** A single line longer than this is not a message a client should buffer. */
const MAX_LINE_BYTES = 32 * 1024 * 1024

export class GroupStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  private child: ChildProcess | undefined
  private pending: Buffer = Buffer.alloc(0)
  private exited: Promise<void> | undefined
  /** How the process ended, once it has: `exit code 1`, `signal SIGKILL`. */
  exit: string | undefined

  constructor(private readonly params: StdioServerSpawn) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the server was already started')
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        cwd: this.params.cwd,
        env: this.params.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      })
      this.child = child
      this.exited = new Promise((done) => child.once('close', () => done()))
      child.once('error', (error: NodeJS.ErrnoException) => {
        const why =
          error.code === 'ENOENT'
            ? `the program "${this.params.command}" was not found (is it installed and on PATH?)`
            : error.code === 'EACCES'
              ? `the program "${this.params.command}" may not be run (permission denied)`
              : `"${this.params.command}" could not start: ${error.message}`
        const failure = new Error(why)
        reject(failure)
        this.onerror?.(failure)
      })
      child.once('spawn', () => resolve())
      child.once('close', (code, signal) => {
        this.exit = signal ? `signal ${signal}` : `exit code ${code ?? '?'}`
        this.child = undefined
        this.onclose?.()
      })
      child.stdin.on('error', (error) => this.onerror?.(error))
      child.stdout.on('data', (chunk: Buffer) => this.read(chunk))
      child.stderr.setEncoding('utf8')
      child.stderr.on('data', (chunk: string) => this.params.stderr.push(chunk))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('the server is not running'))
    return new Promise((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()))
    })
  }

  /** Ends the server and its process group: stdin closed, then SIGTERM, then SIGKILL. */
  async close(): Promise<void> {
    const child = this.child
    if (!child) return
    child.stdin?.end()
    if (await settlesWithin(this.exited, GRACE_MS)) return
    killGroup(child, 'SIGTERM')
    if (await settlesWithin(this.exited, GRACE_MS)) return
    killGroup(child, 'SIGKILL')
    await this.exited
  }

  /** Ends the group at once, synchronously (the app is quitting). */
  killNow(): void {
    if (this.child) killGroup(this.child, 'SIGKILL')
  }

  private read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    for (;;) {
      const end = this.pending.indexOf(0x0a)
      if (end < 0) break
      const line = this.pending.toString('utf8', 0, end).replace(/\r$/, '')
      this.pending = this.pending.subarray(end + 1)
      if (line.trim() === '') continue
      let message: JSONRPCMessage
      try {
        message = deserializeMessage(line)
      } catch {
        this.fail(`it wrote something that is not MCP on stdout: "${clip(line)}"`)
        return
      }
      this.onmessage?.(message)
    }
    if (this.pending.length > MAX_LINE_BYTES)
      this.fail(`it wrote a line of more than ${MAX_LINE_BYTES / 1024 / 1024} MB on stdout`)
  }

  private fail(why: string): void {
    this.pending = Buffer.alloc(0)
    this.onerror?.(new McpGarbageError(why))
    void this.close()
  }
}

/** The server broke the protocol on its stdout. */
export class McpGarbageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'McpGarbageError'
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // Already gone.
    }
  }
}

async function settlesWithin(promise: Promise<void> | undefined, ms: number): Promise<boolean> {
  if (!promise) return true
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  const done = await Promise.race([promise.then(() => true as const), timeout])
  clearTimeout(timer)
  return done
}

function clip(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`
}
