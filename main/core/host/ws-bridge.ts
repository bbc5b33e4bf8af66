import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { WebSocket } from 'ws'
import { MAX_PAYLOAD_BYTES, WireRequest } from '../../../preload/contract.js'
import type { WireMessage } from '../../../preload/contract.js'
import { dispatchCall } from './dispatch.js'
import type { Host } from './host.js'

export const BRIDGE_PATH = '/bridge'

/** A client that lets this much unsent data pile up is too slow to follow; it is disconnected. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface WebSocketBridgeOptions {
  /** The secret a client must present as `?token=`; a fresh random one when omitted. */
  readonly token?: string
}

export interface WebSocketBridge {
  readonly token: string
  readonly clientCount: () => number
  /** Disconnects every client and stops answering upgrades. Does not close the HTTP server. */
  close(): Promise<void>
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function refuse(socket: Duplex, status: 401 | 403 | 404, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

/**
 * Why an upgrade request may not connect, or undefined when it may. The Host header must name a
 * loopback address (a DNS-rebinding page cannot pass), a browser's Origin must be this very server,
 * and the token must match.
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
  if (!sameSecret(url.searchParams.get('token') ?? '', token)) {
    return { status: 401, reason: 'Unauthorized' }
  }
  return undefined
}

/**
 * Serves the bridge contract over WebSocket on an existing HTTP server, at `/bridge?token=…`.
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
    close() {
      server.off('upgrade', onUpgrade)
      for (const ws of wss.clients) ws.terminate()
      return new Promise((resolve) => wss.close(() => resolve()))
    },
  }
}
