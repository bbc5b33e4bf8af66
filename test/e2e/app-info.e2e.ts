import { expect, test } from '@playwright/test'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess

test.beforeAll(async () => {
  serve = await startServeProcess()
})

test.afterAll(async () => {
  await serve.stop()
})

test('the renderer shows the app info read through the contract over the WebSocket bridge', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.goto(serve.url)

  const info = page.getByTestId('app-info')
  await expect(info).toBeVisible()
  await expect(page.getByTestId('app-data-dir')).toHaveText(serve.home)
  await expect(page.getByTestId('app-version')).toHaveText(/^\d+\.\d+\.\d+/)
  await expect(page.getByTestId('app-transport')).toHaveText('loopback WebSocket')
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.screenshot({ path: 'test-results/app-info.png', fullPage: true })
  expect(consoleErrors).toEqual([])
})

test('without the token the page says how to connect instead of failing silently', async ({
  page,
}) => {
  await page.goto(serve.url.replace(/#.*$/, ''))
  await expect(page.getByRole('alert')).toContainText('bridle serve')
})

test('a wrong token is refused by the bridge', async ({ page }) => {
  await page.goto(serve.url.replace(/#token=.*$/, '#token=wrong'))
  await expect(page.getByRole('alert')).toContainText('DISCONNECTED')
})
