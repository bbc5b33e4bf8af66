import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PAGE_SECRET_FRAGMENT } from '../../protocol/contract.js'
import { attachWebSocketBridge } from '../core/host/index.js'
import type { Host, WebSocketBridge } from '../core/host/index.js'
import { REFUSAL_CSP, serveCsp } from '../core/host/transport/csp.js'
import { securityHeaders, serveStatic } from './static-files.js'

export interface ServeOptions {
  readonly host: Host
  readonly rendererDir: string
  readonly port: number
  readonly hostname: string
  readonly token?: string
}

export interface Serving {
  /** The address to open: the origin plus `/?token=…`. */
  readonly url: string
  /** `http://127.0.0.1:PORT`, without the token. */
  readonly origin: string
  readonly token: string
  readonly server: Server
  readonly bridge: WebSocketBridge
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
const LOOPBACK_HOST_HEADERS = new Set(['127.0.0.1', 'localhost', '[::1]'])

const HOW_TO_CONNECT =
  'Bridle: this address needs its token. Open the full address that `bridle serve` printed ' +
  '(it ends in /?token=...); a token from an earlier run of serve no longer works.\n'

function refuse(res: ServerResponse, status: 401 | 403, body: string): void {
  res.writeHead(status, {
    ...securityHeaders(REFUSAL_CSP),
    'Content-Type': 'text/plain; charset=utf-8',
  })
  res.end(body)
}

/**
 * The first request carries `?token=`: answer with the cookie and send the browser to the same
 * address without the token, so it leaves the address bar and the history. Always a path on this
 * server: a request for `//evil.example` must not turn into a redirect to another host. The
 * fragment carries a fresh page secret for the bridge socket: a fragment is never sent to a
 * server, so unlike the cookie no other port of this host ever sees it (the page removes it).
 */
function admit(
  req: IncomingMessage,
  res: ServerResponse,
  cookie: string,
  pageSecret: string,
): void {
  const url = new URL(req.url ?? '/', 'http://serve.invalid')
  url.searchParams.delete('token')
  const path = `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`
  res.writeHead(303, {
    ...securityHeaders(REFUSAL_CSP),
    Location: `${path}#${PAGE_SECRET_FRAGMENT}=${pageSecret}`,
    'Set-Cookie': cookie,
  })
  res.end()
}

/**
 * `bridle serve`: the renderer and the bridge on one loopback port. Every HTTP request and the
 * WebSocket upgrade need the token: in the query of the printed address once, then in the
 * HttpOnly cookie that answer sets. Without it a request gets 401 and a line of text, nothing of
 * the app. The Host header must be loopback (no DNS rebinding). The bridge socket needs more than
 * the cookie, which the browser sends to every port of this host: its Origin must be this server,
 * port included, and it must offer the page secret admission put in the page's address fragment.
 * No response carries a CORS header, so no other origin may read one.
 */
export async function startServe(opts: ServeOptions): Promise<Serving> {
  if (!LOOPBACK.has(opts.hostname)) {
    throw new Error(
      `bridle serve listens on loopback only (127.0.0.1, localhost or ::1), not ${opts.hostname}`,
    )
  }
  let csp = REFUSAL_CSP
  const server = createServer((req, res) => {
    const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '')
    if (!LOOPBACK_HOST_HEADERS.has(hostHeader)) {
      refuse(res, 403, 'Bridle: this server answers to loopback addresses only.\n')
      return
    }
    const credential = bridge.credential(req)
    if (credential === 'query') {
      admit(req, res, bridge.tokenCookie(req), bridge.issuePageSecret())
      return
    }
    if (credential !== 'cookie') {
      refuse(res, 401, HOW_TO_CONNECT)
      return
    }
    serveStatic(opts.rendererDir, req, res, csp).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
      console.error('[bridle] serving a file failed:', error)
    })
  })
  const bridge = attachWebSocketBridge(server, opts.host, opts.token ? { token: opts.token } : {})
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.hostname, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const hostPart = opts.hostname === '::1' ? '[::1]' : opts.hostname
  const origin = `http://${hostPart}:${port}`
  csp = serveCsp(`ws://${hostPart}:${port}`)
  return {
    url: `${origin}/?token=${bridge.token}`,
    origin,
    token: bridge.token,
    server,
    bridge,
    async close() {
      await bridge.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
