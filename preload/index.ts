/**
 * The preload: exposes exactly `window.bridle = { call, subscribe }` and nothing else. No
 * ipcRenderer, no Node. Calls go over one channel; main validates the sender and the params,
 * the renderer validates results. Built as one CommonJS file so the window stays sandboxed.
 */
import { contextBridge, ipcRenderer } from 'electron'
import type { IpcRendererEvent } from 'electron'
import { IPC_CALL_CHANNEL, IPC_NOTIFY_CHANNEL, isMethodName, isTopicName } from './contract.js'
import type { BridleApi, Result } from './contract.js'

type Listener = (payload: unknown) => void
const listeners = new Map<string, Set<Listener>>()

ipcRenderer.on(IPC_NOTIFY_CHANNEL, (_event: IpcRendererEvent, message: unknown) => {
  if (typeof message !== 'object' || message === null) return
  const { topic, payload } = message as { topic?: unknown; payload?: unknown }
  if (typeof topic !== 'string') return
  for (const listener of [...(listeners.get(topic) ?? [])]) {
    try {
      listener(payload)
    } catch (error) {
      // A renderer listener's bug must not keep the other listeners from the notification.
      console.error(`[bridle] listener for ${topic} failed:`, error)
    }
  }
})

const api = {
  call(method: string, params: unknown): Promise<Result<unknown>> {
    if (!isMethodName(method)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'UNKNOWN_METHOD', message: `unknown method "${method}"` },
      })
    }
    return ipcRenderer.invoke(IPC_CALL_CHANNEL, method, params) as Promise<Result<unknown>>
  },
  subscribe(topic: string, listener: Listener): () => void {
    if (!isTopicName(topic)) throw new Error(`unknown topic "${topic}"`)
    if (typeof listener !== 'function') throw new Error('subscribe needs a listener function')
    const set = listeners.get(topic) ?? new Set<Listener>()
    listeners.set(topic, set)
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  },
} as unknown as BridleApi

contextBridge.exposeInMainWorld('bridle', api)
