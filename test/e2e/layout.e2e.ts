/**
 * The shell's layout as a user meets it again: panel sizes dragged to are there after a reload,
 * and "Jump to latest" shows only when the end of the chat is out of view (not after a wheel
 * turned up over a chat shorter than the window).
 */
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [{ steps: [{ text: 'A short answer.' }], chunkSize: 6 }],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('dragged panel sizes are remembered across a reload', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  await expect(sidebar).toBeVisible()
  const before = (await sidebar.boundingBox())?.width ?? 0
  const handle = page.getByRole('separator').first()
  const box = await handle.boundingBox()
  if (!box) throw new Error('no resize handle')
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await page.mouse.down()
  await page.mouse.move(box.x + 120, box.y + box.height / 2, { steps: 8 })
  await page.mouse.up()
  await expect
    .poll(async () => (await sidebar.boundingBox())?.width ?? 0)
    .toBeGreaterThan(before + 80)
  const dragged = (await sidebar.boundingBox())?.width ?? 0

  await page.reload()
  await expect(sidebar).toBeVisible()
  await expect
    .poll(async () => Math.round((await sidebar.boundingBox())?.width ?? 0))
    .toBeGreaterThan(dragged - 4)
  expect((await sidebar.boundingBox())?.width ?? 0).toBeLessThan(dragged + 4)
})

test('"Jump to latest" stays hidden while the end of a short chat is in view', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('Hello')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('A short answer.')
  const log = chat.getByRole('log', { name: 'Conversation' })
  await log.hover()
  await page.mouse.wheel(0, -400)
  await page.mouse.wheel(0, -400)
  // Give a wrongly shown button the time to appear before saying it did not.
  await page.waitForTimeout(300)
  await expect(chat.getByRole('button', { name: /Jump to latest/ })).toHaveCount(0)
})
