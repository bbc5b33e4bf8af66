import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { attachWebSocketBridge, boot } from '../../../main/core/host/index.js'
import type { Host, WebSocketBridge } from '../../../main/core/host/index.js'

let home: string
let host: Host
let server: Server
let bridge: WebSocketBridge
let port: number

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-ws-'))
  host = await boot({ home, version: '1.0.0', versions: {} })
  server = createServer((_req, res) => res.writeHead(404).end())
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

interface Opened {
  ws: WebSocket
  messages: unknown[]
  next(): Promise<unknown>
}

function open(path: string, headers: Record<string, string> = {}): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers })
    const messages: unknown[] = []
    const waiters: ((m: unknown) => void)[] = []
    ws.on('message', (data) => {
      const message: unknown = JSON.parse((data as Buffer).toString('utf8'))
      const waiter = waiters.shift()
      if (waiter) waiter(message)
      else messages.push(message)
    })
    ws.once('open', () =>
      resolve({
        ws,
        messages,
        next: () =>
          messages.length > 0
            ? Promise.resolve(messages.shift())
            : new Promise((r) => waiters.push(r)),
      }),
    )
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.once('error', reject)
  })
}

describe('the WebSocket bridge', () => {
  it('serves the contract to a client with the token and says it is ready', async () => {
    const client = await open(`/bridge?token=${bridge.token}`)
    expect(await client.next()).toEqual({
      kind: 'notify',
      topic: 'bridge/ready',
      payload: { bootId: host.bootId },
    })
    client.ws.send(JSON.stringify({ id: 7, method: 'app/info', params: {} }))
    expect(await client.next()).toEqual({
      kind: 'result',
      id: 7,
      result: {
        ok: true,
        value: expect.objectContaining({ dataDir: home, transport: 'websocket' }),
      },
    })
    client.ws.send(JSON.stringify({ id: 8, method: 'app/info', params: { nope: 1 } }))
    const invalid = (await client.next()) as { result: { ok: boolean; error: { code: string } } }
    expect(invalid.result.error.code).toBe('INVALID_PARAMS')
    client.ws.close()
  })

  it('refuses a missing or wrong token with 401', async () => {
    await expect(open('/bridge')).rejects.toThrow('HTTP 401')
    await expect(open('/bridge?token=x' + bridge.token)).rejects.toThrow('HTTP 401')
    expect(bridge.clientCount()).toBe(0)
  })

  it('refuses a foreign Origin and a non-loopback Host (DNS rebinding) with 403', async () => {
    const path = `/bridge?token=${bridge.token}`
    await expect(open(path, { Origin: 'http://evil.example' })).rejects.toThrow('HTTP 403')
    await expect(open(path, { Host: `evil.example:${port}` })).rejects.toThrow('HTTP 403')
    const sameOrigin = await open(path, { Origin: `http://127.0.0.1:${port}` })
    sameOrigin.ws.close()
  })

  it('refuses other paths with 404', async () => {
    await expect(open(`/other?token=${bridge.token}`)).rejects.toThrow('HTTP 404')
  })

  it('cuts off a client that sends a malformed frame', async () => {
    const client = await open(`/bridge?token=${bridge.token}`)
    await client.next()
    const closed = new Promise<number>((resolve) =>
      client.ws.once('close', (code) => resolve(code)),
    )
    client.ws.send('{not json')
    expect(await closed).toBe(1007)
  })
})

describe('the data folder', () => {
  it('is created owner-only', () => {
    expect(statSync(home).mode & 0o777).toBe(0o700)
  })
})
