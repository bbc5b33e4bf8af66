/**
 * Dialogs are modal for focus without Radix's modal mode (its scroll lock injects a <style>
 * the strict CSP refuses): Tab and Shift+Tab from the dialog's ends stay in it, a shortcut that
 * would focus the page behind does not take focus out, and Escape gives focus back to what opened
 * the dialog. The page reports no CSP violation meanwhile.
 */
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import type { PageGlobals } from './page-globals'

let app: AppUnderTest
let consoleErrors: string[]

test.beforeEach(async ({ page }) => {
  app = await startApp({ script: [{ steps: [{ text: 'Alpha answer.' }] }] })
  consoleErrors = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.addInitScript(() => {
    const w = globalThis as unknown as PageGlobals
    w.document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.effectiveDirective} ${event.blockedURI}`),
    )
  })
})

test.afterEach(async () => {
  // Taken before the server stops: a closed bridge logs its own errors.
  const errors = [...consoleErrors]
  await app.stop()
  expect(errors).toEqual([])
})

/** Presses `key` `times` times, checking after each press that focus is still in `dialog`. */
async function pressInside(page: Page, dialog: Locator, key: string, times: number) {
  for (let i = 0; i < times; i++) {
    await page.keyboard.press(key)
    await expect(dialog.locator(':focus')).toHaveCount(1)
  }
}

test('the delete dialog keeps focus inside and gives it back on Escape', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('Alpha')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('Alpha answer.', { timeout: 20_000 })

  const item = page
    .getByRole('tree', { name: 'Session tree' })
    .getByRole('treeitem', { name: /^Alpha/ })
  await item.focus()
  await page.keyboard.press('Delete')
  const dialog = page.getByRole('alertdialog', { name: 'Move to trash?' })
  await expect(dialog).toHaveAttribute('aria-modal', 'true')
  const confirm = dialog.getByRole('button', { name: 'Move to trash' })
  // The last control has focus: Tab wraps to the first, Shift+Tab back, never out.
  await expect(confirm).toBeFocused()
  await page.keyboard.press('Tab')
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await pressInside(page, dialog, 'Tab', 3)
  await pressInside(page, dialog, 'Shift+Tab', 3)
  // A shortcut that focuses the page behind (Ctrl+K, the search) leaves focus in the dialog.
  await page.keyboard.press('Control+k')
  await expect(dialog).toBeVisible()
  await expect(dialog.locator(':focus')).toHaveCount(1)

  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  await expect(item).toBeFocused()
  await expect(item).toBeVisible()

  // Opened from the row's pointer-only button (hidden from the tree's names): focus goes back
  // to the row, not to a button assistive technology cannot see.
  await page.locator('button[aria-label^="Delete Alpha"]').click()
  await expect(confirm).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  await expect(item).toBeFocused()
})

test('the help dialog and the narrow sessions sheet trap focus and return it', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const helpButton = page.getByRole('button', { name: 'Help' })
  await helpButton.click()
  const help = page.getByRole('dialog', { name: 'Help' })
  await expect(help).toHaveAttribute('aria-modal', 'true')
  await expect(help.locator(':focus')).toHaveCount(1)
  await pressInside(page, help, 'Tab', 6)
  await pressInside(page, help, 'Shift+Tab', 6)
  await page.keyboard.press('Escape')
  await expect(help).toHaveCount(0)
  await expect(helpButton).toBeFocused()

  await page.setViewportSize({ width: 1000, height: 700 })
  const toggle = page.getByRole('button', { name: 'Sessions' })
  await toggle.click()
  const sheet = page.getByRole('dialog', { name: 'Sessions' })
  await expect(sheet).toHaveAttribute('aria-modal', 'true')
  await expect(sheet.locator(':focus')).toHaveCount(1)
  await pressInside(page, sheet, 'Tab', 8)
  await pressInside(page, sheet, 'Shift+Tab', 8)
  await page.keyboard.press('Escape')
  await expect(sheet).toHaveCount(0)
  await expect(toggle).toBeFocused()
})
