/**
 * The inspector on a long session (about 24,000 events, written through the store before
 * `bridle serve` starts), whose feed holds only the tail: the Gantt lists every turn and draws
 * the first one's bars, read from the log; the events table, moved fast across the whole
 * history, shows placeholder rows while it moves and the right events once it rests, with only
 * the rows in view in the page.
 */
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { Session } from '../../main/core/log/index'
import { databasePath, openStore } from '../../main/core/store/index'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { openInspector } from './shell-nav'

const TURNS = 1500
const TITLE = 'Long inspected history'

/**
 * Each turn: a question, a step with two parallel reads, a step with the answer. The first
 * turn's first step also logs the request header every request names.
 */
function appendTurn(session: Session, n: number, header: { seq: number } | undefined): number {
  session.append('turn/start', {})
  session.append('step/start', {})
  const headerSeq =
    header?.seq ??
    session.append('request/header', {
      sections: [{ name: 'identity', text: 'You are Bridle.' }],
      tools: [],
      reason: 'initial',
    }).seq
  const request = { provider: 'e2e', model: 'scripted', params: {}, headerSeq }
  session.append('user/message', { content: `Question ${n}` })
  session.append('request/start', request)
  session.append('assistant/chunk', { deltas: [{ kind: 'text', text: 'Reading.' }] })
  const calls = [`t${n}a`, `t${n}b`]
  session.append('assistant/message', {
    blocks: [
      { type: 'text', text: 'Reading.' },
      ...calls.map((callId) => ({
        type: 'tool-call' as const,
        callId,
        name: 'read',
        args: `{"path":"f${n}.ts"}`,
      })),
    ],
    finish: 'tool-calls',
  })
  for (const callId of calls)
    session.append('tool/call', { callId, name: 'read', args: { path: `f${n}.ts` } })
  for (const callId of calls) session.append('tool/result', { callId, ok: true, output: 'x' })
  session.append('step/end', { reason: 'tool-calls' })
  session.append('step/start', {})
  session.append('request/start', request)
  session.append('assistant/message', {
    blocks: [{ type: 'text', text: `Answer ${n}.` }],
    finish: 'stop',
  })
  session.append('step/end', { reason: 'completed' })
  session.append('turn/end', { reason: 'completed' })
  return headerSeq
}

function writeLongSession(home: string, project: string): void {
  const store = openStore(databasePath(home))
  try {
    const session = Session.create(store, { projectDir: project })
    session.append('session/title', { title: TITLE })
    let header: { seq: number } | undefined
    for (let n = 1; n <= TURNS; n++) {
      header = { seq: appendTurn(session, n, header) }
      if (n % 100 === 0) session.flushSync()
    }
    session.flushSync()
  } finally {
    store.close()
  }
}

let app: AppUnderTest

test.beforeEach(async () => {
  app = await startApp({ seed: writeLongSession })
})

test.afterEach(async () => {
  await app.stop()
})

/** What the page-side probes read of the table's scroller (the e2e tsconfig has no DOM lib). */
interface Scroller {
  scrollTop: number
  readonly scrollHeight: number
  readonly clientHeight: number
}

async function openLongTimeline(page: Page) {
  await page.setViewportSize({ width: 1500, height: 900 })
  await page.goto(app.url)
  await page
    .getByRole('treeitem', { name: new RegExp(`^(${TITLE}|Untitled session)`) })
    .first()
    .click()
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 })
  await expect(log.getByText(`Answer ${TURNS}.`)).toBeVisible()
  const timeline = await openInspector(page, 'Timeline')
  return { timeline, table: timeline.getByRole('grid', { name: 'Events' }) }
}

/** The seqs and row numbers of the loaded rows in the page. */
async function loadedRows(table: Locator): Promise<{ seq: number; index: number }[]> {
  const rows = await table.locator('[role="row"][data-seq]').all()
  const found: { seq: number; index: number }[] = []
  for (const row of rows) {
    found.push({
      seq: Number(await row.getAttribute('data-seq')),
      index: Number(await row.getAttribute('data-index')),
    })
  }
  return found
}

test("the Gantt reaches every turn and draws the first one's bars, read from the log", async ({
  page,
}) => {
  test.setTimeout(120_000)
  const { timeline, table } = await openLongTimeline(page)
  // The first turn's question, far above the feed's tail: selected in the table, the Gantt
  // opens on its turn.
  await table.locator('[role="row"][tabindex="0"]').focus()
  await page.keyboard.press('Home')
  const question = table.locator('[role="row"][data-type="user/message"]').first()
  await expect(question).toHaveAttribute('title', /Question 1$/)
  await question.click()
  await expect(question).toHaveAttribute('aria-selected', 'true')

  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  const turnField = timeline.getByRole('textbox', { name: 'Gantt turn' })
  await expect(turnField).toHaveValue('1', { timeout: 30_000 })
  const bars = timeline.getByTestId('gantt-bar')
  await expect(bars).toHaveCount(4, { timeout: 30_000 })
  // Two requests (one per step) and the two reads side by side, all of turn 1's seqs.
  await expect(bars.and(page.locator('[data-kind="request"]'))).toHaveCount(2)
  const reads = bars.and(page.locator('[data-kind="tool"]'))
  await expect(reads).toHaveCount(2)
  expect(Number(await reads.nth(0).getAttribute('data-start-seq'))).toBeLessThan(20)
  expect(await reads.nth(0).getAttribute('data-row')).not.toBe(
    await reads.nth(1).getAttribute('data-row'),
  )

  // Every turn can be reached, not only those in the feed's window: typed, or stepped to.
  await expect(timeline.getByText(`of ${TURNS}`, { exact: true })).toBeVisible()
  await expect(timeline.getByRole('button', { name: 'Previous turn' })).toBeDisabled()
  await turnField.fill(String(TURNS))
  await turnField.press('Enter')
  await expect(turnField).toHaveValue(String(TURNS))
  await expect(bars).toHaveCount(4)
  expect(Number(await reads.nth(0).getAttribute('data-start-seq'))).toBeGreaterThan(20_000)
  await expect(timeline.getByRole('button', { name: 'Next turn' })).toBeDisabled()
  await timeline.getByRole('button', { name: 'Previous turn' }).click()
  await expect(turnField).toHaveValue(String(TURNS - 1))
  await expect(bars).toHaveCount(4)
  // A turn that is not there takes the nearest one.
  await turnField.fill('0')
  await turnField.press('Enter')
  await expect(turnField).toHaveValue('1')
})

test('the table moved fast shows placeholders, then the right events once it rests', async ({
  page,
}) => {
  test.setTimeout(120_000)
  const { table } = await openLongTimeline(page)
  const scroller = table.getByTestId('timeline-scroll')
  await expect(table.locator('[role="row"][data-seq]').first()).toBeAttached()
  // A drag of the scroll bar: a new place each frame, from the end to the top half.
  await scroller.evaluate(async (element: Scroller) => {
    const frames = globalThis as unknown as { requestAnimationFrame(next: () => void): void }
    const max = element.scrollHeight - element.clientHeight
    for (let i = 0; i <= 30; i++) {
      element.scrollTop = max * (1 - i / 60)
      await new Promise<void>((resolve) => frames.requestAnimationFrame(resolve))
    }
  })
  // At rest, every row in view is read, and each row's event is the one of its place.
  await expect
    .poll(async () => (await loadedRows(table)).length, { timeout: 30_000 })
    .toBeGreaterThan(20)
  await expect(table.locator('.tl-row-pending')).toHaveCount(0, { timeout: 30_000 })
  const rows = await loadedRows(table)
  for (const row of rows) expect(row.seq).toBe(row.index)
  const middle = rows[Math.floor(rows.length / 2)]?.seq ?? 0
  expect(middle).toBeGreaterThan(10_000)
  expect(middle).toBeLessThan(14_000)
  // Only the rows in view (and a few around them) are in the page.
  expect(await table.locator('[role="row"]').count()).toBeLessThan(80)
})
