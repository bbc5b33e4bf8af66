import { PAGE_SECRET_FRAGMENT, PAGE_SECRET_PROTOCOL_PREFIX } from '../../../protocol/contract'

/** Where a tab keeps its page secret: sessionStorage, which is per tab and per origin (port included). */
export const PAGE_SECRET_STORAGE_KEY = 'bridle.pageSecret'

/** What of `window` this needs (structural, so Node code and tests can use this file too). */
export interface PageWindow {
  readonly location: { readonly hash: string; readonly pathname: string; readonly search: string }
  readonly history: {
    readonly state: unknown
    replaceState(data: unknown, unused: string, url: string): void
  }
  readonly sessionStorage: {
    getItem(key: string): string | null
    setItem(key: string, value: string): void
  }
}

/**
 * The page secret `bridle serve` gave this tab (see PAGE_SECRET_FRAGMENT in the contract): taken
 * from the address fragment right after admission, which is then removed from the address bar and
 * the history entry, and kept in sessionStorage so a reload still connects. Undefined when this
 * tab was never admitted (an address typed without the token). Never throws: storage that refuses
 * leaves the secret to this page load only.
 */
export function takePageSecret(win: PageWindow): string | undefined {
  const fromFragment = new URLSearchParams(win.location.hash.slice(1)).get(PAGE_SECRET_FRAGMENT)
  if (fromFragment) {
    win.history.replaceState(win.history.state, '', win.location.pathname + win.location.search)
    try {
      win.sessionStorage.setItem(PAGE_SECRET_STORAGE_KEY, fromFragment)
    } catch {
      // Storage disabled: this load still connects; a reload needs the printed address again.
    }
    return fromFragment
  }
  try {
    return win.sessionStorage.getItem(PAGE_SECRET_STORAGE_KEY) ?? undefined
  } catch {
    return undefined
  }
}

/** The WebSocket subprotocols that present `secret` to the bridge. */
export function pageSecretProtocols(secret: string): string[] {
  return [PAGE_SECRET_PROTOCOL_PREFIX + secret]
}
