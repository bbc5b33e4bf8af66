/**
 * Issue 17: a new session gets a title from its first exchange (the model's, asked in the
 * background), and the model picker in the composer switches the next request's model.
 */
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { chatRequests } from '../fixtures/model-server/server'
import { openInspector } from './shell-nav'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [{ steps: [{ text: 'First answer.' }] }, { steps: [{ text: 'Second answer.' }] }],
    models: [{ id: 'scripted' }, { id: 'bigger-model', max_model_len: 32768 }],
    title: 'Greeting the scripted model',
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('a title appears for a new session', async ({ page }) => {
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('hello there, scripted model')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('First answer.')
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  await expect(
    sidebar.getByRole('treeitem', { name: /^Greeting the scripted model/ }),
  ).toBeVisible()
  expect(app.model.titleRequests).toHaveLength(1)
  expect(chatRequests(app.model)).toHaveLength(1)
})

test('the model picker switches the next request to the chosen model', async ({ page }) => {
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('first')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('First answer.')

  const picker = page.getByRole('combobox', { name: 'Model' })
  await expect(picker).toContainText('scripted')
  // Alt+M opens it from anywhere; Escape closes it.
  await page.keyboard.press('Alt+m')
  await expect(page.getByRole('listbox')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('listbox')).toHaveCount(0)
  await picker.click()
  await page.getByRole('option', { name: /bigger-model/ }).click()
  await expect(picker).toContainText('bigger-model')

  await page.getByRole('textbox', { name: 'Message' }).fill('second')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('Second answer.')
  const models = chatRequests(app.model).map((r) => (r.body as { model: string }).model)
  expect(models).toEqual(['scripted', 'bigger-model'])

  // The switch is in the timeline.
  const timeline = await openInspector(page, 'Timeline')
  await expect(timeline.getByText(/model switched to bigger-model/)).toBeVisible()
})
