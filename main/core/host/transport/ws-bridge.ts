import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { WebSocket } from 'ws'
import { MAX_PAYLOAD_BYTES, WireRequest } from '../../../../protocol/contract.js'
import type { WireMessage } from '../../../../protocol/contract.js'
import { dispatchCall } from '../dispatch.js'
import type { Host } from '../host.js'

export const BRIDGE_PATH = '/bridge'

/** A client that lets this much unsent data pile up is too slow to follow; it is disconnected. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface WebSocketBridgeOptions {
  /** The secret a client must present (`?token=` or the cookie); a fresh random one when omitted. */
  readonly token?: string
}

/** How a request proved it holds the token, or why it did not. */
export type Credential = 'query' | 'cookie' | 'wrong' | 'none'

export interface WebSocketBridge {
  readonly token: string
  readonly clientCount: () => number
  /**
   * How `req` presents the token. A `?token=` that is there must be right (a wrong one is
   * 'wrong' even beside a good cookie); without one, the cookie is checked.
   */
  credential(req: IncomingMessage): Credential
  /** The `Set-Cookie` value that lets a browser present the token on later requests. */
  tokenCookie(req: IncomingMessage): string
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
 * The cookie that carries the token in a browser. Cookies are scoped to a host, not a port, so
 * the port is in the name: two Bridles on one machine keep their cookies apart.
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

/** See `WebSocketBridge.credential`. Constant-time comparisons throughout. */
export function presentedCredential(req: IncomingMessage, token: string): Credential {
  const url = new URL(req.url ?? '/', 'http://bridge.invalid')
  const fromQuery = url.searchParams.get('token')
  if (fromQuery !== null) return sameSecret(fromQuery, token) ? 'query' : 'wrong'
  const fromCookie = readCookie(req.headers.cookie, tokenCookieName(req.socket.localPort ?? 0))
  if (fromCookie === undefined) return 'none'
  return sameSecret(fromCookie, token) ? 'cookie' : 'wrong'
}

/**
 * HttpOnly: page script (an injection included) cannot read it. SameSite=Strict: no other site
 * makes the browser send it. No Max-Age: it ends with the browser session, and the token with
 * this process anyway. What a cookie cannot do is keep to one port: a server on another port of
 * this loopback host is sent it too when the browser visits that server. Pages there are still
 * refused by the Origin check, but a process behind such a server (another local user's, say)
 * could replay it from outside a browser until this serve stops.
 */
function tokenCookieFor(req: IncomingMessage, token: string): string {
  return `${tokenCookieName(req.socket.localPort ?? 0)}=${token}; HttpOnly; SameSite=Strict; Path=/`
}

function refuse(socket: Duplex, status: 401 | 403 | 404, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

/**
 * Why an upgrade request may not connect, or undefined when it may. The Host header must name a
 * loopback address (a DNS-rebinding page cannot pass), a browser's Origin must be this very server
 * (a page of another origin, even one the browser sends the cookie for, cannot connect), and the
 * token must match, from the query or the cookie.
 */
function rejection(
  req: IncomingMessage,
  token: string,
): { status: 401 | 403 | 404; reason: string } | undefined {
  const url = new URL(req.url ?? '/', 'http://bridge.invalid')
  if (url.pathname !== BRIDGE_PATH) return { status: 404, reason: 'Not Found' }
  const host = req.headers.host ?? ''
  const hostname = host.replace(/:\d+$/, '')
  if (!LOOPBACK_HOSTS.has(hostname)) return { status: 403, reason: 'Forbidden' }
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `http://${host}`)
    return { status: 403, reason: 'Forbidden' }
  const credential = presentedCredential(req, token)
  if (credential !== 'query' && credential !== 'cookie') {
    return { status: 401, reason: 'Unauthorized' }
  }
  return undefined
}

/**
 * Serves the bridge contract over WebSocket on an existing HTTP server, at `/bridge?token=…` (or
 * `/bridge` with the token cookie that `bridle serve` sets in a browser).
 * Each text frame is a `WireRequest`; each reply a `WireMessage`. Calls go through
 * `dispatchCall`, exactly as Electron IPC calls do, so both transports behave alike.
 */
export function attachWebSocketBridge(
  server: Server,
  host: Host,
  opts: WebSocketBridgeOptions = {},
): WebSocketBridge {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES })

  const send = (ws: WebSocket, message: WireMessage): void => {
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1013, 'client too slow')
      return
    }
    ws.send(JSON.stringify(message))
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const refused = rejection(req, token)
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
    credential: (req) => presentedCredential(req, token),
    tokenCookie: (req) => tokenCookieFor(req, token),
    close() {
      server.off('upgrade', onUpgrade)
      for (const ws of wss.clients) ws.terminate()
      return new Promise((resolve) => wss.close(() => resolve()))
    },
  }
}
