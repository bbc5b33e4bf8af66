import { isTopicName, WireMessage } from '../../../protocol/contract'
import type { BridleApi, Result, TopicName } from '../../../protocol/contract'
import { checkNotification, checkResult } from './validate'

interface Pending {
  readonly resolve: (result: Result<unknown>) => void
  readonly method: string
}

const disconnected = (message: string): Result<never> => ({
  ok: false,
  error: { code: 'DISCONNECTED', message },
})

/**
 * The loopback WebSocket transport of `bridle serve`, opened with `protocols` (the page secret).
 * Calls made while the socket is opening wait for it; calls in flight when it closes fail with
 * `DISCONNECTED`; the client reconnects with a capped backoff and keeps its subscriptions.
 */
export function createWebSocketClient(
  url: string,
  protocols: readonly string[] = [],
): BridleApi & { close(): void } {
  const pending = new Map<number, Pending>()
  const listeners = new Map<TopicName, Set<(payload: unknown) => void>>()
  let nextId = 0
  let socket: WebSocket | undefined
  let opened: Promise<WebSocket> | undefined
  let retryMs = 250
  let isClosed = false

  const connect = (): Promise<WebSocket> => {
    opened ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, [...protocols])
      socket = ws
      ws.onopen = () => {
        retryMs = 250
        resolve(ws)
      }
      ws.onmessage = (event) => receive(event.data)
      ws.onclose = () => {
        opened = undefined
        socket = undefined
        reject(new Error('the bridge connection closed'))
        for (const [id, call] of pending) {
          pending.delete(id)
          call.resolve(disconnected(`${call.method}: the bridge connection closed`))
        }
        if (!isClosed) {
          setTimeout(() => void connect().catch(() => undefined), retryMs)
          retryMs = Math.min(retryMs * 2, 5000)
        }
      }
    })
    return opened
  }

  const receive = (data: unknown) => {
    let message: WireMessage
    try {
      message = WireMessage.parse(JSON.parse(String(data)))
    } catch {
      console.warn('[bridle] dropped a malformed bridge message')
      return
    }
    if (message.kind === 'result') {
      const call = pending.get(message.id)
      if (!call) return
      pending.delete(message.id)
      call.resolve(message.result as Result<unknown>)
      return
    }
    if (!isTopicName(message.topic)) return
    const checked = checkNotification(message.topic, message.payload)
    if (checked === undefined) return
    for (const listener of [...(listeners.get(message.topic) ?? [])]) listener(checked)
  }

  void connect().catch(() => undefined)

  return {
    async call(method, params) {
      let ws: WebSocket
      try {
        ws = await connect()
      } catch {
        return disconnected(`${method}: the bridge is not connected`)
      }
      const id = nextId++
      const raw = await new Promise<Result<unknown>>((resolve) => {
        pending.set(id, { resolve, method })
        ws.send(JSON.stringify({ id, method, params }))
      })
      return checkResult(method, raw)
    },
    subscribe(topic, listener) {
      const set = listeners.get(topic) ?? new Set()
      listeners.set(topic, set)
      const wrapped = listener as (payload: unknown) => void
      set.add(wrapped)
      return () => void set.delete(wrapped)
    },
    close() {
      isClosed = true
      socket?.close()
    },
  }
}
