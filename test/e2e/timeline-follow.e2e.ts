/**
 * The timeline follows a live turn: at the bottom, each new event's row comes into view as it
 * lands (the table once stayed at seq 0-26 while the turn grew to 136 events); scrolled up, it
 * stays and offers "N new events", which jumps to the latest.
 */
import { expect, test } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { openInspector } from './shell-nav'

let app: AppUnderTest

const LONG = 'word '.repeat(120)

test.beforeEach(async () => {
  app = await startApp({
    script: [
      { steps: [{ text: `${LONG}end one.` }], chunkSize: 5, delayMs: 30 },
      { steps: [{ text: `${LONG}end two.` }], chunkSize: 5, delayMs: 30 },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

test('follows a live turn to its last event; scrolled up, offers the new events', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 860 })
  await page.goto(app.url)
  await openInspector(page, 'Timeline')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  const count = timeline.getByTestId('timeline-count')
  const chat = page.getByRole('main', { name: 'Chat' })

  await page.getByRole('textbox', { name: 'Message' }).fill('Go')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('end one.', { timeout: 20_000 })
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0)
  // The last row on screen is the turn's last event, far past the first screenful.
  const last = async () => Number(await count.getAttribute('data-count')) - 1
  await expect.poll(last).toBeGreaterThan(30)
  const seq = await last()
  await expect(timeline.locator(`[data-seq="${seq}"]`)).toBeInViewport()
  await expect(timeline.locator('[data-seq="0"]')).toHaveCount(0)

  // Scrolled up, the view stays put while the next turn runs, and says what arrived.
  await timeline.getByTestId('timeline-scroll').evaluate((element: { scrollTop: number }) => {
    element.scrollTop = 0
  })
  await expect(timeline.locator('[data-seq="0"]')).toBeInViewport()
  await page.getByRole('textbox', { name: 'Message' }).fill('Again')
  await page.getByRole('button', { name: 'Send' }).click()
  const more = timeline.getByRole('button', { name: /^\d+ new events?$/ })
  await expect(more).toBeVisible()
  await expect(chat).toContainText('end two.', { timeout: 20_000 })
  await expect(timeline.locator('[data-seq="0"]')).toBeInViewport()
  await more.click()
  await expect(more).toHaveCount(0)
  await expect.poll(last).toBeGreaterThan(seq + 20)
  await expect(timeline.locator(`[data-seq="${await last()}"]`)).toBeInViewport()

  // Moved away from the end before the table saw it get there: the view stays where the user
  // put it (it was pulled back to the end, and a wheel that followed was stuck there).
  const scroller = timeline.getByTestId('timeline-scroll')
  await scroller.evaluate((element: { scrollTop: number }) => {
    element.scrollTop = 0
  })
  await expect(timeline.locator('[data-seq="0"]')).toBeInViewport()
  const settledTop = await scroller.evaluate(
    async (element: {
      scrollTop: number
      scrollHeight: number
      addEventListener(type: 'scroll', listener: () => void, options: { once: true }): void
    }) => {
      const page = globalThis as unknown as { requestAnimationFrame(next: () => void): void }
      await new Promise<void>((resolve) => {
        element.addEventListener(
          'scroll',
          () => {
            element.scrollTop = 0
            resolve()
          },
          { once: true },
        )
        element.scrollTop = element.scrollHeight
      })
      // The table's own updates (its scroll handler's render and effects) run within a few frames.
      for (let i = 0; i < 10; i++)
        await new Promise<void>((done) => page.requestAnimationFrame(done))
      return element.scrollTop
    },
  )
  expect(settledTop).toBe(0)
  await expect(timeline.locator('[data-seq="0"]')).toBeInViewport()
  await expect(more).toHaveCount(0)
})
