/**
 * "Import…" (issue 20) through a real `bridle serve` whose HOME is a temporary folder holding
 * session files as Claude Code and Codex CLI keep them: the dialog lists them by tool, importing
 * one by keyboard opens it with its messages in the open project; a file in no known format
 * shows the host's error and creates nothing; the folder a file recorded is offered only when it
 * exists, is not preselected, and when chosen the session opens in that project. Screenshots in
 * test-results/import/ at 1440×900 and 1024×700, light and dark, with an axe check each.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { shootEachWay } from './shots'

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'import')
const SHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'import')

let app: AppUnderTest
let userHome: string
let consoleErrors: string[]

test.beforeEach(({ page }) => {
  userHome = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-e2e-user-')))
  consoleErrors = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
})

test.afterEach(async () => {
  // Taken before the server stops: a closed bridge logs its own errors.
  const errors = unexpectedErrors(consoleErrors)
  await app.stop()
  rmSync(userHome, { recursive: true, force: true })
  expect(errors).toEqual([])
})

/** Copies a fixture where its tool keeps sessions under the fake home folder. */
function place(fixture: string, relative: string): void {
  const path = join(userHome, relative)
  mkdirSync(join(path, '..'), { recursive: true })
  copyFileSync(join(fixtures, fixture), path)
}

async function openImport(page: Page) {
  await page.goto(app.url)
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  await sidebar.getByRole('button', { name: 'Import…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Import a session' })
  await expect(dialog).toHaveAttribute('aria-modal', 'true')
  return dialog
}

async function expectNoAxeViolations(page: Page, where: string) {
  const axe = await new AxeBuilder({ page }).include('.import-dialog').analyze()
  expect(
    axe.violations.map(
      (v) =>
        `${where}: ${v.id} ${v.impact}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`,
    ),
  ).toEqual([])
}

test('Import… lists the scanned sessions by tool; importing one opens it with its messages', async ({
  page,
}) => {
  place('claude-code.jsonl', '.claude/projects/-home-dev-demo/3f1c2a9e.jsonl')
  place('codex-rollout.jsonl', '.codex/sessions/2026/12/06/rollout-2026-12-06T10-00-00-a.jsonl')
  app = await startApp({ env: { HOME: userHome }, script: [] })
  await page.setViewportSize({ width: 1440, height: 900 })
  const dialog = await openImport(page)

  const claude = dialog.getByRole('radiogroup', { name: 'Claude Code sessions' })
  await expect(claude).toContainText('~/.claude/projects')
  const codex = dialog.getByRole('radiogroup', { name: 'Codex CLI sessions' })
  await expect(codex.getByRole('radio')).toHaveCount(1)
  const session = claude.getByRole('radio', { name: 'Create notes.txt saying hello' })
  await expect(session).toHaveAccessibleDescription(/\/home\/dev\/demo/)

  // By keyboard: the session, then Import.
  await session.focus()
  await page.keyboard.press('Space')
  await expect(session).toBeChecked()
  const folders = dialog.getByRole('group', { name: 'Project folder' })
  await expect(folders).toContainText('~/.claude/projects/-home-dev-demo/3f1c2a9e.jsonl')
  // The recorded folder does not exist here: said, not offered.
  await expect(folders).toContainText(
    'The file recorded /home/dev/demo, which is not a folder here.',
  )
  await expect(folders.getByRole('radio')).toHaveCount(2)
  await expect(folders.getByRole('radio', { name: /The open project/ })).toBeChecked()

  mkdirSync(SHOTS, { recursive: true })
  await shootEachWay(page, (size, theme) => join(SHOTS, `import-dialog-${size}-${theme}.png`), {
    check: (where) => expectNoAxeViolations(page, where),
  })
  await expect(dialog).toBeVisible()

  await dialog.getByRole('button', { name: 'Import', exact: true }).focus()
  await page.keyboard.press('Enter')
  await expect(dialog).toBeHidden()
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(chat).toContainText('Create notes.txt saying hello')
  await expect(chat).toContainText('What does notes.txt say?')
  await expect(chat).toContainText('It says hello.')
  await page.screenshot({ path: join(SHOTS, 'imported-session-1440-light.png') })
  const tree = page.getByRole('tree', { name: 'Session tree' })
  await expect(tree.getByRole('treeitem')).toHaveCount(1)
  await expect(tree.getByRole('treeitem').first()).toHaveAttribute('aria-selected', 'true')
})

test('in a narrow window Import… opens from the sessions sheet, which closes', async ({ page }) => {
  app = await startApp({ env: { HOME: userHome }, script: [] })
  await page.setViewportSize({ width: 1024, height: 700 })
  await page.goto(app.url)
  await page.getByRole('button', { name: 'Sessions' }).first().click()
  const sheet = page.getByRole('dialog', { name: 'Sessions' })
  await sheet.getByRole('button', { name: 'Import…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Import a session' })
  await expect(dialog).toBeVisible()
  await expect(sheet).toBeHidden()
  await expect(dialog.locator(':focus')).toHaveCount(1)
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
})

test('a file in no known format shows the error and creates nothing; a recorded folder is chosen only by the user', async ({
  page,
}) => {
  app = await startApp({ env: { HOME: userHome }, script: [] })
  await page.setViewportSize({ width: 1440, height: 900 })
  const dialog = await openImport(page)
  await expect(dialog).toContainText('No sessions found in')
  await expect(dialog).toContainText('~/.claude/projects')

  await dialog.getByRole('button', { name: 'Choose file…' }).click()
  const path = dialog.getByRole('textbox', { name: 'Session file path' })
  await path.fill(join(fixtures, 'not-a-session.jsonl'))
  await path.press('Enter')
  const alert = dialog.getByRole('alert')
  await expect(alert).toContainText('not a session file Bridle can import')
  await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled()
  await shootEachWay(page, (size, theme) => join(SHOTS, `import-refused-${size}-${theme}.png`))
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByRole('tree', { name: 'Session tree' }).getByRole('treeitem')).toHaveCount(
    0,
  )

  // A pi session that recorded a folder which exists here (not the open project).
  const recorded = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-e2e-recorded-')))
  const file = join(userHome, 'shared-session.jsonl')
  writeFileSync(
    file,
    readFileSync(join(fixtures, 'pi-session.jsonl'), 'utf8').replaceAll('/home/dev/demo', recorded),
  )
  try {
    await page
      .getByRole('complementary', { name: 'Sessions' })
      .getByRole('button', { name: 'Import…' })
      .click()
    await dialog.getByRole('button', { name: 'Choose file…' }).click()
    await path.fill('~/shared-session.jsonl')
    await dialog.getByRole('button', { name: 'Read file' }).click()
    const folders = dialog.getByRole('group', { name: 'Project folder' })
    const fromFile = folders.getByRole('radio', { name: /The folder recorded in the file/ })
    await expect(fromFile).toBeVisible()
    await expect(fromFile).not.toBeChecked()
    await expect(folders).toContainText('from the file')
    await expect(folders.getByRole('radio', { name: /The open project/ })).toBeChecked()
    await fromFile.check()
    await dialog.getByRole('button', { name: 'Import', exact: true }).click()
    await expect(dialog).toBeHidden()
    // The session opens in its own project, now the one the sidebar shows.
    await expect(page.getByRole('combobox', { name: 'Project' })).toContainText(basename(recorded))
    const chat = page.getByRole('main', { name: 'Chat' })
    await expect(chat).toContainText('notes.txt')
    await expect(
      page.getByRole('tree', { name: 'Session tree' }).getByRole('treeitem').first(),
    ).toHaveAttribute('aria-selected', 'true')
  } finally {
    rmSync(recorded, { recursive: true, force: true })
  }
})
