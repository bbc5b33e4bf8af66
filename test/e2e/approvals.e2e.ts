/**
 * Approvals of commands through `bridle serve` with the scripted model, in the default `ask`
 * mode, on the real host's judge and sandbox:
 * - `git reset --hard` needs care: the prompt shows why, in words, and offers no "always"; it is
 *   denied with a reason;
 * - `ls src && wc -l README.md` offers two grants, the suggested patterns and the exact command,
 *   each line shown as it will be kept; the exact one is picked, and what `approval/respond` sent
 *   and what config.json kept are both that text; the card says the command ran sandboxed (or
 *   not, where no sandbox works);
 * - the same line again runs without asking, and its card names the rule; a command printing a
 *   PNG header shows its binary summary as it is;
 * - the timeline says who decided each call and that each command's process started.
 * Screenshots (1440×900 and 1024×700, light and dark) of the prompt with warnings and of the
 * grant choice: approval-*.png in $BRIDLE_SHOTS (default test-results).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { startApp } from './app-fixture'
import { openInspector } from './shell-nav'
import type { AppUnderTest } from './app-fixture'

const SHOTS = process.env['BRIDLE_SHOTS'] ?? 'test-results'

const SIZES = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'narrow', width: 1024, height: 700 },
] as const

const LISTING = 'ls src && wc -l README.md'
/** What "always allow" offers for LISTING, in the judge's words (one pattern per command). */
const SUGGESTED = 'ls *\nwc *'
const EXACT = 'ls src\nwc -l README.md'
/** The eight bytes of a PNG signature and the start of its header chunk, as printf escapes. */
const PNG_COMMAND = "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR'"

let app: AppUnderTest

const bash = (id: string, command: string) => ({
  toolCall: { id, name: 'bash', args: JSON.stringify({ command }) },
})

test.beforeEach(async () => {
  app = await startApp({
    files: { 'README.md': '# Demo\nline two\n', 'src/app.ts': 'export const answer = 41\n' },
    script: [
      { steps: [{ text: 'Resetting the tree first.' }, bash('reset', 'git reset --hard')] },
      { steps: [{ text: 'Then looking around.' }, bash('list', LISTING)] },
      { steps: [bash('again', LISTING), bash('png', PNG_COMMAND)] },
      { steps: [{ text: 'All done.' }] },
    ],
  })
})

test.afterEach(async () => {
  await app.stop()
})

/** config.json as serve wrote it; {} before the first save. */
function savedConfig(): Record<string, unknown> {
  const file = join(app.serve.home, 'config.json')
  if (!existsSync(file)) return {}
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
}

/** Every `approval/respond` the page sent over its bridge socket, in order. */
function recordResponds(page: Page): unknown[] {
  const sent: unknown[] = []
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      if (typeof payload !== 'string') return
      const message = JSON.parse(payload) as { method?: string; params?: unknown }
      if (message.method === 'approval/respond') sent.push(message.params)
    })
  })
  return sent
}

/** The viewport at both sizes in both themes, with `target` scrolled into view each time. */
async function shoot(page: Page, name: string, target: Locator): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height })
      await target.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/approval-${name}-${size.name}-${theme}.png` })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1440, height: 900 })
}

test('warnings in words, the exact grant picked and kept, who decided, sandboxed', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  const responds = recordResponds(page)
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('Clean up and look around')
  await box.press('Enter')

  // A call that needs care: why, first and in plain words, and no "always".
  const reset = chat.locator('[data-call-id="reset"]')
  await expect(reset).toHaveAttribute('aria-label', 'Tool bash: waiting for approval')
  const resetPrompt = reset.getByRole('group', { name: 'Approve bash' })
  const warnings = resetPrompt.getByRole('note', { name: /Look closely/ })
  await expect(warnings).toContainText('git reset --hard throws away uncommitted changes.')
  await expect(warnings.locator('code')).toHaveText('git reset --hard')
  await expect(resetPrompt.getByRole('button', { name: 'Allow once' })).toBeVisible()
  await expect(resetPrompt.getByRole('button', { name: /Always allow/ })).toHaveCount(0)
  await shoot(page, 'warnings', resetPrompt)
  await resetPrompt.getByRole('button', { name: 'Deny…' }).click()
  await resetPrompt.getByRole('textbox', { name: 'Reason for denying' }).fill('keep my changes')
  await resetPrompt.getByRole('button', { name: 'Deny', exact: true }).click()
  await expect(reset).toHaveAttribute('aria-label', 'Tool bash: denied')
  await expect(reset).toContainText('Denied by you: “keep my changes”')
  await expect(reset.getByRole('list', { name: 'What the prompt warned of' })).toContainText(
    'throws away uncommitted changes',
  )

  // Two grants: each line as it will be kept, the suggested one picked; the exact one chosen.
  const listing = chat.locator('[data-call-id="list"]')
  const prompt = listing.getByRole('group', { name: 'Approve bash' })
  await expect(prompt).toBeVisible()
  const suggested = prompt.getByRole('radio', { name: /suggested/ })
  const exact = prompt.getByRole('radio', { name: /only this exact command/ })
  await expect(suggested).toBeChecked()
  await expect(prompt.locator('label').filter({ hasText: 'suggested' }).locator('code')).toHaveText(
    SUGGESTED.split('\n'),
  )
  await expect(
    prompt.locator('label').filter({ hasText: 'only this exact command' }).locator('code'),
  ).toHaveText(EXACT.split('\n'))
  await exact.check()
  await shoot(page, 'grants', prompt)
  await prompt.getByRole('button', { name: 'Always allow these commands' }).click()

  await expect(listing).toHaveAttribute('aria-label', 'Tool bash: done')
  await expect(listing).toContainText('README.md')
  await expect(listing).toContainText('Allowed by you, and remembered: ls src · wc -l README.md')
  // bubblewrap runs here (CI installs it); elsewhere the card says so, and nothing is claimed.
  await expect(listing.locator('.sandbox-badge')).toHaveText(/^(sandboxed|not sandboxed)$/)
  const isSandboxed = (await listing.locator('.sandbox-badge').textContent()) === 'sandboxed'

  // What the page sent, and what the host kept: the exact command, nothing wider.
  expect(responds).toEqual([
    { sessionId: expect.any(String), callId: 'reset', decision: 'deny', reason: 'keep my changes' },
    {
      sessionId: expect.any(String),
      callId: 'list',
      decision: 'allow',
      remember: true,
      grant: EXACT,
    },
  ])
  await expect
    .poll(() => savedConfig()['approvalRules'])
    .toEqual([{ tool: 'bash', pattern: EXACT, effect: 'allow', project: app.project }])

  // The same line again runs by the rule, unasked; a PNG header comes back as its summary.
  const again = chat.locator('[data-call-id="again"]')
  await expect(again).toHaveAttribute('aria-label', 'Tool bash: done')
  await expect(again).toContainText('Allowed by rule bash: ls src · wc -l README.md')
  const png = chat.locator('[data-call-id="png"]')
  await png
    .getByRole('group', { name: 'Approve bash' })
    .getByRole('button', { name: 'Allow once' })
    .click()
  await expect(png).toHaveAttribute('aria-label', 'Tool bash: done')
  await expect(png).toContainText('binary output (PNG image), not shown as text: 16 bytes')
  await expect(png.getByRole('button', { name: 'Show full output' })).toHaveCount(0)
  await expect(chat).toContainText('All done.')
  expect(responds).toHaveLength(3)
  await page.screenshot({ path: `${SHOTS}/approval-done.png` })

  // The timeline names who decided each call, and each command's process.
  await openInspector(page, 'Timeline')
  const timeline = page.getByRole('region', { name: 'Timeline' })
  await timeline.getByText('Types', { exact: true }).click()
  await timeline.getByRole('checkbox', { name: 'approval/decided' }).check()
  await timeline.getByRole('checkbox', { name: 'process/started' }).check()
  await timeline.getByText(/^Types/).click()
  const table = timeline.getByRole('grid', { name: 'Events' })
  await expect(table).toContainText('reset denied by you: “keep my changes”')
  await expect(table).toContainText('list allowed by you, and remembered: ls src · wc -l README.md')
  await expect(table).toContainText('again allowed by rule bash: ls src · wc -l README.md')
  await expect(table).toContainText('png allowed once by you')
  await expect(table.locator('[data-type="process/started"]')).toHaveCount(3)
  await expect(table).toContainText('list started, pid')
  await expect(table.locator('[data-type="process/started"]').first()).toContainText(
    isSandboxed ? ', sandboxed' : ', not sandboxed',
  )
  await page.screenshot({ path: `${SHOTS}/approval-timeline.png` })

  expect(consoleErrors).toEqual([])
})

test('the sandbox setting: each choice explained, the one picked saved in config.json', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const settings = page.getByRole('main', { name: 'Settings' })
  const section = settings.getByRole('region', { name: 'Sandbox' })
  const auto = section.getByRole('radio', { name: /^Auto/ })
  await expect(auto).toBeChecked()
  await expect(auto).toHaveAccessibleDescription(/sandbox when one works here/)
  await expect(section.getByRole('radio', { name: /^Off/ })).toHaveAccessibleDescription(
    /full rights/,
  )
  await section.getByRole('radio', { name: /^Required/ }).check()
  await expect.poll(() => savedConfig()['sandbox']).toBe('required')
  await expect(section.getByRole('radio', { name: /^Required/ })).toBeChecked()
  await section.scrollIntoViewIfNeeded()
  await section.screenshot({ path: `${SHOTS}/approval-settings-sandbox.png` })
})
