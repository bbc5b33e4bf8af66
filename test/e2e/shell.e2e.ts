/**
 * The shell through `bridle serve` with the scripted model: a prompt and its answer in the chat,
 * a second session, and a fork that shows as a branch of the tree, says where it branched, and
 * leaves its parent as it was. Screenshots go to test-results/ (shell, tree, dark).
 */
import { basename } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [
      { steps: [{ text: 'First answer from the scripted model.' }], chunkSize: 6 },
      { steps: [{ text: 'Second answer, with **markdown**.' }], chunkSize: 6 },
      { steps: [{ text: 'An answer only the fork has.' }], chunkSize: 6 },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
}

test('send, answer, second session, fork as a branch with its origin, parent unchanged', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)

  const chat = page.getByRole('main', { name: 'Chat' })
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  await expect(chat).toBeVisible()
  // The inspector waits until asked for.
  await expect(page.getByRole('complementary', { name: 'Inspector' })).toHaveCount(0)
  await expect(page.getByRole('combobox', { name: 'Project' })).toHaveText(basename(app.project))

  // A first message creates the session (named after it) and the answer appears in the chat.
  await send(page, 'Say hello')
  await expect(chat).toContainText('First answer from the scripted model.')
  const tree = sidebar.getByRole('tree', { name: 'Session tree' })
  await expect(tree.getByRole('treeitem', { name: /^Say hello/ })).toBeVisible()
  await send(page, 'And again')
  await expect(chat).toContainText('Second answer')
  await expect(tree.getByRole('treeitem', { name: /^Say hello/ })).not.toContainText(' 3 messages')
  await page.screenshot({ path: 'test-results/shell.png' })

  // Fork the whole conversation from the tree; the fork opens and says where it came from.
  await tree.locator(`button[aria-label="Rename Say hello"]`).click()
  await sidebar.getByRole('textbox', { name: 'Session title' }).fill('Greeting')
  await sidebar.getByRole('textbox', { name: 'Session title' }).press('Enter')
  const parentRow = tree.getByRole('treeitem', { name: /^Greeting \d+ messages/ })
  await expect(parentRow).toBeVisible()
  const parentMeta = await parentRow.locator('.session-meta').innerText()
  await tree.locator(`button[aria-label="Fork Greeting at its last event"]`).click()
  const banner = chat.getByRole('note', { name: 'Fork origin' })
  await expect(banner).toContainText(/Forked from Greeting at event \d+/)
  const branch = tree.getByRole('group', { name: 'Forks of Greeting' })
  await expect(branch.getByRole('treeitem', { name: /fork at #\d+/ })).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await expect(chat).toContainText('Second answer')

  // The fork goes on alone; the parent does not see it.
  await send(page, 'Only in the fork')
  await expect(chat).toContainText('An answer only the fork has.')
  // The fork is titled from its own first message, not the parent's title.
  await expect(branch.getByRole('treeitem', { name: /fork at #/ })).not.toContainText(
    parentMeta.split(' · ')[0] ?? '',
  )
  await page.screenshot({ path: 'test-results/fork.png' })
  await banner.getByRole('button', { name: 'Open parent' }).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toHaveCount(0)
  await expect(chat).toContainText('Second answer')
  await expect(chat).not.toContainText('An answer only the fork has.')
  await expect(parentRow.locator('.session-meta')).toContainText(parentMeta.split(' · ')[0] ?? '')
  await expect(parentRow).toHaveAttribute('aria-selected', 'true')

  // A second session, empty, from the sidebar.
  await sidebar.getByRole('button', { name: 'New session' }).click()
  await expect(tree.getByRole('treeitem', { name: /^Untitled session/ })).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await expect(chat).not.toContainText('Second answer')
  await sidebar.screenshot({ path: 'test-results/tree.png' })

  // Delete asks first, naming the session, then it leaves the tree (it is in the trash) and,
  // since it was open, its neighbour opens instead of a blank pane.
  await tree.locator(`button[aria-label="Delete Untitled session"]`).click()
  const confirm = page.getByRole('alertdialog', { name: 'Move to trash?' })
  await expect(confirm).toContainText('Untitled session goes to the trash')
  await confirm.getByRole('button', { name: 'Move to trash' }).click()
  await expect(tree.getByRole('treeitem', { name: /^Untitled session/ })).toHaveCount(0)
  await expect(tree.getByRole('treeitem', { selected: true })).toHaveCount(1)
  await expect(chat).toContainText('Second answer')

  await page.emulateMedia({ colorScheme: 'dark' })
  await branch.getByRole('treeitem', { name: /fork at/ }).click()
  await expect(banner).toBeVisible()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await page.screenshot({ path: 'test-results/dark.png' })
  expect(consoleErrors).toEqual([])
})

test('shortcuts: help overlay, inspector toggle, search focus', async ({ page }) => {
  await page.goto(app.url)
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.keyboard.press('F1')
  const help = page.getByRole('dialog', { name: 'Help' })
  await expect(help).toContainText('Keyboard shortcuts')
  await expect(help.getByTestId('app-version')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(help).toHaveCount(0)

  // The inspector is closed until opened; Ctrl+I toggles it, Alt+1 / Alt+2 pick its tab.
  const inspector = page.getByRole('complementary', { name: 'Inspector' })
  await expect(inspector).toHaveCount(0)
  await page.keyboard.press('Control+i')
  await expect(inspector).toBeVisible()
  await page.keyboard.press('Alt+2')
  await expect(inspector.getByRole('tab', { name: 'Checkpoints' })).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await page.keyboard.press('Alt+1')
  await expect(inspector.getByRole('tab', { name: 'Timeline' })).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await page.keyboard.press('Control+i')
  await expect(inspector).toHaveCount(0)

  // Ctrl+, opens the settings page in place of the chat; Escape comes back.
  await page.keyboard.press('Control+Comma')
  await expect(page.getByRole('main', { name: 'Settings' })).toBeVisible()
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused()
  await expect(page.getByRole('main', { name: 'Chat' })).toHaveCount(0)
  await page.keyboard.press('Escape')
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  await page.getByRole('button', { name: 'Back to chat' }).click()
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()

  // "/" goes to the composer, unless the user is typing somewhere.
  await page.getByRole('button', { name: 'Help', exact: true }).focus()
  await page.keyboard.press('/')
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused()
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('')

  await page.keyboard.press('Control+k')
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeFocused()

  // Alt+N: a new session where the browser keeps Ctrl+N for itself.
  await page.keyboard.press('Alt+n')
  await expect(page.getByRole('main', { name: 'Chat' })).toContainText('No messages yet')
})

test('a lost bridge is said in a banner with what to do, never a blank page', async ({ page }) => {
  await page.goto(app.url)
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  await expect(sidebar.getByRole('button', { name: 'New session' })).toBeEnabled()
  await app.serve.stop()
  await sidebar.getByRole('button', { name: 'New session' }).click()
  await expect(page.getByRole('alert').filter({ hasText: 'Lost the connection' })).toContainText(
    'bridle serve',
  )
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  await page.screenshot({ path: 'test-results/connection-lost.png' })
})
