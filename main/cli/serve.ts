import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { attachWebSocketBridge } from '../core/host/index.js'
import type { Host, WebSocketBridge } from '../core/host/index.js'
import { serveStatic } from './static-files.js'

export interface ServeOptions {
  readonly host: Host
  readonly rendererDir: string
  readonly port: number
  readonly hostname: string
  readonly token?: string
}

export interface Serving {
  readonly url: string
  readonly token: string
  readonly server: Server
  readonly bridge: WebSocketBridge
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/**
 * `bridle serve`: the renderer and the bridge on one loopback port. The page learns the token
 * from the URL fragment, which the browser never sends to a server or a Referer.
 */
export async function startServe(opts: ServeOptions): Promise<Serving> {
  if (!LOOPBACK.has(opts.hostname)) {
    throw new Error(
      `bridle serve listens on loopback only (127.0.0.1, localhost or ::1), not ${opts.hostname}`,
    )
  }
  const server = createServer((req, res) => {
    const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '')
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostHeader)) {
      res.writeHead(403).end()
      return
    }
    serveStatic(opts.rendererDir, req, res).catch((error: unknown) => {
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
  return {
    url: `http://${hostPart}:${port}/#token=${bridge.token}`,
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
