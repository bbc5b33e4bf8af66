/**
 * One configured MCP server for one project folder, through its life: started when a session
 * first needs it, its tools listed (and listed again when it says they changed), kept while in
 * use, stopped after a while without calls, restarted by the next use after a crash, with a
 * growing wait between failed starts so a broken server is not hammered. Whatever goes wrong is
 * kept as a sentence naming the server, for the tool result, the notice and settings.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { McpScope, McpServerConfig, McpState } from '../../../protocol/mcp.js'
import { expandRecord, expandVariables } from './config.js'
import { stdioLaunch } from './launch.js'
import { GroupStdioTransport, McpGarbageError, TextTail } from './stdio-transport.js'
import { resultText } from './result-text.js'

export const DEFAULT_CALL_TIMEOUT_MS = 60_000
export const DEFAULT_START_TIMEOUT_MS = 30_000
/** A server without calls for this long is stopped (its tools stay known). */
export const DEFAULT_IDLE_MS = 10 * 60_000
const MAX_BACKOFF_MS = 60_000

/** A tool as its server lists it. */
export interface McpServerTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly readOnly: boolean
}

/** A prompt a server offers (a slash command in the composer). */
export interface McpServerPrompt {
  readonly name: string
  readonly description: string
  readonly arguments: readonly {
    readonly name: string
    readonly description: string
    readonly required: boolean
  }[]
}

/** A resource a server offers (attachable to a message). */
export interface McpServerResource {
  readonly uri: string
  readonly name: string
  readonly description: string
  readonly mimeType?: string
}

export interface ServerOptions {
  readonly name: string
  readonly config: McpServerConfig
  /** Whose entry it is: a user's server does not run in the project (see launch.ts). */
  readonly scope: McpScope
  /** The project the sessions work in: a project server's folder, every server's root. */
  readonly projectDir: string
  /** Where `${VAR}` values and the inherited variables come from. */
  readonly env: NodeJS.ProcessEnv
  readonly clientVersion: string
  readonly idleMs?: number
  /** For tests: the clock. */
  readonly now?: () => number
}

/** Why a call could not be made or failed, as the tool result's code and sentence. */
export class McpCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'McpCallError'
  }
}

interface Live {
  readonly client: Client
  readonly transport: Transport
}

export class McpServer {
  readonly stderr = new TextTail()
  private live: Live | undefined
  private starting: Promise<Live> | undefined
  private knownTools: readonly McpServerTool[] | undefined
  private failure: { reason: string; count: number; retryAt: number } | undefined
  private inFlight = 0
  private lastUsed = 0
  private idleTimer: NodeJS.Timeout | undefined
  private closing = false
  /** Why the connection ended, learnt from the transport before the SDK reports it closed. */
  private endedBecause: string | undefined
  private readonly toolListeners = new Set<(tools: readonly McpServerTool[]) => void>()
  private readonly stateListeners = new Set<() => void>()
  private readonly now: () => number

  constructor(private readonly opts: ServerOptions) {
    this.now = opts.now ?? Date.now
  }

  get name(): string {
    return this.opts.name
  }

  get config(): McpServerConfig {
    return this.opts.config
  }

  /** The tools of its last listing (kept while it is stopped), or undefined if never listed. */
  get tools(): readonly McpServerTool[] | undefined {
    return this.knownTools
  }

  get state(): Exclude<McpState, 'disabled' | 'untrusted'> {
    if (this.live) return 'running'
    if (this.starting) return 'starting'
    return this.failure ? 'failed' : 'stopped'
  }

  /** Why it failed last (and when it will be tried again), undefined when it did not. */
  get reason(): string | undefined {
    if (!this.failure || this.live) return undefined
    const wait = this.failure.retryAt - this.now()
    return wait > 0
      ? `${this.failure.reason} (next try in ${Math.ceil(wait / 1000)} s)`
      : this.failure.reason
  }

  /** Whether a start now would not be refused by the wait after a failure. */
  get mayStart(): boolean {
    return this.live !== undefined || !this.failure || this.now() >= this.failure.retryAt
  }

  onToolsChanged(listener: (tools: readonly McpServerTool[]) => void): () => void {
    this.toolListeners.add(listener)
    return () => this.toolListeners.delete(listener)
  }

  onStateChanged(listener: () => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }

  /** Running, starting it when it is not (refused during the wait after a failed start). */
  async ensure(): Promise<Live> {
    if (this.live) return this.live
    if (this.starting) return this.starting
    if (this.failure && this.now() < this.failure.retryAt)
      throw new McpCallError('MCP_SERVER_UNAVAILABLE', this.unavailableSentence())
    this.starting = this.start().finally(() => {
      this.starting = undefined
      this.changed()
    })
    this.changed()
    return this.starting
  }

  /** Calls one of its tools; every failure is an McpCallError naming the server, or the abort. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const live = await this.ensure()
    const timeout = this.opts.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    this.inFlight++
    try {
      const result = await live.client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout,
      })
      return result as CallToolResult
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error
      throw this.callError(tool, timeout, error)
    } finally {
      this.inFlight--
      this.touch()
    }
  }

  /** Its prompts (none when it offers none). Starts it when it is not running. */
  async prompts(): Promise<McpServerPrompt[]> {
    const { client } = await this.ensure()
    if (!client.getServerCapabilities()?.prompts) return []
    const timeout = this.opts.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    const prompts: McpServerPrompt[] = []
    await paginate(async (cursor) => {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, { timeout })
      for (const prompt of page.prompts)
        prompts.push({
          name: prompt.name,
          description: prompt.description ?? prompt.title ?? '',
          arguments: (prompt.arguments ?? []).map((arg) => ({
            name: arg.name,
            description: arg.description ?? '',
            required: arg.required === true,
          })),
        })
      return page.nextCursor
    })
    return prompts
  }

  /** A prompt filled in with `args`, as the text of a message (its messages' text, in order). */
  async prompt(name: string, args: Readonly<Record<string, string>>): Promise<string> {
    const { client } = await this.ensure()
    const timeout = this.opts.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    try {
      const result = await client.getPrompt({ name, arguments: { ...args } }, { timeout })
      return result.messages
        .map((message) => resultText({ content: [message.content] }))
        .filter((text) => text !== '')
        .join('\n\n')
    } catch (error) {
      throw this.callError(name, timeout, error)
    }
  }

  /** Its resources (none when it offers none). Starts it when it is not running. */
  async resources(): Promise<McpServerResource[]> {
    const { client } = await this.ensure()
    if (!client.getServerCapabilities()?.resources) return []
    const timeout = this.opts.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    const resources: McpServerResource[] = []
    await paginate(async (cursor) => {
      const page = await client.listResources(cursor === undefined ? {} : { cursor }, { timeout })
      for (const resource of page.resources)
        resources.push({
          uri: resource.uri,
          name: resource.name,
          description: resource.description ?? resource.title ?? '',
          ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
        })
      return page.nextCursor
    })
    return resources
  }

  /** A resource's text; a binary one is refused, saying so. */
  async readResource(uri: string): Promise<{ text: string; mimeType?: string }> {
    const { client } = await this.ensure()
    const timeout = this.opts.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    let contents
    try {
      contents = (await client.readResource({ uri }, { timeout })).contents
    } catch (error) {
      throw this.callError(uri, timeout, error)
    }
    const texts = contents.flatMap((item) => ('text' in item ? [item.text] : []))
    if (texts.length === 0)
      throw new McpCallError(
        'MCP_RESOURCE_BINARY',
        `The resource ${uri} of the MCP server "${this.name}" is not text (${contents[0]?.mimeType ?? 'binary'}); only text resources can be attached.`,
      )
    const mimeType = contents[0]?.mimeType
    return { text: texts.join('\n'), ...(mimeType === undefined ? {} : { mimeType }) }
  }

  /** Stops it (its process group with it); its tools stay known for the next start. */
  async stop(): Promise<void> {
    const live = this.live ?? (await this.starting?.catch(() => undefined))
    this.live = undefined
    this.clearIdle()
    if (!live) return
    this.closing = true
    try {
      await live.client.close()
    } finally {
      this.closing = false
      this.changed()
    }
  }

  /** Stops it and starts it again now, forgetting the wait after a failure. */
  async restart(): Promise<void> {
    await this.stop()
    this.failure = undefined
    await this.ensure()
  }

  /** Kills a local server's process group at once (the app is exiting). */
  killNow(): void {
    const transport = this.live?.transport
    if (transport instanceof GroupStdioTransport) transport.killNow()
  }

  private async start(): Promise<Live> {
    this.endedBecause = undefined
    let transport: Transport
    try {
      transport = this.transport()
    } catch (error) {
      throw this.failed(messageOf(error))
    }
    const client = new Client(
      { name: 'bridle', version: this.opts.clientVersion },
      { capabilities: { roots: {} } },
    )
    // The project is given as a root, so a server that works on it need not run in it.
    const root = {
      uri: pathToFileURL(this.opts.projectDir).href,
      name: basename(this.opts.projectDir),
    }
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [root] }))
    client.onerror = (error) => {
      if (error instanceof McpGarbageError) this.endedBecause = error.message
    }
    const timeout = this.opts.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
    try {
      await client.connect(transport, { timeout })
      const tools = await listAllTools(client, timeout)
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        void this.relist(client)
      })
      const live: Live = { client, transport }
      client.onclose = () => this.closed(live)
      this.live = live
      this.failure = undefined
      this.setTools(tools)
      this.touch()
      return live
    } catch (error) {
      await client.close().catch(() => undefined)
      throw this.failed(this.startFailure(error, timeout, transport))
    }
  }

  private transport(): Transport {
    const { config, env, projectDir, name, scope } = this.opts
    if ('command' in config)
      return new GroupStdioTransport({
        ...stdioLaunch({ name, scope, config, projectDir, env }),
        stderr: this.stderr,
      })
    const url = new URL(expandVariables(config.url, env, `${name}.url`))
    const requestInit = { headers: expandRecord(config.headers, env, `${name}.headers`) }
    return config.type === 'sse'
      ? // eslint-disable-next-line @typescript-eslint/no-deprecated -- servers still speak only SSE
        new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit })
  }

  private async relist(client: Client): Promise<void> {
    try {
      const timeout = this.opts.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
      this.setTools(await listAllTools(client, timeout))
    } catch (error) {
      this.stderr.push(`[bridle] listing the changed tools failed: ${messageOf(error)}\n`)
    }
  }

  private setTools(tools: readonly McpServerTool[]): void {
    const same = JSON.stringify(tools) === JSON.stringify(this.knownTools)
    this.knownTools = tools
    if (!same) for (const listener of this.toolListeners) listener(tools)
  }

  /** The connection ended: by our own stop, or by the server (a crash, garbage, the network). */
  private closed(live: Live): void {
    if (this.live !== live) return
    this.live = undefined
    this.clearIdle()
    if (!this.closing) {
      const how =
        this.endedBecause ??
        (live.transport instanceof GroupStdioTransport && live.transport.exit
          ? `it stopped (${live.transport.exit})`
          : 'the connection closed')
      // It ran well until now: the next use starts it again at once; waits are for failed starts.
      this.failed(how, { crashed: true })
    }
    this.changed()
  }

  /**
   * Remembers a failure: after the n-th failed start in a row the next start waits 2^(n-1) s (at
   * most a minute); after a crash of a server that was running, it may start again at once.
   */
  private failed(reason: string, how: { crashed?: boolean } = {}): McpCallError {
    const count = how.crashed === true ? 0 : (this.failure?.count ?? 0) + 1
    const tail = this.stderr.lastLines(3)
    const said = tail === '' ? reason : `${reason}; its last words on stderr: ${tail}`
    this.failure = {
      reason: said,
      count,
      retryAt:
        count === 0 ? this.now() : this.now() + Math.min(1000 * 2 ** (count - 1), MAX_BACKOFF_MS),
    }
    this.changed()
    return new McpCallError('MCP_SERVER_UNAVAILABLE', `The MCP server "${this.name}" ${said}.`)
  }

  private startFailure(error: unknown, timeout: number, transport: Transport): string {
    if (this.endedBecause) return this.endedBecause
    if (isMcpError(error, ErrorCode.RequestTimeout))
      return `did not finish starting within ${seconds(timeout)}`
    if (isMcpError(error, ErrorCode.ConnectionClosed))
      return `could not start: it stopped${exitOf(transport)} before it answered`
    if (!('command' in this.opts.config)) return `could not start: ${httpReason(error)}`
    return `could not start: ${messageOf(error)}`
  }

  private callError(tool: string, timeout: number, error: unknown): McpCallError {
    const server = `The MCP server "${this.name}"`
    if (error instanceof McpCallError) return error
    if (isMcpError(error, ErrorCode.RequestTimeout))
      return new McpCallError(
        'MCP_TIMEOUT',
        `${server} did not answer "${tool}" within ${seconds(timeout)}; the call was cancelled (raise "timeoutMs" for this server if it needs longer).`,
      )
    if (isMcpError(error, ErrorCode.ConnectionClosed)) {
      const why = this.failure?.reason ?? 'the connection closed'
      return new McpCallError(
        'MCP_SERVER_CRASHED',
        `${server} stopped during the call to "${tool}": ${why}. It is started again at the next call.`,
      )
    }
    if (error instanceof McpError)
      return new McpCallError('MCP_CALL_FAILED', `${server} refused "${tool}": ${error.message}`)
    return new McpCallError('MCP_CALL_FAILED', `${server} failed "${tool}": ${messageOf(error)}`)
  }

  private unavailableSentence(): string {
    return `The MCP server "${this.name}" is not available: ${this.reason ?? 'it failed'}.`
  }

  private touch(): void {
    this.lastUsed = this.now()
    this.clearIdle()
    const idleMs = this.opts.idleMs ?? DEFAULT_IDLE_MS
    this.idleTimer = setTimeout(() => {
      if (this.inFlight === 0 && this.now() - this.lastUsed >= idleMs) void this.stop()
      else this.touch()
    }, idleMs)
    this.idleTimer.unref()
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  private changed(): void {
    for (const listener of this.stateListeners) listener()
  }
}

/** Calls `page` with each cursor until it returns none (at most 100 pages). */
async function paginate(page: (cursor: string | undefined) => Promise<string | undefined>) {
  let cursor: string | undefined
  for (let count = 0; count < 100; count++) {
    cursor = await page(cursor)
    if (cursor === undefined) return
  }
}

/** Every tool of the server, across pages. */
async function listAllTools(client: Client, timeout: number): Promise<McpServerTool[]> {
  if (!client.getServerCapabilities()?.tools) return []
  const tools: McpServerTool[] = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout })
    for (const tool of listed.tools) {
      tools.push({
        name: tool.name,
        description: tool.description ?? tool.title ?? '',
        inputSchema: tool.inputSchema,
        readOnly: tool.annotations?.readOnlyHint === true,
      })
    }
    cursor = listed.nextCursor
    if (cursor === undefined) break
  }
  return tools
}

/** Why an HTTP server did not answer, in words: the network's reason, or its status. */
function httpReason(error: unknown): string {
  if (error instanceof UnauthorizedError)
    return 'the server asks for authorization (401); give a token in "headers" (signing in with OAuth is not supported)'
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    if (error.code === 401 || error.code === 403)
      return `the server refused the credentials (${error.code}); check "headers"`
    if (error.code === 404) return 'there is no MCP endpoint at that address (404); check "url"'
    return `the server answered ${error.code}: ${error.message}`
  }
  const cause =
    error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'nothing answers at that address (connection refused); is the server running?'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the address\'s host name is not known; check "url"'
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'the server did not answer in time (connection timed out)'
    case 'ECONNRESET':
      return 'the server closed the connection'
    default:
      return cause?.message ?? messageOf(error)
  }
}

function isMcpError(error: unknown, code: ErrorCode): error is McpError {
  return error instanceof McpError && error.code === (code as number)
}

function exitOf(transport: Transport): string {
  return transport instanceof GroupStdioTransport && transport.exit ? ` (${transport.exit})` : ''
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
