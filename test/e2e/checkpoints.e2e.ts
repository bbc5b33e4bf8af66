/**
 * The checkpoints view through `bridle serve` with the scripted model: after three turns,
 * "Compact now" with a focus summarises the first (the scripted summary), the list shows the
 * checkpoint with its range and token counts, its summary and the original events it hides, and
 * "Undo this checkpoint" marks it undone.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import { openInspector } from './shell-nav'
import { valueFromPage } from './page-bridge'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [
      'The codename is BLUEFIN.',
      'Tests run with npm test.',
      'The build is npm run build.',
      '## Goals\n\nRemember the **codename** (BLUEFIN).\n\n- tests: `npm test`',
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

interface Listed {
  items: { id: string; eventCount: number; isRunning: boolean; messageCount: number }[]
}

/** Calls the bridge from the page (the page holds the serve cookie). */
function bridgeCall(page: Page, method: string, params: unknown): Promise<unknown> {
  return valueFromPage(page, app.serve.origin, method, params)
}

/** Sends a prompt and waits (asking the bridge) until its answer is in and the turn is over. */
async function runTurn(page: Page, text: string, messages: number): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  await expect
    .poll(async () => {
      const session = ((await bridgeCall(page, 'session/list', {})) as Listed).items[0]
      return session !== undefined && !session.isRunning && session.messageCount >= messages
    })
    .toBe(true)
}

test('compact now lists the checkpoint with tokens, expands originals, and undoes', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1500, height: 900 })
  await page.goto(app.url)
  await runTurn(page, 'What is the codename?', 2)
  await runTurn(page, 'How are tests run?', 4)
  await runTurn(page, 'And the build?', 6)

  await openInspector(page, 'Checkpoints')
  const panel = page.getByRole('region', { name: 'Checkpoints' })
  await expect(panel).toContainText('No checkpoints yet')
  await panel.getByRole('textbox', { name: 'Focus' }).fill('the codename')
  await panel.getByRole('button', { name: 'Compact now' }).click()
  await expect(panel.getByRole('status')).toContainText(
    /Compacted seq \d+\.\.\d+: \d+ → \d+ tokens/,
  )
  const summaryRequest = JSON.stringify(chatRequests(app.model).at(-1)?.body)
  expect(summaryRequest).toContain('the codename')

  const item = panel.getByTestId('checkpoint')
  await expect(item).toHaveCount(1)
  await expect(item.getByTestId('checkpoint-range')).toHaveText(/^seq \d+\.\.\d+$/)
  await expect(item.getByTestId('checkpoint-tokens')).toHaveText(/^\d+ → \d+ \(−\d+%\)$/)
  await expect(item).toHaveAttribute('data-undone', 'false')

  await item.getByText('Summary', { exact: true }).click()
  await expect(item.getByRole('heading', { name: 'Goals' })).toBeVisible()
  await item.getByText('Original events', { exact: true }).click()
  const originals = item.getByTestId('original-event')
  await expect(originals.first()).toBeVisible()
  await expect(item.getByRole('list', { name: 'Original events' })).toContainText('user/message')
  await expect(item.getByRole('list', { name: 'Original events' })).toContainText(
    'What is the codename?',
  )
  await page.screenshot({ path: 'test-results/checkpoints.png' })

  await item.getByRole('button', { name: 'Undo this checkpoint' }).click()
  await expect(item).toHaveAttribute('data-undone', 'true')
  await expect(item).toContainText(/undone at #\d+/)
  await expect(item.getByRole('button', { name: 'Undo this checkpoint' })).toHaveCount(0)
  await page.screenshot({ path: 'test-results/checkpoints-undone.png' })
  expect(consoleErrors).toEqual([])
})

test('a failed summary says what failed and leaves no checkpoint', async ({ page }) => {
  await page.goto(app.url)
  await runTurn(page, 'What is the codename?', 2)
  app.model.setScript([{ status: 400, body: { error: { message: 'summaries are off today' } } }])
  await openInspector(page, 'Checkpoints')
  const panel = page.getByRole('region', { name: 'Checkpoints' })
  await panel.getByRole('button', { name: 'Compact now' }).click()
  await expect(panel.getByRole('alert')).toContainText('summaries are off today')
  await page.screenshot({ path: 'test-results/checkpoints-failed.png' })
  await expect(panel.getByTestId('checkpoint')).toHaveCount(0)
  await expect(panel.getByRole('button', { name: 'Compact now' })).toBeEnabled()
})
