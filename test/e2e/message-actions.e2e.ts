/**
 * Message actions through `bridle serve` with the scripted model: Edit resends an edited message
 * in a fork (the server sees the new text, never the old one or its answer), Regenerate asks
 * again in a sibling fork, Continue after a Stop sends the next request in the same session;
 * `$x^2$` in an answer is rendered by KaTeX.
 * Screenshot: test-results/message-actions.png.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest
let releaseLong: () => void = () => undefined

test.beforeEach(async () => {
  const longGate = new Promise<void>((resolve) => (releaseLong = resolve))
  app = await startApp({
    script: [
      { steps: [{ text: 'The first answer, with $x^2$ as math.' }] },
      { steps: [{ text: 'The answer to the edit.' }] },
      { steps: [{ text: 'The regenerated answer.' }] },
      { steps: [{ text: 'Counting: one, two, ' }, { wait: longGate }, { text: 'three.' }] },
      { steps: [{ text: 'three, four.' }] },
    ],
  })
})

test.afterEach(async () => {
  releaseLong()
  await app.stop()
})

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

/** Every message text of the request at `index`, joined. */
function sentText(index: number): string {
  return JSON.stringify(chatRequests(app.model)[index]?.body ?? {})
}

test('Edit, Regenerate and Continue', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await send(page, 'Old question')
  await expect(chat).toContainText('The first answer')
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  // Math is rendered by KaTeX (its bundled stylesheet passes the CSP).
  await expect(chat.locator('.katex').first()).toBeVisible()
  await expect(chat.locator('.katex annotation')).toHaveText('x^2')

  // Edit: a fork opens with the edited text; the server sees it, not the old text or answer.
  const question = chat.getByRole('article', { name: /^You/ }).first()
  // The keyboard reaches it too: Alt+E edits the last message; Cancel leaves it as it was.
  await page.getByRole('textbox', { name: 'Message' }).focus()
  await page.keyboard.press('Alt+e')
  await expect(question.getByRole('textbox', { name: 'Edited message' })).toBeVisible()
  await question.getByRole('button', { name: 'Cancel' }).click()
  await expect(question.getByRole('textbox', { name: 'Edited message' })).toHaveCount(0)
  await question.hover()
  await question.getByRole('button', { name: /^Edit/ }).click()
  const editor = question.getByRole('textbox', { name: 'Edited message' })
  await editor.fill('New question')
  await question.getByRole('button', { name: 'Send edit' }).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  await expect(chat).toContainText('The answer to the edit.')
  await expect(chat).not.toContainText('The first answer')
  expect(chatRequests(app.model)).toHaveLength(2)
  expect(sentText(1)).toContain('New question')
  expect(sentText(1)).not.toContain('Old question')
  expect(sentText(1)).not.toContain('The first answer')

  // Regenerate: another fork that resends the same message; the old answer is left behind.
  const answer = chat.getByRole('article', { name: /^Agent, event/ }).first()
  await answer.hover()
  await answer.getByRole('button', { name: /^Regenerate/ }).click()
  await expect(chat).toContainText('The regenerated answer.')
  await expect(chat).not.toContainText('The answer to the edit.')
  expect(chatRequests(app.model)).toHaveLength(3)
  expect(sentText(2)).toContain('New question')
  expect(sentText(2)).not.toContain('The answer to the edit.')
  await expect(page.getByText('The answer to the edit.')).toHaveCount(0)

  // Continue after a Stop: the next request, in the same session, says to go on.
  await send(page, 'Count')
  await expect(chat.getByRole('article', { name: 'Agent, answering' })).toContainText('one, two')
  await page.getByRole('button', { name: 'Stop' }).click()
  const stopped = chat.locator('.msg-interrupted')
  await expect(stopped).toContainText('one, two')
  await stopped.hover()
  await stopped.getByRole('button', { name: /^Continue/ }).click()
  await expect(chat).toContainText('three, four.')
  expect(chatRequests(app.model)).toHaveLength(5)
  expect(sentText(4)).toContain('Continue from where you stopped.')
  expect(sentText(4)).toContain('Counting: one, two')
  await page.screenshot({ path: 'test-results/message-actions.png' })
})
