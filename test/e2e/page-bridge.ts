import type { Page } from '@playwright/test'
import { PAGE_SECRET_PROTOCOL_PREFIX } from '../../protocol/contract'
import { PAGE_SECRET_STORAGE_KEY } from '../../renderer/src/bridge/page-secret'

/**
 * The subprotocols a socket opened from inside the admitted page offers: the page secret serve gave
 * the tab (the cookie alone opens no bridge socket). Waits for the app to have taken it.
 */
export async function pageProtocols(page: Page): Promise<string[]> {
  const secret = await page.waitForFunction(
    (key) => globalThis.sessionStorage.getItem(key),
    PAGE_SECRET_STORAGE_KEY,
    { timeout: 10_000 },
  )
  return [PAGE_SECRET_PROTOCOL_PREFIX + String(await secret.jsonValue())]
}

/**
 * One contract call from inside the page, over a bridge socket of its own (the page's cookie and
 * secret admit it, as they admit the app's client): for facts a test compares the UI with.
 * Returns the call's Result (`{ ok, value }` or `{ ok: false, error }`).
 */
export async function callFromPage(
  page: Page,
  origin: string,
  method: string,
  params: unknown,
): Promise<unknown> {
  const protocols = await pageProtocols(page)
  return page.evaluate(
    ({ url, protocols, method, params }) =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url, protocols)
        socket.onerror = () => reject(new Error('the bridge socket failed'))
        socket.onopen = () => socket.send(JSON.stringify({ id: 1, method, params }))
        socket.onmessage = (message) => {
          const data = JSON.parse(String(message.data)) as { kind: string; result?: unknown }
          if (data.kind !== 'result') return
          socket.close()
          resolve(data.result)
        }
      }),
    { url: `${origin.replace(/^http/, 'ws')}/bridge`, protocols, method, params },
  )
}

/** The value of a call that must succeed (undefined when it failed: the test's expect says so). */
export async function valueFromPage(
  page: Page,
  origin: string,
  method: string,
  params: unknown,
): Promise<unknown> {
  const result = (await callFromPage(page, origin, method, params)) as { value?: unknown }
  return result.value
}
