/**
 * Restoring files over the real bridge (`bridle serve`, the WebSocket, the contract's checks):
 * two turns write a file, `workspace/restore` puts turn 1's content back, a change made by hand
 * stops `workspace/undoRestore` with `drifted`, and `force` undoes it. The timeline shows both
 * events with their summaries (the restore UI itself comes later).
 * Screenshots: test-results/restore-timeline-{1440,1024}-{light,dark}.png.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { valueFromPage } from './page-bridge'
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
      'Wrote the second notes.',
    ],
    config: { approval: 'full-auto' },
  })
})

test.afterEach(async () => {
  await app.stop()
})

const bridgeCall = (page: Page, method: string, params: unknown) =>
  valueFromPage(page, app.serve.origin, method, params)

interface Listed {
  items: { id: string; eventCount: number; isRunning: boolean }[]
}

/** Sends a prompt and waits, on the bridge, for its turn to end; gives the session id. */
async function runTurn(page: Page, text: string, turn: number): Promise<string> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  let sessionId = ''
  await expect
    .poll(async () => {
      const session = ((await bridgeCall(page, 'session/list', {})) as Listed).items[0]
      if (session === undefined || session.isRunning) return false
      sessionId = session.id
      const page1 = (await bridgeCall(page, 'session/events', {
        sessionId,
        types: ['turn/end'],
      })) as { events: unknown[] }
      return page1.events.length >= turn
    })
    .toBe(true)
  return sessionId
}

test('restores over the bridge, stops on drift, forces the undo; the timeline shows both', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.goto(app.url)
  const sessionId = await runTurn(page, 'Write the notes', 1)
  await runTurn(page, 'Write them again', 2)
  const notes = join(app.project, 'notes.md')
  expect(readFileSync(notes, 'utf8')).toBe('second\n')

  const ends = (await bridgeCall(page, 'session/events', {
    sessionId,
    types: ['turn/end'],
  })) as { events: { seq: number }[] }
  const turn1End = ends.events[0]?.seq ?? -1
  expect(await bridgeCall(page, 'workspace/restore', { sessionId, toSeq: turn1End })).toMatchObject(
    {
      status: 'restored',
      written: ['notes.md'],
      removed: [],
      skipped: [],
      drifted: [],
    },
  )
  expect(readFileSync(notes, 'utf8')).toBe('first\n')

  writeFileSync(notes, 'by hand\n')
  expect(await bridgeCall(page, 'workspace/undoRestore', { sessionId })).toEqual({
    status: 'drifted',
    drifted: ['notes.md'],
  })
  expect(readFileSync(notes, 'utf8')).toBe('by hand\n')
  expect(await bridgeCall(page, 'workspace/undoRestore', { sessionId, force: true })).toMatchObject(
    { status: 'restored', written: ['notes.md'], drifted: ['notes.md'] },
  )
  expect(readFileSync(notes, 'utf8')).toBe('second\n')

  const timeline = await openInspector(page, 'Timeline')
  const table = timeline.getByRole('grid', { name: 'Events' })
  const restored = table.locator('[role="row"][data-type="workspace/restored"]')
  const undone = table.locator('[role="row"][data-type="workspace/restore-undone"]')
  await expect(restored).toContainText(`files put back to seq ${turn1End}: 1 written, 0 removed`)
  await expect(undone).toContainText('undoes the restore at seq')
  await undone.click()
  await expect(timeline.getByTestId('event-json')).toContainText('"cause": "user"')
  await shootEachWay(page, (size, theme) => `test-results/restore-timeline-${size}-${theme}.png`, {
    prepare: () => undone.scrollIntoViewIfNeeded(),
  })
  expect(unexpectedErrors(consoleErrors)).toEqual([])
})
