/**
 * Every main view, as a user sees it: the empty first run, a finished turn with a tool card and
 * a diff, an approval waiting, the session tree with a fork, the timeline, the checkpoints, the
 * settings page and the help, each at 1440x900 and 1024x700 in both themes. The PNGs land in
 * test-results/screens/<view>-<size>-<theme>.png (to be looked at), and axe-core checks each
 * view: any serious or critical violation fails the test.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'
import { openInspector, openSettings } from './shell-nav'
import { shootEachWay } from './shots'

const SHOTS = 'test-results/screens'

/** Shoots `view` at both sizes and themes and runs axe on each; `prepare` restores the view. */
async function shootView(page: Page, view: string, prepare?: () => Promise<void>): Promise<void> {
  await shootEachWay(page, (size, theme) => `${SHOTS}/${view}-${size}-${theme}.png`, {
    ...(prepare === undefined ? {} : { prepare }),
    check: (where) => checkAxe(page, `${view} at ${where}`),
  })
}

async function checkAxe(page: Page, where: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  )
  const said = serious.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? ''}): ${violation.help}\n  ${violation.nodes
        .slice(0, 4)
        .map(
          (node) =>
            `${node.target.join(' ')}: ${node.failureSummary ?? ''} ${node.html.slice(0, 200)}`,
        )
        .join('\n  ')}`,
  )
  expect(said, `serious axe violations in ${where}`).toEqual([])
}

function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  return errors
}

test.describe('with no endpoint', () => {
  let serve: ServeProcess
  test.afterEach(async () => {
    await serve.stop()
  })

  test('first run', async ({ page }) => {
    serve = await startServeProcess()
    await page.goto(serve.url)
    const firstRun = page.getByRole('region', { name: 'Connect a model' })
    await expect(firstRun.getByRole('heading', { level: 1 })).toHaveText('Connect a model')
    await expect(firstRun.getByLabel('How to start a local model server')).toBeVisible({
      timeout: 10_000,
    })
    await shootView(page, 'first-run')
  })
})

test.describe('with a scripted model', () => {
  let app: AppUnderTest
  const call = (name: string, args: Record<string, unknown>) => ({
    toolCall: { name, args: JSON.stringify(args) },
  })
  test.beforeEach(async () => {
    app = await startApp({
      script: [
        { steps: [{ text: 'Let me look.' }, call('read', { path: 'src/app.ts' })] },
        { steps: [call('edit', { path: 'src/app.ts', oldText: '41', newText: '42' })] },
        { steps: [{ text: 'The answer is now **42**.' }] },
        { steps: [{ text: 'A second answer.' }] },
      ],
    })
  })
  test.afterEach(async () => {
    await app.stop()
  })

  test('chat, approval, tree, timeline, checkpoints, settings, help', async ({ page }) => {
    test.setTimeout(240_000)
    const consoleErrors = collectConsoleErrors(page)
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(app.url)
    const chat = page.getByRole('main', { name: 'Chat' })
    await expect(chat).toBeVisible()
    await shootView(page, 'empty-chat')

    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('Make the answer 42')
    await box.press('Enter')
    const allow = chat.getByRole('button', { name: 'Allow once' })
    await expect(allow).toBeVisible()
    await shootView(page, 'approval', () => expect(allow).toBeInViewport())

    await allow.click()
    await expect(chat).toContainText('The answer is now')
    const diffCard = chat.getByRole('article', { name: /^Tool edit/ })
    await expect(diffCard).toBeVisible()
    await shootView(page, 'chat-finished')

    // A fork of the session, so the tree has a branch.
    const sidebar = page.getByRole('complementary', { name: 'Sessions' })
    // The row's buttons are for the pointer (hidden from the tree's names): found by their label.
    await sidebar.locator('button[aria-label^="Fork "][aria-label$=" at its last event"]').click()
    await expect(chat.getByRole('note', { name: 'Fork origin' })).toBeVisible()
    await shootView(page, 'session-tree', async () => {
      // Narrow windows keep the sessions in a sheet: open it to show the tree.
      if ((page.viewportSize()?.width ?? 0) < 1100) {
        const sheet = page.getByRole('dialog', { name: 'Sessions' })
        if ((await sheet.count()) === 0)
          await page.getByRole('button', { name: 'Sessions' }).click()
        await expect(sheet).toBeVisible()
      } else {
        await page.keyboard.press('Escape')
        await expect(page.getByRole('dialog')).toHaveCount(0)
      }
    })

    for (const tab of ['Timeline', 'Checkpoints'] as const) {
      await openInspector(page, tab)
      await shootView(page, tab.toLowerCase(), async () => {
        await expect(page.getByRole('region', { name: tab })).toBeVisible()
      })
      await page.getByRole('button', { name: 'Inspector', exact: true }).click()
      await expect(page.getByRole('complementary', { name: 'Inspector' })).toHaveCount(0)
    }

    const settings = await openSettings(page)
    await expect(settings.getByRole('heading', { name: 'Endpoints' })).toBeVisible()
    await shootView(page, 'settings')
    await page.keyboard.press('Escape')
    await expect(chat).toBeVisible()

    await page.keyboard.press('F1')
    const help = page.getByRole('dialog', { name: 'Help' })
    await expect(help.getByTestId('app-version')).toBeVisible()
    await shootView(page, 'help')
    await page.keyboard.press('Escape')
    await expect(help).toHaveCount(0)

    // Known: the strict CSP (style-src 'self') blocks some inline styles set while the views
    // are shot (Radix's dialog scroll lock or axe's own probes); said here, not hidden.
    const blocked = consoleErrors.filter((text) => text.includes("style-src 'self'"))
    if (blocked.length > 0) console.log(`CSP blocked ${blocked.length} inline style(s)`)
    expect(consoleErrors.filter((text) => !blocked.includes(text))).toEqual([])
  })
})
