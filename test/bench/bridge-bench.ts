import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { attachWebSocketBridge, boot, dispatchCall } from '../../main/core/host/index.js'
import { Kernel } from '../../main/core/kernel/index.js'
import type { Emit, Waterfall } from '../../main/core/kernel/index.js'
import { figure, time } from './figures.js'
import type { Figure } from './figures.js'

type BenchEvents = {
  tick: Emit<number>
  wrap: Waterfall<number, number>
}

/** The kernel's event modes and the bridge's call path. */
export async function benchBridge(): Promise<Figure[]> {
  const kernel = new Kernel<BenchEvents>()
  await kernel.load({
    name: 'bench',
    setup(ctx) {
      for (let i = 0; i < 10; i++) {
        ctx.on('tick', () => undefined)
        ctx.on('wrap', (n, next) => next(n + 1))
      }
    },
  })
  const figures: Figure[] = []
  const emits = 200_000
  const emitMs = await time(() => {
    for (let i = 0; i < emits; i++) kernel.emit('tick', i, { scope: 's1' })
  })
  figures.push(figure('kernel emit, 10 listeners', (emitMs * 1000) / emits, 'µs/op'))
  const waterfalls = 50_000
  const waterfallMs = await time(async () => {
    for (let i = 0; i < waterfalls; i++) await kernel.waterfall('wrap', i, (n) => n)
  })
  figures.push(figure('kernel waterfall, 10 listeners', (waterfallMs * 1000) / waterfalls, 'µs/op'))

  const home = mkdtempSync(join(tmpdir(), 'bridle-bench-'))
  const host = await boot({ home, version: '0.0.0', versions: {} })
  const calls = 50_000
  const callMs = await time(async () => {
    for (let i = 0; i < calls; i++)
      await dispatchCall(host, 'app/info', {}, { transport: 'in-process' })
  })
  figures.push(figure('dispatchCall app/info in-process', (callMs * 1000) / calls, 'µs/op'))

  const server = createServer()
  const bridge = attachWebSocketBridge(server, host)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge?token=${bridge.token}`)
  await new Promise((resolve) => ws.once('open', resolve))
  const trips = 5_000
  let nextId = 0
  const tripMs = await time(async () => {
    for (let i = 0; i < trips; i++) {
      const id = nextId++
      await new Promise<void>((resolve) => {
        const onMessage = (data: Buffer) => {
          if ((JSON.parse(data.toString('utf8')) as { id?: number }).id !== id) return
          ws.off('message', onMessage)
          resolve()
        }
        ws.on('message', onMessage)
        ws.send(JSON.stringify({ id, method: 'app/info', params: {} }))
      })
    }
  })
  figures.push(figure('WebSocket bridge round trip app/info', (tripMs * 1000) / trips, 'µs/op'))
  ws.close()
  await bridge.close()
  await new Promise((resolve) => server.close(resolve))
  await host.close()
  rmSync(home, { recursive: true, force: true })
  return figures
}
