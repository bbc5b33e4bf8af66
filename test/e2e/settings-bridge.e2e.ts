/**
 * The contract through the real serve bridge, from a page in Chromium: a settings update with a
 * bad endpoint URL comes back as a field-level error (for the form to show next to the field),
 * and nothing is written; a valid one is read back.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { callFromPage } from './page-bridge'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess

test.beforeAll(async () => {
  serve = await startServeProcess()
})

test.afterAll(async () => {
  await serve.stop()
})

const callPage = (page: Page, method: string, params: unknown) =>
  callFromPage(page, serve.origin, method, params)

test('a bad endpoint URL is a field-level error and nothing is written', async ({ page }) => {
  await page.goto(serve.url)
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()

  const bad = await callPage(page, 'settings/update', {
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

  const good = await callPage(page, 'settings/update', {
    config: { endpoints: { local: { baseUrl: 'http://127.0.0.1:11434/v1' } } },
  })
  expect(good).toMatchObject({ ok: true })
  const read = await callPage(page, 'settings/get', {})
  expect(read).toMatchObject({
    ok: true,
    value: { endpoints: [{ id: 'local', baseUrl: 'http://127.0.0.1:11434/v1', key: 'none' }] },
  })
})
