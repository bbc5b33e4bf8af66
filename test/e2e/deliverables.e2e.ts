/**
 * Deliverable cards (`present`) show the files the agent handed over and hide the ones deleted
 * since: the card asks the project (`project/files-exist`) whenever it is shown again.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [
      {
        steps: [
          {
            toolCall: {
              name: 'present',
              args: JSON.stringify({ paths: ['README.md', 'src/app.ts'], note: 'Both files.' }),
            },
          },
        ],
      },
      { steps: [{ text: 'Handed over.' }] },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('a deliverable card leaves out deleted files and goes when none is left', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('Hand me the files')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('Handed over.')
  const card = chat.getByRole('region', { name: 'Deliverables' })
  /** A reload, then the session again from the sidebar: the card is mounted anew. */
  const reopen = async () => {
    await page.reload()
    const sidebar = page.getByRole('complementary', { name: 'Sessions' })
    await sidebar.getByText('Hand me the files').first().click()
  }
  await expect(card.getByRole('listitem')).toHaveText(['README.md', 'src/app.ts'])
  await expect(card).toContainText('Both files.')
  await page.screenshot({ path: 'test-results/deliverables.png' })

  rmSync(join(app.project, 'README.md'))
  await reopen()
  await expect(chat).toContainText('Handed over.')
  await expect(card.getByRole('listitem')).toHaveText(['src/app.ts'])

  rmSync(join(app.project, 'src', 'app.ts'))
  await reopen()
  await expect(chat).toContainText('Handed over.')
  await expect(card).toHaveCount(0)
})
