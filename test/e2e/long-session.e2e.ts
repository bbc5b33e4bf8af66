/**
 * A long session opens on its tail: a history of 2,000 turns (about 14,000 events), written
 * through the store before `bridle serve` starts, shows its last message at once with only the
 * last page read; scrolling up reads older pages, keeps the message in view where it was when a
 * page lands above it, and reaches the first message. The chat keeps a window of the history,
 * not all of it: on the way up it lets go of the newest pages, and on the way back down of the
 * oldest, and reads each again when the view comes back to it (seen here as the reads it sends
 * over the bridge). Screenshots of the history's start:
 * test-results/long-session-start-{1440,1024}-{light,dark}.png.
 */
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { Session } from '../../main/core/log/index'
import { databasePath, openStore } from '../../main/core/store/index'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { shootEachWay } from './shots'

const TURNS = 2000
const TITLE = 'Long history'

/** Each turn: a question, an answer that names its turn, and the steps around them. */
function writeLongSession(home: string, project: string): void {
  const store = openStore(databasePath(home))
  try {
    const session = Session.create(store, { projectDir: project })
    session.append('session/title', { title: TITLE })
    let request:
      | { provider: string; model: string; params: Record<string, string>; headerSeq: number }
      | undefined
    for (let n = 1; n <= TURNS; n++) {
      session.append('turn/start', {})
      session.append('step/start', {})
      request ??= {
        provider: 'e2e',
        model: 'scripted',
        params: {},
        headerSeq: session.append('request/header', {
          sections: [{ name: 'identity', text: 'You are Bridle.' }],
          tools: [],
          reason: 'initial',
        }).seq,
      }
      session.append('user/message', { content: `Question ${n} of the long history` })
      session.append('request/start', request)
      session.append('assistant/message', {
        blocks: [{ type: 'text', text: `Answer ${n}: all is well.` }],
        finish: 'stop',
      })
      session.append('step/end', { reason: 'completed' })
      session.append('turn/end', { reason: 'completed' })
      if (n % 100 === 0) session.flushSync()
    }
    session.flushSync()
  } finally {
    store.close()
  }
}

let app: AppUnderTest

/** What the page-side probes read of the chat's scroller (the e2e tsconfig has no DOM lib). */
interface Scrolled {
  scrollTop: number
  readonly scrollHeight: number
}

test.beforeEach(async () => {
  app = await startApp({ seed: writeLongSession })
})

test.afterEach(async () => {
  await app.stop()
})

/** The `session/events` reads the page sends over the bridge, in order. */
interface EventsRead {
  readonly fromSeq?: number
  readonly toSeq?: number
  readonly tail?: boolean
  readonly types?: readonly string[]
}

function recordEventsReads(page: Page): EventsRead[] {
  const reads: EventsRead[] = []
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      if (typeof payload !== 'string') return
      const frame = JSON.parse(payload) as { method?: string; params?: EventsRead }
      if (frame.method === 'session/events' && frame.params !== undefined) reads.push(frame.params)
    })
  })
  return reads
}

/** A read of the feed's own (every type but chunks, so not the timeline's or a typed one). */
const isFeedRead = (read: EventsRead) => read.types?.includes('user/message') === true

/** The highest row index the chat has rendered: at the end, its item count less one. */
async function lastRowIndex(page: Page): Promise<number> {
  return page
    .locator('.chat-rows .chat-row')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      Math.max(...rows.map((row) => Number(row.getAttribute('data-index')))),
    )
}

test('a long session opens on its last message and reads older ones as the chat scrolls up', async ({
  page,
}) => {
  test.setTimeout(300_000)
  const reads = recordEventsReads(page)
  await page.goto(app.url)
  await page
    .getByRole('treeitem', { name: new RegExp(`^(${TITLE}|Untitled session)`) })
    .first()
    .click()
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 })
  await expect(log.getByText(`Answer ${TURNS}: all is well.`)).toBeVisible()
  // Only the tail was read: the whole history is 6,000 rows (a question, an answer, a turn's end).
  expect(await lastRowIndex(page)).toBeLessThan(1000)

  const scroller = page.locator('.chat-scroll')
  const height = () => scroller.evaluate((element: Scrolled) => element.scrollHeight)
  // Up to the top of what is loaded: the next page lands above, and the view moves down by its
  // height, so the rows that were in view still are (else it would jump to the page's top).
  const loadedHeight = await height()
  await scroller.hover()
  await page.mouse.wheel(0, -1_000_000)
  await expect.poll(height, { timeout: 30_000 }).toBeGreaterThan(loadedHeight + 5000)
  const added = (await height()) - loadedHeight
  const top = await scroller.evaluate((element: Scrolled) => element.scrollTop)
  expect(top).toBeGreaterThan(added / 2)
  expect(top).toBeLessThan(added + 2000)

  // Up to the first message, a page at a time.
  const first = log.getByText('Question 1 of the long history', { exact: true })
  const last = log.getByText(`Answer ${TURNS}: all is well.`)
  const scrollTo = (where: 'top' | 'end') =>
    scroller.evaluate(
      (element: Scrolled, to) => (element.scrollTop = to === 'top' ? 0 : element.scrollHeight),
      where,
    )
  const reach = (where: 'top' | 'end', target: typeof first) =>
    expect
      .poll(
        async () => {
          await scrollTo(where)
          return target.count()
        },
        { timeout: 120_000, intervals: [200, 500, 1000] },
      )
      .toBe(1)
  await reach('top', first)
  await expect(first).toBeInViewport()
  await shootEachWay(page, (size, theme) => `test-results/long-session-start-${size}-${theme}.png`)

  // The newest pages were let go on the way up: the end of what is loaded is not the log's end,
  // so scrolling down reads forward again (pages from a seq on, not the tail) until it is.
  const readsAtTop = reads.length
  await reach('end', last)
  await expect(last).toBeInViewport()
  const forward = reads.slice(readsAtTop).filter((read) => isFeedRead(read) && read.tail !== true)
  expect(forward.length).toBeGreaterThan(0)
  expect(Math.min(...forward.map((read) => read.fromSeq ?? 0))).toBeGreaterThan(1000)

  // On the way down the oldest pages were let go: going up reads them again.
  const readsAtEnd = reads.length
  await page.mouse.wheel(0, -2000)
  await reach('top', first)
  const back = reads.slice(readsAtEnd).filter((read) => isFeedRead(read) && read.tail === true)
  // Had they been kept, the window would reach the start and no older page would be read.
  expect(back.length).toBeGreaterThan(0)

  // "Jump to latest" goes back to the end at once: the log's tail is read again.
  const readsBeforeJump = reads.length
  await page.getByRole('button', { name: 'Jump to latest ↓' }).click()
  await expect(last).toBeInViewport()
  const tails = reads
    .slice(readsBeforeJump)
    .filter((read) => isFeedRead(read) && read.tail === true)
  expect(tails.some((read) => read.toSeq === undefined)).toBe(true)

  // A drag on the scroll bar that went down to the end and comes back up, still held, lets go
  // of the end: when the rows' heights change next (the window narrows), the view stays where
  // the user holds it rather than being pulled back down.
  const jump = page.getByRole('button', { name: 'Jump to latest ↓' })
  await scroller.dispatchEvent('pointerdown')
  await scroller.evaluate((element: Scrolled) => (element.scrollTop = element.scrollHeight / 2))
  await expect(jump).toBeVisible()
  await scrollTo('end')
  await expect(jump).toBeHidden()
  await scroller.evaluate((element: Scrolled) => (element.scrollTop = element.scrollHeight / 2))
  await expect(jump).toBeVisible()
  const rowWidth = () =>
    page
      .locator('.chat-rows .chat-row')
      .first()
      .evaluate((row: { readonly offsetWidth: number }) => row.offsetWidth)
  const wideRow = await rowWidth()
  await page.setViewportSize({ width: 1024, height: 700 })
  await expect.poll(rowWidth).toBeLessThan(wideRow)
  // Two frames: the rows measured at the new width have been committed and laid out.
  await page.evaluate(
    'new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))',
  )
  const fromEnd = await scroller.evaluate(
    (element: Scrolled & { readonly clientHeight: number }) =>
      element.scrollHeight - element.scrollTop - element.clientHeight,
  )
  expect(fromEnd).toBeGreaterThan(1000)
  await page.evaluate("window.dispatchEvent(new PointerEvent('pointerup'))")
})
