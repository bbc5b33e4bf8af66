/**
 * `npm run bench`: figures for the hot paths built so far, printed as a table. Numbers, not
 * pass/fail: compare them across commits on the same machine.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { Kernel } from '../../main/core/kernel/index.js'
import type { Emit, Waterfall } from '../../main/core/kernel/index.js'
import { attachWebSocketBridge, boot, dispatchCall } from '../../main/core/host/index.js'

interface Figure {
  name: string
  ops: number
  ms: number
}

const figures: Figure[] = []

async function measure(name: string, ops: number, body: () => Promise<void> | void) {
  await body() // warm-up
  const started = performance.now()
  await body()
  figures.push({ name, ops, ms: performance.now() - started })
}

type BenchEvents = {
  tick: Emit<number>
  wrap: Waterfall<number, number>
}

const kernel = new Kernel<BenchEvents>()
await kernel.load({
  name: 'bench',
  setup(ctx) {
    for (let i = 0; i < 10; i++) {
      ctx.on('tick', () => undefined)
      ctx.on('wrap', (n, next) => next(n + 1))
    }
    ctx.on('tick', () => undefined, { scope: 'other-session' })
  },
})

const N = 200_000
await measure(`kernel emit, 10 listeners (x${N})`, N, () => {
  for (let i = 0; i < N; i++) kernel.emit('tick', i, { scope: 's1' })
})
const W = 50_000
await measure(`kernel waterfall, 10 listeners (x${W})`, W, async () => {
  for (let i = 0; i < W; i++) await kernel.waterfall('wrap', i, (n) => n)
})

const home = mkdtempSync(join(tmpdir(), 'bridle-bench-'))
const host = await boot({ home, version: '0.0.0', versions: {} })
const D = 50_000
await measure(`dispatchCall app/info in-process (x${D})`, D, async () => {
  for (let i = 0; i < D; i++) await dispatchCall(host, 'app/info', {}, { transport: 'in-process' })
})

const server = createServer()
const bridge = attachWebSocketBridge(server, host)
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address() as AddressInfo
const ws = new WebSocket(`ws://127.0.0.1:${port}/bridge?token=${bridge.token}`)
await new Promise((resolve) => ws.once('open', resolve))
const R = 5_000
let nextId = 0
await measure(`WebSocket bridge round trip app/info, sequential (x${R})`, R, async () => {
  for (let i = 0; i < R; i++) {
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
ws.close()
await bridge.close()
await new Promise((resolve) => server.close(resolve))
await host.close()
rmSync(home, { recursive: true, force: true })

console.log(`Bridle bench on node ${process.versions.node}, ${process.platform}/${process.arch}\n`)
for (const { name, ops, ms } of figures) {
  const perOp = (ms * 1000) / ops
  console.log(
    `${name.padEnd(58)} ${Math.round(ops / (ms / 1000))
      .toLocaleString('en')
      .padStart(12)} ops/s  ${perOp.toFixed(2).padStart(8)} µs/op`,
  )
}
