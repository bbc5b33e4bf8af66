/**
 * Restoring files from the app (`bridle serve`, the real bridge, real files): two turns write and
 * create files; "Restore files to here" on turn 1's end in the timeline shows what it will do and
 * puts turn 1's files back; a file changed by hand stops "Undo restore" with the drift warning,
 * and "Undo anyway" brings the latest files back. Edit offers to restore first and does it in the
 * fork; the tree's row menu restores a session's own end state, and a fork's banner its point.
 * Screenshots: test-results/restore-{plan,drift}-{1440,1024}-{light,dark}.png.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { openInspector } from './shell-nav'
import { shootEachWay } from './shots'

let app: AppUnderTest

const write = (path: string, content: string) => ({
  steps: [
    { toolCall: { name: 'write', args: JSON.stringify({ path, content }) } },
    { finish: 'tool_calls' },
  ],
})

test.beforeEach(async () => {
  app = await startApp({
    script: [
      write('notes.md', 'first\n'),
      'Wrote the first notes.',
      write('notes.md', 'second\n'),
      write('extra.md', 'extra\n'),
      'Wrote the second notes and an extra file.',
      'Nothing to write this time.',
    ],
    config: { approval: 'full-auto' },
  })
})

test.afterEach(async () => {
  await app.stop()
})

/** Sends a prompt and waits until its answer is in the chat and the turn has ended. */
async function runTurn(page: Page, text: string, answer: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(chat).toContainText(answer)
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
}

const file = (path: string) => join(app.project, path)
const read = (path: string) => readFileSync(file(path), 'utf8')

/** Two turns: notes.md "first", then notes.md "second" and a new extra.md. */
async function twoTurns(page: Page): Promise<void> {
  await page.goto(app.url)
  await runTurn(page, 'Write the notes', 'Wrote the first notes.')
  await runTurn(page, 'Write them again', 'Wrote the second notes and an extra file.')
  expect(read('notes.md')).toBe('second\n')
  expect(read('extra.md')).toBe('extra\n')
}

test('"Restore files to here" on an event, the drift prompt, and undo', async ({ page }) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await twoTurns(page)

  const timeline = await openInspector(page, 'Timeline')
  const table = timeline.getByRole('grid', { name: 'Events' })
  // Just the turn ends (the table is virtualised: turn 1's end may be scrolled out of it).
  await timeline.getByText('Types', { exact: true }).click()
  await timeline.getByRole('checkbox', { name: 'turn/end' }).check()
  await timeline.getByText(/^Types/).click()
  await expect(table.locator('[role="row"][data-type="turn/end"]')).toHaveCount(2)
  const turn1End = table.locator('[role="row"][data-type="turn/end"]').first()
  const endSeq = Number(await turn1End.getAttribute('data-seq'))
  await turn1End.click()
  await timeline.getByRole('button', { name: 'Restore files to here' }).click()

  // The dry run, file by file: what goes back and what goes away; nothing touched yet.
  const dialog = page.getByRole('dialog', { name: 'Restore files' })
  await expect(dialog).toContainText(`right after event ${endSeq} (the end of turn 1)`)
  const files = dialog.getByRole('list', { name: 'Files' })
  await expect(files.getByRole('listitem')).toHaveText(['removedextra.md', 'put backnotes.md'])
  expect(read('notes.md')).toBe('second\n')
  await shootEachWay(page, (size, theme) => `test-results/restore-plan-${size}-${theme}.png`)
  await dialog.getByRole('button', { name: 'Restore files' }).click()
  await expect(dialog.getByRole('status')).toHaveText('Files restored: 1 file put back, 1 removed.')
  expect(read('notes.md')).toBe('first\n')
  expect(existsSync(file('extra.md'))).toBe(false)
  await dialog.getByRole('button', { name: 'Done' }).click()
  await expect(dialog).toHaveCount(0)

  // The chat shows the restore, with the way back.
  const chat = page.getByRole('main', { name: 'Chat' })
  const row = chat.getByRole('status', { name: /^Files restored/ })
  await expect(row).toContainText(`Files restored to event ${endSeq}: 1 file put back, 1 removed.`)

  // A change made by hand since: "Undo restore" names it and asks before overwriting it.
  writeFileSync(file('notes.md'), 'by hand\n')
  await row.getByRole('button', { name: 'Undo restore' }).click()
  const undo = page.getByRole('dialog', { name: 'Undo restore' })
  const drift = undo.getByRole('alert')
  await expect(drift).toContainText(
    'A file has changed outside Bridle since this session last saw it.',
  )
  await expect(drift.getByRole('list', { name: 'Changed outside Bridle' })).toHaveText('notes.md')
  await expect(undo.getByRole('button', { name: 'Undo anyway' })).toBeVisible()
  await shootEachWay(page, (size, theme) => `test-results/restore-drift-${size}-${theme}.png`)
  expect(read('notes.md')).toBe('by hand\n')
  await undo.getByRole('button', { name: 'Undo anyway' }).click()
  await expect(undo.getByRole('status')).toHaveText(
    'Restore undone: 2 files put back. Overwrote 1 change made outside Bridle.',
  )
  expect(read('notes.md')).toBe('second\n')
  expect(read('extra.md')).toBe('extra\n')
  await undo.getByRole('button', { name: 'Done' }).click()

  // The restore is marked undone and can no longer be undone; the undo has its own row.
  await expect(row).toContainText('(undone)')
  await expect(row.getByRole('button', { name: 'Undo restore' })).toHaveCount(0)
  await expect(chat.getByRole('status', { name: /^Restore undone/ })).toContainText(
    'Overwrote 1 changed outside Bridle.',
  )
  // The timeline has both events, summarised.
  await timeline.getByText(/^Types/).click()
  await timeline.getByRole('checkbox', { name: 'turn/end' }).uncheck()
  await timeline.getByRole('checkbox', { name: 'workspace/restored' }).check()
  await timeline.getByRole('checkbox', { name: 'workspace/restore-undone' }).check()
  await timeline.getByText(/^Types/).click()
  await expect(table.locator('[role="row"][data-type="workspace/restored"]')).toContainText(
    `files put back to seq ${endSeq}: 1 written, 1 removed`,
  )
  await expect(table.locator('[role="row"][data-type="workspace/restore-undone"]')).toContainText(
    'undoes the restore at seq',
  )
  expect(unexpectedErrors(consoleErrors)).toEqual([])
})

test("Edit offers to restore the files first, in the fork; the tree restores a session's end", async ({
  page,
}) => {
  await twoTurns(page)
  const chat = page.getByRole('main', { name: 'Chat' })
  const second = chat.getByRole('article', { name: /^You/ }).nth(1)
  await second.hover()
  await second.getByRole('button', { name: /^Edit/ }).click()
  await second.getByRole('textbox', { name: 'Edited message' }).fill('Do nothing this time')
  await second.getByRole('button', { name: 'Send edit' }).click()

  // The files changed since that message: the dialog says what a restore does, and asks.
  const offer = page.getByRole('dialog', { name: 'Restore files' })
  await expect(offer).toContainText('before this message')
  await expect(offer.getByRole('list', { name: 'Files' }).getByRole('listitem')).toHaveText([
    'removedextra.md',
    'put backnotes.md',
  ])
  await offer.getByRole('button', { name: 'Restore files and send' }).click()
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
  await expect(chat).toContainText('Nothing to write this time.')
  // Restored in the fork before its message: the model worked on turn 1's files.
  expect(read('notes.md')).toBe('first\n')
  expect(existsSync(file('extra.md'))).toBe(false)
  await expect(chat.getByRole('status', { name: /^Files restored/ })).toBeVisible()
  expect(JSON.stringify(chatRequests(app.model).at(-1)?.body)).toContain('Do nothing this time')

  // The parent's row menu puts back the files as the parent left them.
  const tree = page.getByRole('tree', { name: 'Session tree' })
  const parent = tree.getByRole('treeitem', { name: /^Write the notes/ })
  await parent.focus()
  await page.keyboard.press('Shift+F10')
  await page.getByRole('menuitem', { name: 'Restore files to here' }).click()
  const dialog = page.getByRole('dialog', { name: 'Restore files' })
  await expect(dialog).toContainText('at the end of this session')
  await dialog.getByRole('button', { name: 'Restore files' }).click()
  await expect(dialog.getByRole('status')).toHaveText('Files restored: 2 files put back.')
  expect(read('notes.md')).toBe('second\n')
  expect(read('extra.md')).toBe('extra\n')
  await dialog.getByRole('button', { name: 'Done' }).click()

  // The fork's banner offers its fork point: the parent's later files go again.
  const banner = chat.getByRole('note', { name: 'Fork origin' })
  await banner.getByRole('button', { name: 'Restore files to the fork point' }).click()
  const toPoint = page.getByRole('dialog', { name: 'Restore files' })
  await expect(toPoint).toContainText('at the fork point')
  await toPoint.getByRole('button', { name: 'Restore files' }).click()
  await expect(toPoint.getByRole('status')).toHaveText(
    'Files restored: 1 file put back, 1 removed.',
  )
  expect(read('notes.md')).toBe('first\n')
  expect(existsSync(file('extra.md'))).toBe(false)
})
