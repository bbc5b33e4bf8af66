/**
 * The preload: exposes exactly `window.bridle = { call, subscribe }` and nothing else. No
 * ipcRenderer, no Node, no generic invoke: `call` reaches only the per-method channels of the
 * contract, `subscribe` only its topics. Main validates the sender and the params, the renderer
 * validates results. Built as one CommonJS file so the window stays sandboxed.
 */
import { contextBridge, ipcRenderer } from 'electron'
import type { IpcRendererEvent } from 'electron'
import { callChannel, NOTIFY_CHANNEL } from '../protocol/channels.js'
import { isMethodName, isTopicName, methods } from '../protocol/contract.js'
import type { BridleApi, MethodName, Result } from '../protocol/contract.js'

type Listener = (payload: unknown) => void
type Invoke = (params: unknown) => Promise<Result<unknown>>

const listeners = new Map<string, Set<Listener>>()

/** One invoker per contract method, bound to that method's channel. */
const invokers = new Map<string, Invoke>(
  Object.keys(methods)
    .filter(isMethodName)
    .map((method: MethodName) => {
      const channel = callChannel(method)
      const invoke: Invoke = (params) =>
        ipcRenderer.invoke(channel, params) as Promise<Result<unknown>>
      return [method, invoke]
    }),
)

ipcRenderer.on(NOTIFY_CHANNEL, (_event: IpcRendererEvent, message: unknown) => {
  if (typeof message !== 'object' || message === null) return
  const { topic, payload } = message as { topic?: unknown; payload?: unknown }
  if (typeof topic !== 'string' || !isTopicName(topic)) return
  for (const listener of [...(listeners.get(topic) ?? [])]) {
    try {
      listener(payload)
    } catch (error) {
      // A renderer listener's bug must not keep the other listeners from the notification.
      console.error(`[bridle] listener for ${topic} failed:`, error)
    }
  }
})

/** Typed `unknown` where the page hands values in: the page is not trusted to respect types. */
const api = {
  call(method: unknown, params: unknown): Promise<Result<unknown>> {
    const invoke = typeof method === 'string' ? invokers.get(method) : undefined
    if (!invoke) {
      return Promise.resolve({
        ok: false,
        error: { code: 'UNKNOWN_METHOD', message: `unknown method "${String(method)}"` },
      })
    }
    return invoke(params)
  },
  subscribe(topic: unknown, listener: unknown): () => void {
    if (typeof topic !== 'string' || !isTopicName(topic)) {
      throw new Error(`unknown topic "${String(topic)}"`)
    }
    if (typeof listener !== 'function') throw new Error('subscribe needs a listener function')
    const set = listeners.get(topic) ?? new Set<Listener>()
    listeners.set(topic, set)
    const added = listener as Listener
    set.add(added)
    return () => {
      set.delete(added)
    }
  },
} as unknown as BridleApi

contextBridge.exposeInMainWorld('bridle', api)
