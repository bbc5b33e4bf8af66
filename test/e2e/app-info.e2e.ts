import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { pageProtocols } from './page-bridge'
import { startServeProcess } from './serve-process'
import type { PageGlobals } from './page-globals'
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
  // The page's own CSP reports go to this event too: the app must run without one.
  await page.addInitScript(() => {
    const w = globalThis as unknown as PageGlobals
    w.document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.effectiveDirective} ${event.blockedURI}`),
    )
  })
  await page.goto(serve.url)

  // The app info lives in the help overlay (Help button, ? or F1).
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.getByRole('button', { name: 'Help' }).click()
  await expect(page.getByRole('dialog', { name: 'Help' })).toBeVisible()
  const info = page.getByTestId('app-info')
  await expect(info).toBeVisible()
  // The token was traded for a cookie and left the address bar.
  expect(page.url()).toBe(`${serve.origin}/`)
  await expect(page.getByTestId('app-data-dir')).toHaveText(serve.home)
  await expect(page.getByTestId('app-version')).toHaveText(/^\d+\.\d+\.\d+/)
  await expect(page.getByTestId('app-transport')).toHaveText('loopback WebSocket')
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.screenshot({ path: 'test-results/app-info.png', fullPage: true })
  expect(consoleErrors).toEqual([])
})

test('without the token the server answers 401 with how to connect, and nothing of the app', async ({
  page,
}) => {
  const response = await page.goto(`${serve.origin}/`)
  expect(response?.status()).toBe(401)
  await expect(page.locator('body')).toContainText('bridle serve')
  await expect(page.locator('#root')).toHaveCount(0)
})

test('a wrong token is refused with 401', async ({ page }) => {
  const response = await page.goto(`${serve.origin}/?token=wrong`)
  expect(response?.status()).toBe(401)
  await expect(page.locator('#root')).toHaveCount(0)
})

test('serve --project DIR opens that folder first: it heads the recent projects', async ({
  page,
}) => {
  const project = mkdtempSync(join(tmpdir(), 'bridle-project-'))
  const withProject = await startServeProcess(['--project', project])
  try {
    await page.goto(withProject.url)
    const protocols = await pageProtocols(page)
    const recent = await page.evaluate(
      async ({ origin, protocols }) => {
        const socket = new globalThis.WebSocket(`${origin.replace('http', 'ws')}/bridge`, protocols)
        await new Promise((resolve) => (socket.onopen = resolve))
        const reply = new Promise<string>((resolve) => {
          socket.onmessage = (event: { data: unknown }) => {
            const text = String(event.data)
            if (text.includes('"kind":"result"')) resolve(text)
          }
        })
        socket.send(JSON.stringify({ id: 1, method: 'project/recent', params: {} }))
        const text = await reply
        socket.close()
        return text
      },
      { origin: withProject.origin, protocols },
    )
    const parsed = JSON.parse(recent) as {
      result: { ok: boolean; value?: { projects: { path: string }[] } }
    }
    expect(parsed.result.value?.projects[0]?.path).toBe(project)
  } finally {
    await withProject.stop()
    rmSync(project, { recursive: true, force: true })
  }
})
