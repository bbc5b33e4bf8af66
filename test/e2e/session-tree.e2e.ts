/**
 * The session tree by keyboard (Up/Down, Left/Right folding and going to the parent, Enter to
 * open, Delete to trash) and the trash (listed, restored back into the tree).
 * Screenshot: test-results/session-tree.png.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [{ steps: [{ text: 'Alpha answer.' }] }, { steps: [{ text: 'Beta answer.' }] }],
  })
})

test.afterEach(async () => {
  await app.stop()
})

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

test('arrows move, fold and open; Delete trashes; the trash restores', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  const tree = sidebar.getByRole('list', { name: 'Session tree' })
  const row = (name: RegExp) => tree.getByRole('button', { name })

  await send(page, 'Beta')
  await expect(chat).toContainText('Alpha answer.')
  await sidebar.getByRole('button', { name: 'New session' }).click()
  await send(page, 'Alpha')
  await expect(chat).toContainText('Beta answer.')
  // The first session gets a fork: Beta > (its fork), and the untitled one beside them.
  await row(/^Beta/).click()
  await tree.getByRole('button', { name: 'Fork Beta at its last event' }).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  const forks = tree.getByRole('list', { name: 'Forks of Beta' })
  await expect(forks).toBeVisible()
  const fork = forks.getByRole('button', { name: /fork at #\d+/ })
  // Titled from its first message (issue 17), no longer "Untitled session".
  const other = row(/^Alpha/)

  // One stop for Tab in the tree: the open session (the fork).
  await expect(fork).toHaveAttribute('tabindex', '0')
  await expect(other).toHaveAttribute('tabindex', '-1')
  await fork.focus()
  await page.keyboard.press('ArrowLeft')
  await expect(row(/^Beta \d+ messages/)).toBeFocused()
  await page.keyboard.press('ArrowLeft')
  await expect(forks).toHaveCount(0)
  await page.keyboard.press('ArrowRight')
  await expect(forks).toBeVisible()
  await page.keyboard.press('ArrowRight')
  await expect(fork).toBeFocused()
  // Home and End reach the first and last session on screen; Up and Down step between.
  const all = tree.locator('.session-open')
  await expect(all).toHaveCount(3)
  await page.keyboard.press('Home')
  await expect(all.first()).toBeFocused()
  await page.keyboard.press('End')
  await expect(all.last()).toBeFocused()
  await page.keyboard.press('ArrowUp')
  await expect(all.nth(1)).toBeFocused()
  // Enter opens the focused session.
  await other.focus()
  await page.keyboard.press('Enter')
  await expect(chat).toContainText('Beta answer.')
  await expect(chat).not.toContainText('Alpha answer.')

  // Delete on the focused session asks, then moves it to the trash.
  await other.focus()
  await page.keyboard.press('Delete')
  await sidebar
    .getByRole('group', { name: 'Confirm delete' })
    .getByRole('button', { name: 'Delete' })
    .click()
  await expect(other).toHaveCount(0)
  const trash = sidebar.getByRole('region', { name: 'Trash' })
  await trash.getByRole('button', { name: /Trash \(1\)/ }).click()
  await expect(trash.getByRole('list', { name: 'Trashed sessions' })).toContainText('Alpha')
  await page.screenshot({ path: 'test-results/session-tree.png' })
  await trash.getByRole('button', { name: 'Restore Alpha' }).click()
  await expect(other).toBeVisible()
  await expect(trash).toHaveCount(0)
})
