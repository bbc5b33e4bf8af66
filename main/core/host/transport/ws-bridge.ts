import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { WebSocket } from 'ws'
import {
  MAX_PAYLOAD_BYTES,
  PAGE_SECRET_PROTOCOL_PREFIX,
  WireRequest,
} from '../../../../protocol/contract.js'
import type { WireMessage } from '../../../../protocol/contract.js'
import { dispatchCall } from '../dispatch.js'
import type { Host } from '../host.js'
import { createPageSecrets, offeredPageSecret } from './page-secrets.js'
import type { PageSecrets } from './page-secrets.js'

export const BRIDGE_PATH = '/bridge'

/** A client that lets this much unsent data pile up is too slow to follow; it is disconnected. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface WebSocketBridgeOptions {
  /** The printed secret a client presents as `?token=` (once, in a browser); fresh when omitted. */
  readonly token?: string
}

/** How a request proved it holds the token, or why it did not. */
export type Credential = 'query' | 'cookie' | 'wrong' | 'none'

export interface WebSocketBridge {
  readonly token: string
  readonly clientCount: () => number
  /**
   * How `req` presents its credential. A `?token=` that is there must be right (a wrong one is
   * 'wrong' even beside a good cookie); without one, the cookie is checked.
   */
  credential(req: IncomingMessage): Credential
  /**
   * The `Set-Cookie` value that admits a browser to later requests for files: a secret of its
   * own, not the token, because the browser also sends it to other ports of this host.
   */
  tokenCookie(req: IncomingMessage): string
  /** A fresh page secret for one admitted page (see PAGE_SECRET_FRAGMENT in the contract). */
  issuePageSecret(): string
  /** Disconnects every client and stops answering upgrades. Does not close the HTTP server. */
  close(): Promise<void>
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The name of the cookie that admits a browser after it presented the token. Cookies are scoped
 * to a host, not a port, so the port is in the name: two Bridles on one machine keep theirs apart.
 */
export function tokenCookieName(port: number): string {
  return `bridle_token_${port}`
}

/** The value of cookie `name` in a Cookie header, if present. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * See `WebSocketBridge.credential`: `token` is the printed token, `cookieSecret` what the cookie
 * carries. Constant-time comparisons throughout.
 */
export function presentedCredential(
  req: IncomingMessage,
  token: string,
  cookieSecret: string,
): Credential {
  const url = new URL(req.url ?? '/', 'http://bridge.invalid')
  const fromQuery = url.searchParams.get('token')
  if (fromQuery !== null) return sameSecret(fromQuery, token) ? 'query' : 'wrong'
  const fromCookie = readCookie(req.headers.cookie, tokenCookieName(req.socket.localPort ?? 0))
  if (fromCookie === undefined) return 'none'
  return sameSecret(fromCookie, cookieSecret) ? 'cookie' : 'wrong'
}

/**
 * HttpOnly: page script (an injection included) cannot read it. SameSite=Strict: no other site
 * makes the browser send it. No Max-Age: it ends with the browser session, and the token with
 * this process anyway. What a cookie cannot do is keep to one port: a server on another port of
 * this loopback host is sent it too when the browser visits that server, and a process behind it
 * can replay it with any Origin it likes. So the cookie carries a secret of its own, never the
 * token (which would buy a fresh page secret at admission), and admits to the app's files only,
 * which hold nothing secret; the bridge socket also needs the page secret (see `rejection`).
 */
function tokenCookieFor(req: IncomingMessage, cookieSecret: string): string {
  const name = tokenCookieName(req.socket.localPort ?? 0)
  return `${name}=${cookieSecret}; HttpOnly; SameSite=Strict; Path=/`
}

function refuse(socket: Duplex, status: 401 | 403 | 404, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

/**
 * This server's origin as the request names it (`http://127.0.0.1:PORT`), or undefined when the
 * Host header is not a loopback name with the port this socket listens on.
 */
function ownOrigin(req: IncomingMessage): string | undefined {
  const host = req.headers.host ?? ''
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host)
  if (!match?.[1] || !LOOPBACK_HOSTS.has(match[1])) return undefined
  if (Number(match[2] ?? '80') !== req.socket.localPort) return undefined
  return `http://${host}`
}

/**
 * Why an upgrade request may not connect, or undefined when it may. The Host header must name a
 * loopback address and this port (a DNS-rebinding page cannot pass), and an Origin, when sent,
 * must be exactly this server's, port included. Then either the printed token is in the query
 * (a client outside a browser), or three things hold together: the cookie, a browser's Origin,
 * and a page secret this server issued (offered as a subprotocol). The cookie alone never admits:
 * the browser also sends it to servers on other ports of this host, which can replay it with a
 * forged Origin; the page secret only ever reached the page of this origin.
 */
function rejection(
  req: IncomingMessage,
  token: string,
  cookieSecret: string,
  secrets: PageSecrets,
): { status: 401 | 403 | 404; reason: string } | undefined {
  const url = new URL(req.url ?? '/', 'http://bridge.invalid')
  if (url.pathname !== BRIDGE_PATH) return { status: 404, reason: 'Not Found' }
  const origin = ownOrigin(req)
  if (origin === undefined) return { status: 403, reason: 'Forbidden' }
  const sentOrigin = req.headers.origin
  if (sentOrigin !== undefined && sentOrigin !== origin) return { status: 403, reason: 'Forbidden' }
  const credential = presentedCredential(req, token, cookieSecret)
  if (credential === 'query') return undefined
  if (credential === 'cookie' && sentOrigin !== undefined) {
    const secret = offeredPageSecret(req.headers['sec-websocket-protocol'])
    if (secret !== undefined && secrets.accept(secret)) return undefined
  }
  return { status: 401, reason: 'Unauthorized' }
}

/** Echoes the page-secret subprotocol a browser offered (it fails the socket otherwise). */
function chooseProtocol(protocols: Set<string>): string | false {
  return [...protocols].find((p) => p.startsWith(PAGE_SECRET_PROTOCOL_PREFIX)) ?? false
}

/**
 * Serves the bridge contract over WebSocket on an existing HTTP server, at `/bridge?token=…` (or,
 * in a browser, `/bridge` with the cookie `bridle serve` sets plus the page secret; see `rejection`).
 * Each text frame is a `WireRequest`; each reply a `WireMessage`. Calls go through
 * `dispatchCall`, exactly as Electron IPC calls do, so both transports behave alike.
 */
export function attachWebSocketBridge(
  server: Server,
  host: Host,
  opts: WebSocketBridgeOptions = {},
): WebSocketBridge {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  const cookieSecret = randomBytes(24).toString('base64url')
  const secrets = createPageSecrets()
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_PAYLOAD_BYTES,
    handleProtocols: chooseProtocol,
  })

  const send = (ws: WebSocket, message: WireMessage): void => {
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1013, 'client too slow')
      return
    }
    ws.send(JSON.stringify(message))
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const refused = rejection(req, token, cookieSecret, secrets)
    if (refused) {
      refuse(socket, refused.status, refused.reason)
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  }
  server.on('upgrade', onUpgrade)

  wss.on('connection', (ws: WebSocket) => {
    const stop = host.onNotification((topic, payload) =>
      send(ws, { kind: 'notify', topic, payload }),
    )
    ws.on('close', stop)
    ws.on('error', stop)
    ws.on('message', (data, isBinary) => {
      let request: WireRequest
      try {
        if (isBinary) throw new Error('binary frames are not part of the protocol')
        const text = Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.isBuffer(data)
            ? data
            : Buffer.from(data)
        const parsed = WireRequest.safeParse(JSON.parse(text.toString('utf8')))
        if (!parsed.success) throw new Error('not a bridge request')
        request = parsed.data
      } catch {
        // Without a request id there is nobody to answer; a client speaking garbage is cut off.
        ws.close(1007, 'malformed bridge request')
        return
      }
      void dispatchCall(host, request.method, request.params, { transport: 'websocket' }).then(
        (result) => send(ws, { kind: 'result', id: request.id, result }),
      )
    })
    send(ws, { kind: 'notify', topic: 'bridge/ready', payload: { bootId: host.bootId } })
  })

  return {
    token,
    clientCount: () => wss.clients.size,
    credential: (req) => presentedCredential(req, token, cookieSecret),
    tokenCookie: (req) => tokenCookieFor(req, cookieSecret),
    issuePageSecret: () => secrets.issue(),
    close() {
      server.off('upgrade', onUpgrade)
      for (const ws of wss.clients) ws.terminate()
      return new Promise((resolve) => wss.close(() => resolve()))
    },
  }
}
