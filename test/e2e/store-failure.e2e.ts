/**
 * A disk that fills up mid-turn, as the user of the app sees it: `bridle serve` runs with
 * BRIDLE_TEST_STORE_FAULT=full@tool/call, so SQLite itself refuses the write that would record the
 * allowed command's intent. The command does not run; the shell says why in one sentence until
 * dismissed, the turn stops running, and a second send is refused with the same plain words
 * rather than a stack trace. Screenshot: store-full-*.png in $BRIDLE_SHOTS (default test-results).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

const SHOTS = process.env['BRIDLE_SHOTS'] ?? 'test-results'
const FULL = /the disk holding .+ is full; free some space on it, then try again/

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    env: { BRIDLE_TEST_STORE_FAULT: 'full@tool/call' },
    script: [
      {
        steps: [
          { text: 'Making the file.' },
          {
            toolCall: {
              id: 'touch',
              name: 'bash',
              args: JSON.stringify({ command: 'touch ran.txt' }),
            },
          },
        ],
      },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('a full disk mid-turn: the command does not run, one sentence, the turn stops', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('Make a file')
  await box.press('Enter')

  const prompt = chat.locator('[data-call-id="touch"]').getByRole('group', { name: 'Approve bash' })
  await prompt.getByRole('button', { name: 'Allow once' }).click()

  const banner = page.getByRole('alert').filter({ hasText: 'could not be written' })
  await expect(banner).toHaveCount(1)
  await expect(banner).toContainText(
    'The session stopped because its log could not be written: the disk holding',
  )
  await expect(banner).toContainText(FULL)
  await expect(banner).not.toContainText(/SQLITE_|SqliteError|LogError|\bat \//)
  // The turn is over: the composer offers Send again, not Stop.
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  expect(existsSync(join(app.project, 'ran.txt'))).toBe(false)
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    await page.screenshot({ path: `${SHOTS}/store-full-${theme}.png` })
  }

  // The disk is still full: another send is refused in the same words.
  await banner.getByRole('button', { name: 'Dismiss' }).click()
  await expect(banner).toHaveCount(0)
  await box.fill('Try again')
  await box.press('Enter')
  await expect(page.getByRole('alert').filter({ hasText: FULL })).toHaveCount(1)
  expect(existsSync(join(app.project, 'ran.txt'))).toBe(false)
})
