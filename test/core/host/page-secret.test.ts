/**
 * The bridge socket of `bridle serve` needs the page secret as well as the cookie: a browser sends
 * the cookie to every port of the host, so the cookie alone must never open the bridge. These
 * tests open real sockets against a real HTTP server on loopback; the browser side is in
 * test/e2e/serve-cookie-port.e2e.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { attachWebSocketBridge, boot } from '../../../main/core/host/index.js'
import type { Host, WebSocketBridge } from '../../../main/core/host/index.js'
import {
  createPageSecrets,
  offeredPageSecret,
  UNCLAIMED_SECRET_MS,
} from '../../../main/core/host/transport/page-secrets.js'
import { PAGE_SECRET_PROTOCOL_PREFIX } from '../../../protocol/contract.js'
import {
  PAGE_SECRET_STORAGE_KEY,
  takePageSecret,
} from '../../../renderer/src/bridge/page-secret.js'

describe('page secrets', () => {
  it('accepts only a secret it issued; an unused one expires, a used one lasts', () => {
    let clock = 1_000
    const secrets = createPageSecrets(() => clock)
    const used = secrets.issue()
    const unused = secrets.issue()
    expect(used).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(secrets.accept('guess')).toBe(false)
    expect(secrets.accept(used.slice(0, -1) + (used.endsWith('A') ? 'B' : 'A'))).toBe(false)
    expect(secrets.accept(used)).toBe(true)
    clock += UNCLAIMED_SECRET_MS + 1
    expect(secrets.accept(unused)).toBe(false)
    expect(secrets.accept(used)).toBe(true)
  })

  it('reads the secret from the offered subprotocols', () => {
    expect(offeredPageSecret(`chat, ${PAGE_SECRET_PROTOCOL_PREFIX}abc`)).toBe('abc')
    expect(offeredPageSecret('chat')).toBeUndefined()
    expect(offeredPageSecret(undefined)).toBeUndefined()
  })
})

describe('the page takes its secret', () => {
  const page = (hash: string, store: Map<string, string> | 'refuses') => {
    const replaced: string[] = []
    return {
      replaced,
      win: {
        location: { hash, pathname: '/', search: '?x=1' },
        history: {
          state: null,
          replaceState: (_data: unknown, _unused: string, url: string) => void replaced.push(url),
        },
        sessionStorage: {
          getItem: (key: string) => {
            if (store === 'refuses') throw new Error('storage disabled')
            return store.get(key) ?? null
          },
          setItem: (key: string, value: string) => {
            if (store === 'refuses') throw new Error('storage disabled')
            store.set(key, value)
          },
        },
      },
    }
  }

  it('from the fragment, which leaves the address; then from sessionStorage', () => {
    const store = new Map<string, string>()
    const admitted = page('#bridle-page=s3cret', store)
    expect(takePageSecret(admitted.win)).toBe('s3cret')
    expect(admitted.replaced).toEqual(['/?x=1'])
    expect(store.get(PAGE_SECRET_STORAGE_KEY)).toBe('s3cret')
    const reloaded = page('', store)
    expect(takePageSecret(reloaded.win)).toBe('s3cret')
    expect(reloaded.replaced).toEqual([])
  })

  it('holds none when never admitted; storage that refuses costs only the reload', () => {
    expect(takePageSecret(page('', new Map()).win)).toBeUndefined()
    expect(takePageSecret(page('#bridle-page=s', 'refuses').win)).toBe('s')
    expect(takePageSecret(page('', 'refuses').win)).toBeUndefined()
  })
})

let home: string
let host: Host
let server: Server
let bridge: WebSocketBridge
let port: number

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-page-secret-'))
  host = await boot({ home, version: '1.0.0', versions: {} })
  // Like serve's admission: every request is answered with the cookie.
  server = createServer((req, res) =>
    res.writeHead(204, { 'Set-Cookie': bridge.tokenCookie(req) }).end(),
  )
  bridge = attachWebSocketBridge(server, host)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})

afterEach(async () => {
  await bridge.close()
  await new Promise((resolve) => server.close(resolve))
  await host.close()
  rmSync(home, { recursive: true, force: true })
})

/** Opens the bridge like a browser would; 'open:<echoed protocol>' or the refusal's status. */
function attempt(
  headers: Record<string, string>,
  secret?: string,
): Promise<`open:${string}` | number> {
  return new Promise((resolve, reject) => {
    const protocols = secret === undefined ? [] : [PAGE_SECRET_PROTOCOL_PREFIX + secret]
    const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge`, protocols, { headers })
    ws.once('open', () => {
      resolve(`open:${ws.protocol}`)
      ws.close()
    })
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', reject)
  })
}

describe('the bridge socket in a browser', () => {
  const own = () => `http://127.0.0.1:${port}`
  let cookie = ''
  beforeEach(async () => {
    const admitted = await fetch(`http://127.0.0.1:${port}/`)
    cookie = (admitted.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    expect(cookie).toMatch(new RegExp(`^bridle_token_${port}=.+`))
  })

  it('the cookie carries a secret of its own, never the token', () => {
    expect(cookie).not.toContain(bridge.token)
  })

  it('opens with the cookie, its own Origin and an issued secret, and echoes the protocol', async () => {
    const secret = bridge.issuePageSecret()
    expect(await attempt({ Cookie: cookie, Origin: own() }, secret)).toBe(
      `open:${PAGE_SECRET_PROTOCOL_PREFIX}${secret}`,
    )
    // The same tab reconnects with it.
    expect(await attempt({ Cookie: cookie, Origin: own() }, secret)).toMatch(/^open:/)
  })

  it('refuses the replayed cookie without the secret, whatever the Origin says', async () => {
    expect(await attempt({ Cookie: cookie, Origin: own() })).toBe(401)
    expect(await attempt({ Cookie: cookie })).toBe(401)
    expect(await attempt({ Cookie: cookie, Origin: own() }, 'guessed')).toBe(401)
    expect(await attempt({ Cookie: cookie, Origin: own() }, bridge.token)).toBe(401)
    expect(bridge.clientCount()).toBe(0)
  })

  it('refuses a good secret without the cookie, without an Origin, or from another origin', async () => {
    const secret = bridge.issuePageSecret()
    expect(await attempt({ Origin: own() }, secret)).toBe(401)
    expect(await attempt({ Cookie: cookie }, secret)).toBe(401)
    expect(await attempt({ Cookie: cookie, Origin: `http://127.0.0.1:${port + 1}` }, secret)).toBe(
      403,
    )
    expect(await attempt({ Cookie: cookie, Origin: 'http://127.0.0.1' }, secret)).toBe(403)
    // A Host naming another port cannot make another port's Origin look like this server's.
    const otherPort = `127.0.0.1:${port + 1}`
    expect(
      await attempt({ Cookie: cookie, Host: otherPort, Origin: `http://${otherPort}` }, secret),
    ).toBe(403)
    expect(bridge.clientCount()).toBe(0)
  })
})
