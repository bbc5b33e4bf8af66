/**
 * "Export…" in the UI (issue 20) through a real `bridle serve` under its strict CSP: a scripted
 * turn writes a file (so the transcript has a diff) after a prompt holding a fake API key. The
 * session is exported from its tree row's menu as HTML and from the chat header as Markdown
 * (and the row menu opens it from the narrow window's sessions sheet too);
 * each download is read back for its name, the prompt and the diff, and the key's absence. With
 * the bridge gone, Save says so in the dialog, which keeps the choice made. Screenshots:
 * test-results/export-dialog-{1440,1024}-{light,dark}.png, with an axe check each, and of the chat
 * header's button, test-results/export-button-{1440,1024}-{light,dark}.png.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Download, Locator, Page } from '@playwright/test'
import { fake } from '../fixtures/fake-secrets'
import { startApp, typeInComposer } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { shootEachWay } from './shots'

const SHOTS = join(import.meta.dirname, '..', '..', 'test-results')
const KEY = fake('sk', '-exportUi0123456789abcdefXYZ')
const PROMPT = `Write notes.md with a greeting. My key is ${KEY} so keep it safe.`
const TITLE = 'Greeting notes for the export'
const FILE_STEM = 'greeting-notes-for-the-export'
const NOTE_LINE = 'hello from the export test'

// A turn, four screenshots with axe, two downloads: well past the default on a slow machine.
test.setTimeout(120_000)

let app: AppUnderTest
let consoleErrors: string[]
/** Set when a test stops the server on purpose: the closed bridge then logs its own errors. */
let isServerStopped: boolean

test.beforeEach(async ({ page }) => {
  consoleErrors = []
  isServerStopped = false
  page.on('console', (message) => {
    if (message.type() === 'error' && !isServerStopped) consoleErrors.push(message.text())
  })
  app = await startApp({
    script: [
      {
        steps: [
          {
            toolCall: {
              name: 'write',
              args: JSON.stringify({ path: 'notes.md', content: `# Notes\n${NOTE_LINE}\n` }),
            },
          },
          { finish: 'tool_calls' },
        ],
      },
      'Wrote notes.md.',
    ],
    title: TITLE,
    config: { approval: 'full-auto' },
  })
  await page.setViewportSize({ width: 1440, height: 900 })
})

test.afterEach(async () => {
  const errors = unexpectedErrors(consoleErrors)
  await app.stop()
  expect(errors).toEqual([])
})

/** Sends the prompt and waits for the answer and the session's title in the tree. */
async function runTurn(page: Page): Promise<Locator> {
  await page.goto(app.url)
  await typeInComposer(page.getByRole('textbox', { name: 'Message' }), PROMPT)
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(page.getByRole('main', { name: 'Chat' })).toContainText('Wrote notes.md.')
  const row = page
    .getByRole('tree', { name: 'Session tree' })
    .getByRole('treeitem', { name: new RegExp(`^${TITLE}`) })
  await expect(row).toBeVisible()
  return row
}

/** Presses Save and gives the download's suggested name and text once the dialog has closed. */
async function save(page: Page, dialog: Locator): Promise<{ name: string; text: string }> {
  const downloading = page.waitForEvent('download')
  await dialog.getByRole('button', { name: 'Save' }).click()
  const download: Download = await downloading
  await expect(dialog).toBeHidden()
  const path = await download.path()
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') }
}

async function expectNoAxeViolations(page: Page, where: string) {
  const axe = await new AxeBuilder({ page }).include('.export-dialog').analyze()
  expect(
    axe.violations.map(
      (v) =>
        `${where}: ${v.id} ${v.impact}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`,
    ),
  ).toEqual([])
}

test('exports from the row menu as HTML and from the chat as Markdown, the key left out', async ({
  page,
}) => {
  const row = await runTurn(page)
  const dialog = page.getByRole('dialog', { name: 'Export transcript' })

  // By keyboard: the row's menu, Export…, then Escape gives the focus back to the row.
  await row.focus()
  await page.keyboard.press('Shift+F10')
  await page.getByRole('menuitem', { name: 'Export…' }).press('Enter')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('radio', { name: 'HTML page' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(row).toBeFocused()

  await row.click({ button: 'right' })
  await page.getByRole('menuitem', { name: 'Export…' }).click()
  await expect(dialog).toHaveAttribute('aria-modal', 'true')
  await expect(dialog).toHaveAccessibleDescription(new RegExp(`^${TITLE}`))
  const html = dialog.getByRole('radio', { name: 'HTML page' })
  await expect(html).toBeChecked()
  await expect(html).toHaveAccessibleDescription(/opens in any browser/)
  await expect(dialog).toContainText('review the file before you share it')

  mkdirSync(SHOTS, { recursive: true })
  await shootEachWay(page, (size, theme) => join(SHOTS, `export-dialog-${size}-${theme}.png`), {
    check: (where) => expectNoAxeViolations(page, where),
  })

  const asHtml = await save(page, dialog)
  expect(asHtml.name).toBe(`${FILE_STEM}.html`)
  expect(asHtml.text).toMatch(/^<!doctype html>/i)
  expect(asHtml.text).toContain('Write notes.md with a greeting.')
  expect(asHtml.text).toContain(`+${NOTE_LINE}`)
  expect(asHtml.text).not.toContain(KEY)

  // The open session, from the chat header, as Markdown.
  await page.getByRole('main', { name: 'Chat' }).getByRole('button', { name: 'Export…' }).click()
  await expect(dialog).toBeVisible()
  await dialog.getByRole('radio', { name: 'Markdown' }).check()
  const asMarkdown = await save(page, dialog)
  expect(asMarkdown.name).toBe(`${FILE_STEM}.md`)
  expect(asMarkdown.text).toContain('Write notes.md with a greeting.')
  expect(asMarkdown.text).toMatch(new RegExp(`\`\`\`diff\\n[^]*\\+${NOTE_LINE}\\n`))
  expect(asMarkdown.text).not.toContain(KEY)
  await expect(
    page.getByRole('main', { name: 'Chat' }).getByRole('button', { name: 'Export…' }),
  ).toBeFocused()

  // In a narrow window the tree is a sheet, which closes when its row opens the dialog.
  await page.setViewportSize({ width: 1024, height: 700 })
  await page.getByRole('button', { name: 'Sessions' }).first().click()
  const sheet = page.getByRole('dialog', { name: 'Sessions' })
  await sheet.getByRole('treeitem', { name: new RegExp(`^${TITLE}`) }).click({ button: 'right' })
  await page.getByRole('menuitem', { name: 'Export…' }).click()
  await expect(dialog).toBeVisible()
  await expect(sheet).toBeHidden()
  await expect(dialog.getByRole('radio', { name: 'HTML page' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
})

test('with the bridge gone, Save says so in the dialog, which keeps the choice', async ({
  page,
}) => {
  await runTurn(page)
  // The chat header's button beside the model and code mode, as it looks in each way.
  await shootEachWay(page, (size, theme) => join(SHOTS, `export-button-${size}-${theme}.png`))
  await page.getByRole('main', { name: 'Chat' }).getByRole('button', { name: 'Export…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Export transcript' })
  await dialog.getByRole('radio', { name: 'Markdown' }).check()

  isServerStopped = true
  await app.serve.stop()
  let downloads = 0
  page.on('download', () => downloads++)
  await dialog.getByRole('button', { name: 'Save' }).click()
  await expect(dialog.getByRole('alert')).toHaveText(
    'Nothing was exported: Bridle is not connected. Try again once it is back.',
  )
  await expect(dialog.getByRole('radio', { name: 'Markdown' })).toBeChecked()
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeEnabled()
  expect(downloads).toBe(0)
  await page.screenshot({ path: join(SHOTS, 'export-dialog-failed-1440-light.png') })
})
