/**
 * The timeline inspector through `bridle serve` with the scripted model: a turn whose assistant
 * message asks for two `read`s at once, then answers. The Timeline lists every event of the log
 * (chunks too), filters by type on the server, shows an event's JSON, draws the two reads as
 * overlapping bars, and the second request's diff holds only what the first request lacked.
 */
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { startApp } from './app-fixture'
import { openOptions } from './combobox'
import { unexpectedErrors } from './console-errors'
import { openInspector } from './shell-nav'
import { valueFromPage } from './page-bridge'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    script: [
      {
        steps: [
          { text: 'Reading both files.' },
          { toolCall: { name: 'read', args: '{"path":"README.md"}' } },
          { toolCall: { name: 'read', args: '{"path":"src/app.ts"}' } },
          { usage: { prompt_tokens: 900, completion_tokens: 30 } },
        ],
        chunkSize: 8,
      },
      {
        steps: [
          { text: 'The answer is 41, and the README is a demo.' },
          { usage: { prompt_tokens: 1000, completion_tokens: 12 } },
        ],
        chunkSize: 8,
      },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

/** Calls the bridge from the page (the page holds the serve cookie). */
function bridgeCall(page: Page, method: string, params: unknown): Promise<unknown> {
  return valueFromPage(page, app.serve.origin, method, params)
}

interface Listed {
  items: { id: string; eventCount: number; isRunning: boolean }[]
}

/**
 * Sends a prompt and waits until its turn has ended, asked of the bridge: the inspector must not
 * depend on what the chat shows. A turn takes seconds on a busy 2-core machine.
 */
async function runTurn(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send' }).click()
  await expect
    .poll(
      async () => {
        const listed = (await bridgeCall(page, 'session/list', {})) as Listed
        const session = listed.items[0]
        return session !== undefined && !session.isRunning && session.eventCount > 20
      },
      { timeout: 30_000 },
    )
    .toBe(true)
}

/** One attribute of every element `locator` matches (no DOM types here: this is Node code). */
async function attrsOf(locator: Locator, name: string): Promise<string[]> {
  const values: string[] = []
  for (const element of await locator.all()) values.push((await element.getAttribute(name)) ?? '')
  return values
}

async function rowSeqs(table: Locator): Promise<number[]> {
  const seqs = await attrsOf(table.locator('[role="row"][data-seq]'), 'data-seq')
  return seqs.map(Number).sort((a, b) => a - b)
}

async function barFacts(bar: Locator) {
  const read = async (name: string) => Number(await bar.getAttribute(name))
  return {
    lane: await read('data-lane'),
    row: await read('data-row'),
    start: await read('data-start'),
    end: await read('data-end'),
    startSeq: await read('data-start-seq'),
    endSeq: await read('data-end-seq'),
  }
}

test('lists every event, filters by tool/call, shows JSON, overlapping reads, request diff', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1500, height: 900 })
  await page.goto(app.url)
  await runTurn(page, 'Read README.md and src/app.ts')

  await openInspector(page, 'Timeline')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  const table = timeline.getByRole('grid', { name: 'Events' })

  // Every event of the log, chunks included, seq 0 to the end without a gap.
  const listed = (await bridgeCall(page, 'session/list', {})) as Listed
  const session = listed.items[0]
  expect(session).toBeDefined()
  const eventCount = session?.eventCount ?? 0
  await expect(timeline.getByTestId('timeline-count')).toHaveAttribute(
    'data-count',
    String(eventCount),
  )
  await expect.poll(() => rowSeqs(table)).toEqual(Array.from({ length: eventCount }, (_, i) => i))
  await expect(table.locator('[data-type="assistant/chunk"]').first()).toBeAttached()

  // Filter by tool/call (server-side): just the two reads.
  await timeline.getByText('Types', { exact: true }).click()
  await timeline.getByRole('checkbox', { name: 'tool/call' }).check()
  await timeline.getByText(/^Types/).click()
  await expect(table.locator('[role="row"][data-seq]')).toHaveCount(2)
  const types = await attrsOf(table.locator('[role="row"][data-seq]'), 'data-type')
  expect(types).toEqual(['tool/call', 'tool/call'])

  // Selecting one shows its JSON.
  await table.locator('[role="row"][data-seq]').first().click()
  const json = timeline.getByTestId('event-json')
  await expect(json).toContainText('"type": "tool/call"')
  await expect(json).toContainText('"name": "read"')
  await expect(json).toContainText('README.md')
  await page.screenshot({ path: 'test-results/inspector.png' })

  // The Gantt: the two reads on different rows of the step's lane, overlapping in time.
  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  const reads = timeline.locator('[data-testid="gantt-bar"][data-kind="tool"]')
  await expect(reads).toHaveCount(2)
  const a = await barFacts(reads.nth(0))
  const b = await barFacts(reads.nth(1))
  expect(a.lane).toBe(b.lane)
  expect(a.row).not.toBe(b.row)
  // Both started before either finished, in the log and on the clock.
  expect(b.startSeq).toBeLessThan(a.endSeq)
  expect(a.startSeq).toBeLessThan(b.endSeq)
  expect(a.start).toBeLessThanOrEqual(b.end)
  expect(b.start).toBeLessThanOrEqual(a.end)
  const boxA = await reads.nth(0).boundingBox()
  const boxB = await reads.nth(1).boundingBox()
  expect(boxA && boxB).toBeTruthy()
  if (!boxA || !boxB) return
  // Drawn overlapping: their x ranges intersect, on different rows.
  expect(boxA.x).toBeLessThan(boxB.x + boxB.width)
  expect(boxB.x).toBeLessThan(boxA.x + boxA.width)
  expect(boxA.y).not.toBe(boxB.y)
  await expect(timeline.locator('[data-testid="gantt-bar"][data-kind="request"]')).toHaveCount(2)
  // Every bar's label is whole inside the drawer: none runs past its right edge (the last
  // request's used to) or before its left.
  const drawer = await page.getByRole('complementary', { name: 'Inspector' }).boundingBox()
  const labels = await timeline.locator('.gantt-item-label').all()
  expect(labels.length).toBeGreaterThan(0)
  for (const label of labels) {
    const box = await label.boundingBox()
    const text = await label.innerText()
    expect(box?.x ?? -1, text).toBeGreaterThanOrEqual(drawer?.x ?? 0)
    expect((box?.x ?? 0) + (box?.width ?? 0), text).toBeLessThanOrEqual(
      (drawer?.x ?? 0) + (drawer?.width ?? 0),
    )
  }
  await page.screenshot({ path: 'test-results/inspector-gantt.png' })

  // The request view of the second request: only the assistant's calls and the two outputs are new.
  await timeline.getByRole('tab', { name: 'Request' }).click()
  const requestPicker = timeline.getByRole('combobox', { name: 'Request' })
  const requests = (await openOptions(requestPicker)).getByRole('option')
  await expect(requests).toHaveCount(2)
  await requests.nth(1).click()
  await expect(requestPicker).toHaveText(/^#2 /)
  const messages = timeline.getByTestId('request-message')
  await expect(messages).toHaveCount(3)
  const roles = await attrsOf(messages, 'data-role')
  const statuses = await attrsOf(messages, 'data-status')
  const shown = roles.map((role, i) => [role, statuses[i]])
  expect(shown).toEqual([
    ['assistant', 'new'],
    ['tool', 'new'],
    ['tool', 'new'],
  ])
  await expect(messages.nth(0)).toContainText('read')
  await expect(messages.nth(1)).toContainText('# Demo')
  await expect(messages.nth(2)).toContainText('answer = 41')
  await expect(timeline.getByTestId('request-diff-summary')).toContainText('0 gone')
  const tokens = timeline.getByRole('table', { name: 'Tokens by part' })
  await expect(tokens.locator('[data-part="server reported"]')).toHaveText('1000')
  await expect(tokens.locator('[data-part="total"]')).toHaveText(/^\d+$/)
  // All messages: the earlier ones are there, marked the same.
  await timeline.getByRole('checkbox', { name: /all \d+ messages/ }).check()
  await expect(messages.filter({ has: page.locator('.rq-badge-same') }).first()).toBeVisible()
  await timeline.getByRole('checkbox', { name: /all \d+ messages/ }).uncheck()
  await page.screenshot({ path: 'test-results/inspector-request.png' })
  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  await page.emulateMedia({ colorScheme: 'dark' })
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await page.screenshot({ path: 'test-results/inspector-dark.png' })
  expect(unexpectedErrors(consoleErrors)).toEqual([])
})

/** One turn with two parallel reads, then the Timeline tab: its region and its table. */
async function timelineAfterTurn(page: Page) {
  await page.setViewportSize({ width: 1500, height: 900 })
  await page.goto(app.url)
  await runTurn(page, 'Read both')
  await openInspector(page, 'Timeline')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  return { timeline, table: timeline.getByRole('grid', { name: 'Events' }) }
}

test('a selection from outside scrolls the table to that row and highlights it', async ({
  page,
}) => {
  const { timeline, table } = await timelineAfterTurn(page)
  // Select in the Gantt (another view of the panel): back in the table, the row is selected.
  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  const bar = timeline.locator('[data-testid="gantt-bar"][data-kind="tool"]').nth(1)
  const seq = await bar.getAttribute('data-start-seq')
  await bar.click()
  await timeline.getByRole('tab', { name: 'Events' }).click()
  await expect(table.locator(`[role="row"][data-seq="${seq ?? ''}"]`)).toHaveAttribute(
    'aria-selected',
    'true',
  )
  await expect(timeline.getByTestId('event-json')).toContainText('src/app.ts')
})

test('the keyboard walks the events: Tab reaches a row, the arrows move, Enter selects', async ({
  page,
}) => {
  const { timeline, table } = await timelineAfterTurn(page)
  const rows = table.locator('[role="row"][data-seq]')
  await expect(rows.first()).toBeAttached()
  // One row in the Tab order, so the scrolling rows are reachable without a pointer.
  await expect(table.locator('[role="row"][tabindex="0"]')).toHaveCount(1)
  await table.locator('[role="row"][tabindex="0"]').focus()
  await page.keyboard.press('Home')
  await expect(table.locator('[data-seq="0"]')).toBeFocused()
  await page.keyboard.press('ArrowDown')
  await page.keyboard.press('ArrowDown')
  await expect(table.locator('[data-seq="2"]')).toBeFocused()
  await page.keyboard.press('ArrowUp')
  await expect(table.locator('[data-seq="1"]')).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(table.locator('[data-seq="1"]')).toHaveAttribute('aria-selected', 'true')
  await expect(timeline.getByTestId('event-json')).toContainText('"seq": 1')
  // End goes to the last event, scrolled into view.
  await page.keyboard.press('End')
  const last = await timeline.getByTestId('timeline-count').getAttribute('data-count')
  await expect(table.locator(`[data-seq="${Number(last) - 1}"]`)).toBeFocused()
  await expect(table.locator('[role="row"][tabindex="0"]')).toHaveCount(1)
})

test('"Fork from here" on an event opens a fork whose history ends with that event', async ({
  page,
}) => {
  const { timeline, table } = await timelineAfterTurn(page)
  // The first tool result: inside the turn, so the fork closes the turn it cuts.
  const result = table.locator('[role="row"][data-type="tool/result"]').first()
  const seq = Number(await result.getAttribute('data-seq'))
  await result.click()
  await timeline.getByRole('button', { name: 'Fork from here' }).click()
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(chat.getByRole('note', { name: 'Fork origin' })).toContainText(`at event ${seq + 1}`)
  // The fork's own history: the prefix up to the event, then the closes the cut needed.
  await expect(table.locator(`[role="row"][data-seq="${seq}"]`)).toHaveAttribute(
    'data-type',
    'tool/result',
  )
  await expect(table.locator('[role="row"][data-type="turn/end"]')).toHaveCount(1)
  await expect(chat).not.toContainText('The answer is 41')
})
