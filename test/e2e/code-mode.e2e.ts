/**
 * Code mode in the app, through `bridle serve` with the scripted model: the chat header's "Code mode"
 * switch (reached with the keyboard) logs the switch, and the next request offers `run_code`.
 * The scripted reply runs a program that reads two files and tries a write: the run_code card
 * shows the program highlighted, its three calls as rows (the write's approval asked in its
 * row, and refused there), then the program's output; no inner call gets a card of its own.
 * The inspector indents the inner calls under the program's call, and the Gantt draws them
 * inside its bar. Screenshots (1440×900 and 1024×700, light and dark): code-mode-*.png in
 * $BRIDLE_SHOTS (default test-results).
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { openInspector } from './shell-nav'
import { shootEachWay } from './shots'

const SHOTS = process.env['BRIDLE_SHOTS'] ?? 'test-results'

const PROGRAM = `const a = await tools.read({ path: 'a.txt' })
const b = await tools.read({ path: 'b.txt' })
let note = 'wrote c.txt'
try {
  await tools.write({ path: 'c.txt', content: a + b })
} catch (error) {
  note = 'refused: ' + error.code
}
console.log('read', a.length + b.length, 'characters')
return { note, both: [a.includes('alpha'), b.includes('beta')] }`

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({
    files: { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
    script: [
      { steps: [{ text: 'Hello, ready when you are.' }] },
      {
        steps: [
          { text: 'Reading both in one program.' },
          { toolCall: { id: 'p1', name: 'run_code', args: JSON.stringify({ code: PROGRAM }) } },
        ],
      },
      { steps: [{ text: 'Both files read: alpha and beta; the write was refused.' }] },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

type Body = { tools?: { function: { name: string } }[] }
const offered = (index: number): string[] =>
  ((chatRequests(app.model)[index]?.body as Body | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  )

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

/** Serious or critical axe findings in the chat (the switch, the card and its rows). */
async function chatAxe(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('main[aria-label="Chat"]').analyze()
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')})`)
  expect(serious, `axe in the chat at ${where}`).toEqual([])
}

/** Numbers of an attribute, for every element `locator` matches. */
async function numbersOf(locator: Locator, name: string): Promise<number[]> {
  const values: number[] = []
  for (const element of await locator.all()) values.push(Number(await element.getAttribute(name)))
  return values
}

test('the switch offers run_code; the card, the timeline and the Gantt nest the inner calls', async ({
  page,
}) => {
  // Sixteen screenshots and eight axe runs besides the two turns.
  test.setTimeout(120_000)
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await send(page, 'Hi')
  await expect(chat).toContainText('Hello, ready when you are.')
  expect(offered(0)).not.toContain('run_code')

  // The switch: labelled, off, reached and turned on with the keyboard; the log says so.
  const codeMode = page.getByRole('switch', { name: 'Code mode' })
  await expect(codeMode).not.toBeChecked()
  await expect(codeMode).toHaveAccessibleDescription(/one JavaScript program that calls the tools/)
  await codeMode.focus()
  await page.keyboard.press('Space')
  await expect(codeMode).toBeChecked()
  await chat.locator('.code-mode-switch').hover()
  await expect(page.getByRole('tooltip')).toContainText('one JavaScript program')
  await page.mouse.move(0, 0)
  await openInspector(page, 'Timeline')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  const table = timeline.getByRole('grid', { name: 'Events' })
  await expect(table.locator('[role="row"][data-type="session/code-mode"]')).toContainText(
    'code mode on',
  )
  // Closed again: under 1100 px the inspector is a sheet over the chat.
  const inspectorToggle = page.getByRole('button', { name: 'Inspector', exact: true })
  await inspectorToggle.click()
  await expect(page.getByRole('complementary', { name: 'Inspector' })).toHaveCount(0)

  await send(page, 'Read a.txt and b.txt together')
  const card = chat.locator('article[data-call-id="p1"]')
  // The write waits for an answer in its own row, inside the program's card.
  const write = card.locator('li[data-call-id="p1.3"]')
  const prompt = write.getByRole('group', { name: 'Approve write' })
  await expect(prompt).toBeVisible()
  await expect(write).toHaveAttribute('aria-label', 'write: waiting for approval')
  expect(offered(1)).toContain('run_code')
  await shootEachWay(page, (size, theme) => `${SHOTS}/code-mode-approval-${size}-${theme}.png`, {
    prepare: () => prompt.scrollIntoViewIfNeeded(),
    check: (where) => chatAxe(page, where),
  })
  await prompt.getByRole('button', { name: 'Deny…' }).click()
  await prompt.getByRole('textbox', { name: 'Reason for denying' }).fill('read only')
  await prompt.getByRole('button', { name: 'Deny', exact: true }).click()

  await expect(chat).toContainText('Both files read: alpha and beta; the write was refused.')
  await expect(card).toHaveAttribute('aria-label', 'Tool run_code: done')
  // The program, highlighted as JavaScript.
  const program = card.getByRole('region', { name: 'Program' })
  await expect(program.locator('code.hljs')).toContainText("tools.read({ path: 'a.txt' })")
  await expect(program.locator('.hljs-keyword').first()).toBeVisible()
  // Its calls as rows, in order, with their outcomes; none of them a card of its own.
  const rows = card.getByRole('region', { name: 'Tool calls of the program' }).getByRole('listitem')
  await expect(rows).toHaveCount(3)
  await expect(rows.nth(0)).toHaveAttribute('aria-label', 'read: ok')
  await expect(rows.nth(0)).toContainText('a.txt')
  await expect(rows.nth(1)).toHaveAttribute('aria-label', 'read: ok')
  await expect(rows.nth(1)).toContainText('b.txt')
  await expect(rows.nth(2)).toHaveAttribute('aria-label', 'write: denied')
  await expect(rows.nth(2)).toContainText('APPROVAL_DENIED')
  await expect(chat.locator('article.tool-card')).toHaveCount(1)
  // An inner read's output opens in its row.
  await rows.nth(0).getByRole('button', { name: 'Show the output of read' }).click()
  await expect(rows.nth(0).locator('.tool-output-text')).toContainText('alpha')
  // The result: console output, then the returned value.
  const result = card.getByRole('region', { name: 'Result of the program' })
  await expect(result).toContainText('read')
  await expect(result).toContainText('Returned:')
  await expect(result).toContainText('"note":"refused: APPROVAL_DENIED"')
  await expect(result).toContainText('"both":[true,true]')
  await expect(codeMode).toBeChecked()
  await shootEachWay(page, (size, theme) => `${SHOTS}/code-mode-card-${size}-${theme}.png`, {
    prepare: () => card.scrollIntoViewIfNeeded(),
    check: (where) => chatAxe(page, where),
  })

  // The inspector: the inner calls' events sit under the program's call, indented.
  await openInspector(page, 'Timeline')
  const programCall = table.locator('[role="row"][data-type="tool/call"]:not([data-parent])')
  await expect(programCall).toHaveCount(1)
  const nested = table.locator('[role="row"][data-parent="p1"]')
  // Each read: decided by the mode, called, answered; the write: asked, refused, answered.
  const read = ['approval/decided', 'tool/call', 'tool/result']
  const refused = ['approval/requested', 'approval/decided', 'tool/result']
  await expect(nested).toHaveCount(9)
  const types: string[] = []
  for (const row of await nested.all()) types.push((await row.getAttribute('data-type')) ?? '')
  expect(types).toEqual([...read, ...read, ...refused])
  const callSeq = Number(await programCall.getAttribute('data-seq'))
  const programResult = table.locator('[role="row"][data-type="tool/result"]:not([data-parent])')
  const resultSeq = Number(await programResult.getAttribute('data-seq'))
  for (const seq of await numbersOf(nested, 'data-seq')) {
    expect(seq).toBeGreaterThan(callSeq)
    expect(seq).toBeLessThan(resultSeq)
  }
  await expect(nested.first().locator('.tl-nested')).toBeVisible()
  await expect(nested.first().locator('.tl-cell-type')).not.toHaveCSS('padding-left', '0px')
  await shootEachWay(page, (size, theme) => `${SHOTS}/code-mode-timeline-${size}-${theme}.png`, {
    // A resize re-renders the virtual table's rows: retried until one holds still.
    prepare: () => expect(() => nested.first().scrollIntoViewIfNeeded({ timeout: 1000 })).toPass(),
  })

  // The Gantt: the program two rows tall, its calls on its second row, inside its span.
  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  const outer = timeline.locator('[data-testid="gantt-bar"][data-label="run_code"]')
  const inner = timeline.locator('[data-testid="gantt-bar"][data-parent]')
  // The two reads that ran (the refused write never started, so it has no bar).
  await expect(inner).toHaveCount(2)
  const [outerRow] = await numbersOf(outer, 'data-row')
  expect(await numbersOf(inner, 'data-row')).toEqual([1, 1].map(() => (outerRow ?? 0) + 1))
  const outerBox = await outer.boundingBox()
  for (const bar of await inner.all()) {
    const box = await bar.boundingBox()
    expect(box && outerBox).toBeTruthy()
    if (!box || !outerBox) continue
    expect(box.x).toBeGreaterThanOrEqual(outerBox.x - 1)
    expect(box.x + box.width).toBeLessThanOrEqual(outerBox.x + outerBox.width + 1)
    expect(box.y).toBeGreaterThan(outerBox.y)
    expect(box.y + box.height).toBeLessThanOrEqual(outerBox.y + outerBox.height + 1)
  }
  await expect(timeline).toContainText('2 inside programs')
  await shootEachWay(page, (size, theme) => `${SHOTS}/code-mode-gantt-${size}-${theme}.png`, {
    // Crossing 1100 px moves the inspector between the side and a sheet, back on its first tab.
    // The move happens after the resize returns: retried until the Gantt shows.
    prepare: () =>
      expect(async () => {
        await timeline.getByRole('tab', { name: 'Gantt' }).click({ timeout: 1000 })
        await expect(inner.first()).toBeVisible({ timeout: 1000 })
      }).toPass(),
  })
  expect(unexpectedErrors(consoleErrors)).toEqual([])
})
