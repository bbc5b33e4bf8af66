import type { BridleApi } from '../../../preload/contract'
import { createIpcClient } from './ipc-client'
import { createWebSocketClient } from './ws-client'

declare global {
  interface Window {
    /** Present only inside the Electron app, exposed by the preload. */
    readonly bridle?: BridleApi
  }
}

export type BridgeKind = 'ipc' | 'websocket'

export interface Bridge {
  readonly kind: BridgeKind
  readonly api: BridleApi
}

/**
 * Picks the transport: the preload's `window.bridle` inside Electron, else the WebSocket of
 * `bridle serve`, whose token arrives in the URL fragment (`#token=…`).
 */
export function connectBridge(): Bridge | { error: string } {
  if (window.bridle) return { kind: 'ipc', api: createIpcClient(window.bridle) }
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token')
  if (!token) {
    return {
      error:
        'No bridge: open the address that `bridle serve` printed (it carries #token=…), or start the desktop app.',
    }
  }
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const url = `${scheme}://${window.location.host}/bridge?token=${encodeURIComponent(token)}`
  return { kind: 'websocket', api: createWebSocketClient(url) }
}
