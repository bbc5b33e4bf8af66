import type { Page } from '@playwright/test'

/**
 * One contract call from inside the page, over a bridge socket of its own (the serve cookie the
 * page holds admits it, as it admits the app's client): for facts a test compares the UI with.
 * Returns the call's Result (`{ ok, value }` or `{ ok: false, error }`).
 */
export function callFromPage(
  page: Page,
  origin: string,
  method: string,
  params: unknown,
): Promise<unknown> {
  return page.evaluate(
    ({ url, method, params }) =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url)
        socket.onerror = () => reject(new Error('the bridge socket failed'))
        socket.onopen = () => socket.send(JSON.stringify({ id: 1, method, params }))
        socket.onmessage = (message) => {
          const data = JSON.parse(String(message.data)) as { kind: string; result?: unknown }
          if (data.kind !== 'result') return
          socket.close()
          resolve(data.result)
        }
      }),
    { url: `${origin.replace(/^http/, 'ws')}/bridge`, method, params },
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
