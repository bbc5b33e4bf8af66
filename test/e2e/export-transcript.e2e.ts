/**
 * The HTML transcript (`bridle export --format html`) in Chromium: opened from a file as a reader
 * would, it runs nothing, fetches nothing, folds the tools until clicked, shows the diff, and
 * reads well in both colour schemes (screenshots in test-results/export/, checked with axe).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import { cliArgv, runCli } from '../fixtures/cli'
import { makeTranscriptSession, SK_KEY } from '../fixtures/transcript-session'
import type { TranscriptSession } from '../fixtures/transcript-session'
import { SHOT_SIZES } from './shots'

const SHOTS = 'test-results/export'

let made: TranscriptSession
let file: string

test.beforeAll(async () => {
  test.setTimeout(90_000)
  made = await makeTranscriptSession()
  file = join(made.home, 'transcript.html')
  const result = await runCli(
    cliArgv({ home: made.data }, 'export', made.sessionId, '--format', 'html', '--out', file),
    { env: made.env },
  )
  expect(result.status, result.stderr).toBe(0)
})

test.afterAll(async () => {
  await made.dispose()
})

test('the HTML transcript runs nothing, fetches nothing, folds the tools and shows the diff', async ({
  page,
}) => {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('dialog', (dialog) => {
    problems.push(`a dialog opened: ${dialog.message()}`)
    void dialog.dismiss()
  })
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) problems.push(`fetched ${request.url()}`)
  })
  await page.goto(pathToFileURL(file).href)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  expect(readFileSync(file, 'utf8')).not.toContain(SK_KEY)

  // The message's own tags are text on the page.
  await expect(page.locator('.msg.user')).toContainText('<script>alert("pwned")</script>')
  await expect(page.locator('.msg.assistant')).toContainText('</details><script>bad()</script>')

  // Tools are folded: the command's output shows only once its card is opened.
  const bash = page.locator('details.tool', { hasText: 'printf' })
  await expect(bash.getByText('home is ~/sub')).toBeHidden()
  await bash.locator('summary').click()
  await expect(bash.getByText('home is ~/sub')).toBeVisible()
  await expect(bash.getByText(/72 more lines not shown/)).toBeVisible()

  // The turn's change is shown open, as a diff.
  const diff = page.locator('details.file pre.diff')
  await expect(diff).toBeVisible()
  await expect(diff.locator('.d-add')).toHaveText(['+# Notes', '+line one', '+line 2, edited'])

  // The image in the answer stayed a link: nothing was fetched.
  await expect(page.locator('img')).toHaveCount(0)
  await expect(page.locator('a.image-link')).toHaveText('[image: tracker]')
  expect(made.trackerHits()).toBe(0)

  // Reasoning folded too; opened for the pictures, with the edit's card.
  await page.locator('details.reasoning summary').click()
  await page.locator('details.tool', { hasText: 'edit' }).locator('summary').click()
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    for (const size of SHOT_SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height })
      await page.screenshot({ path: `${SHOTS}/transcript-${size.name}-${theme}.png` })
      await page.screenshot({
        path: `${SHOTS}/transcript-${size.name}-${theme}-full.png`,
        fullPage: true,
      })
    }
    const axe = await new AxeBuilder({ page }).analyze()
    expect(
      axe.violations.map((v) => `${theme} ${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`),
    ).toEqual([])
  }
  expect(problems).toEqual([])
})
