// First: configures zod before the contract's schemas are built (see zod-config.ts).
import './zod-config'
import type { BridleApi } from '../../../protocol/contract'
import { createIpcClient } from './ipc-client'
import { confineLinks } from './links'
import { pageSecretProtocols, takePageSecret } from './page-secret'
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

/** The bridge socket of the server this page came from. */
export function bridgeSocketUrl(location: Location): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  return `${scheme}://${location.host}/bridge`
}

/**
 * Picks the transport: the preload's `window.bridle` inside Electron, else the WebSocket of
 * `bridle serve`. The page never sees the serve token: the server admitted this page with an
 * HttpOnly cookie, which the browser also presents when the socket opens, and gave it a page
 * secret in the address fragment (page-secret.ts), which the socket offers as its subprotocol.
 *
 * Connecting also confines the page's links to the app (see links.ts): whichever transport, the
 * page is the app and must not be replaced by another site.
 */
export function connectBridge(): Bridge | { error: string } {
  confineLinks(document, (url) => window.open(url, '_blank', 'noopener,noreferrer'))
  if (window.bridle) return { kind: 'ipc', api: createIpcClient(window.bridle) }
  if (window.location.protocol !== 'http:' && window.location.protocol !== 'https:') {
    return {
      error: 'No bridge: open the address that `bridle serve` printed, or start the desktop app.',
    }
  }
  const secret = takePageSecret(window)
  if (secret === undefined) {
    return {
      error:
        'This tab was not admitted to the bridle serve bridge: open the full address that ' +
        '`bridle serve` printed (it ends in /?token=...) again.',
    }
  }
  const protocols = pageSecretProtocols(secret)
  return {
    kind: 'websocket',
    api: createWebSocketClient(bridgeSocketUrl(window.location), protocols),
  }
}
