/**
 * The chat's keys through `bridle serve` with the scripted model: Alt+E opens the editor of the
 * last message even when that message is scrolled out of the virtual list, Alt+R regenerates
 * the last answer as a sibling fork, Alt+F forks at the selected message (the fork's history
 * ends with it).
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest
const QUESTION = 'Read the readme thirty times'

test.beforeEach(async () => {
  // Each with its own limit: thirty identical calls would be a loop the loop guard stops.
  const read = (limit: number) => ({
    toolCall: { name: 'read', args: JSON.stringify({ path: 'README.md', limit }) },
  })
  app = await startApp({
    script: [
      // Thirty tool cards after the question: it leaves the virtual list's rendered rows.
      { steps: Array.from({ length: 30 }, (_, i) => read(i + 1)) },
      { steps: [{ text: 'All read.' }] },
      { steps: [{ text: 'The regenerated answer.' }] },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

function lastSent(): string {
  return JSON.stringify(chatRequests(app.model).at(-1)?.body ?? {})
}

async function pressInComposer(page: Page, key: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).focus()
  await page.keyboard.press(key)
}

test('Alt+E with the message scrolled out, Alt+R a sibling answer, Alt+F a fork at the selection', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const tree = page.getByRole('tree', { name: 'Session tree' })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(QUESTION)
  await box.press('Enter')
  await expect(chat).toContainText('All read.')
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)

  // Alt+E: the question is not rendered (scrolled out), and its editor opens all the same.
  const question = chat.getByRole('article', { name: /^You/ })
  await expect(question).toHaveCount(0)
  await pressInComposer(page, 'Alt+e')
  const editor = chat.getByRole('textbox', { name: 'Edited message' })
  await expect(editor).toBeVisible()
  await expect(editor).toBeFocused()
  await expect(editor).toHaveValue(QUESTION)
  await editor.press('Escape')
  await expect(editor).toHaveCount(0)
  await expect(question).toContainText(QUESTION)

  // Alt+R: a fork that resends the question, beside the first answer in the tree.
  await pressInComposer(page, 'Alt+r')
  await expect(chat).toContainText('The regenerated answer.')
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  await expect(chat).not.toContainText('All read.')
  expect(lastSent()).toContain(QUESTION)
  expect(lastSent()).not.toContain('All read.')
  await expect(tree.getByRole('treeitem')).toHaveCount(2)
  await expect(tree.locator('[role="treeitem"][aria-level="2"]')).toHaveCount(1)
  const regenerated = tree.locator('[role="treeitem"][aria-selected="true"]')
  await expect(regenerated).toHaveAttribute('aria-level', '2')
  const regeneratedId = await regenerated.getAttribute('data-session-id')

  // Alt+F: select the question, fork there; the fork ends with the question, not its answer.
  const forkedQuestion = chat.getByRole('article', { name: /^You/ })
  await forkedQuestion.click()
  await expect(forkedQuestion).toHaveAttribute('aria-current', 'true')
  await page.keyboard.press('Alt+f')
  await expect(tree.getByRole('treeitem')).toHaveCount(3)
  const opened = tree.locator('[role="treeitem"][aria-selected="true"]')
  await expect(opened).not.toHaveAttribute('data-session-id', regeneratedId ?? '')
  await expect(opened).toHaveAttribute('aria-level', '3')
  await expect(chat.getByRole('article', { name: /^You/ })).toContainText(QUESTION)
  await expect(chat).not.toContainText('The regenerated answer.')
  expect(chatRequests(app.model)).toHaveLength(3)
})
