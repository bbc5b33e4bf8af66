/**
 * The contract through the real serve bridge, from a page in Chromium: a settings update with a
 * bad endpoint URL comes back as a field-level error (for the form to show next to the field),
 * and nothing is written; a valid one is read back.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess

test.beforeAll(async () => {
  serve = await startServeProcess()
})

test.afterAll(async () => {
  await serve.stop()
})

/** One call over a socket of the page's own (the cookie admits it, as it does the app's client). */
function callFromPage(page: Page, method: string, params: unknown): Promise<unknown> {
  return page.evaluate(
    ({ method, params, url }) =>
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
    { method, params, url: `ws://${new URL(serve.origin).host}/bridge` },
  )
}

test('a bad endpoint URL is a field-level error and nothing is written', async ({ page }) => {
  await page.goto(serve.url)
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()

  const bad = await callFromPage(page, 'settings/update', {
    config: { endpoints: { local: { baseUrl: 'localhost:11434' } } },
  })
  expect(bad).toMatchObject({
    ok: false,
    error: {
      code: 'INVALID_SETTINGS',
      fields: [{ path: 'endpoints.local.baseUrl', message: expect.any(String) as unknown }],
    },
  })
  expect(() => readFileSync(join(serve.home, 'config.json'))).toThrow()

  const good = await callFromPage(page, 'settings/update', {
    config: { endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } } },
  })
  expect(good).toMatchObject({ ok: true })
  const read = await callFromPage(page, 'settings/get', {})
  expect(read).toMatchObject({
    ok: true,
    value: { endpoints: [{ id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', key: 'none' }] },
  })
})
