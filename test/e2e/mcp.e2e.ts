/**
 * MCP servers where people see them, through `bridle serve` with the scripted model and the
 * fixture MCP server (a real child process over stdio):
 * - config.json names two servers, `fixture` and `broken` (`--fail-start`); settings open in
 *   another tab follow their state as it changes; a turn calls `mcp__fixture__echo`, asked for
 *   in the default `ask` mode; its card names the server, and the failed start reads as a
 *   sentence in the chat; settings then show `fixture` running with its tools, `broken` failed
 *   with its reason and stderr, and turning `fixture` off and on is kept in config.json;
 * - a project's .mcp.json is not started: the chat's notice leads to the settings' MCP section,
 *   whose prompt lists what the file would run; "Trust and start" starts it, "Stop trusting"
 *   undoes it;
 * - with none configured, the section says how to add one.
 * Screenshots of the section (1440×900 and 1024×700, light and dark): mcp-*.png in $BRIDLE_SHOTS
 * (default test-results); axe checks the section.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { fixtureServer } from '../fixtures/mcp-server/index'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { openSettings } from './shell-nav'

const SHOTS = process.env['BRIDLE_SHOTS'] ?? 'test-results'

const SIZES = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'narrow', width: 1024, height: 700 },
] as const

let app: AppUnderTest | undefined

// Two MCP server processes, axe and eight screenshots on a shared two-core machine.
test.setTimeout(120_000)

test.afterEach(async () => {
  await app?.stop()
  app = undefined
})

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

/** The viewport at both sizes in both themes, with `target` scrolled into view each time. */
async function shoot(page: Page, name: string, target: Locator): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height })
      await target.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/mcp-${name}-${size.name}-${theme}.png` })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize({ width: 1440, height: 900 })
}

/** Serious or critical axe violations inside `selector`, as `id: targets` lines. */
async function axeViolations(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include(selector).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

test("a user server's tool card names it; settings show it running with its tools, and a failed one's reason", async ({
  page,
  context,
}) => {
  app = await startApp({
    config: {
      mcpServers: { fixture: fixtureServer(), broken: fixtureServer({ flags: ['--fail-start'] }) },
    },
    script: [
      {
        steps: [
          {
            toolCall: {
              id: 'echo-1',
              name: 'mcp__fixture__echo',
              args: JSON.stringify({ text: 'hello from the fixture' }),
            },
          },
        ],
      },
      { steps: [{ text: 'The server said it back.' }] },
    ],
  })
  const home = app.serve.home
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })

  // Settings open in a second tab before any session: the server is not started yet.
  const other = await context.newPage()
  await other.goto(app.url)
  const watching = (await openSettings(other))
    .getByRole('region', { name: 'MCP servers', exact: true })
    .getByTestId('mcp-state-fixture')
  await expect(watching).toHaveText('Stopped')

  await send(page, 'Echo something')

  // In `ask` mode the MCP tool waits for approval; once it starts its card names the server.
  const card = chat.getByRole('article', { name: /^Tool / })
  await card.getByRole('button', { name: 'Allow once' }).click()
  await expect(card).toHaveAttribute('aria-label', 'Tool echo from MCP server fixture: done')
  await expect(card).toContainText('MCP · fixture')
  await expect(chat).toContainText('The server said it back.')
  // The other tab was told (`mcp/changed`) and read the list again, without a reload.
  await expect(watching).toHaveText('Running')
  await other.close()

  // The server that could not start is a sentence, the reason in it; the turn went on.
  const failed = chat.locator('[data-code="MCP_SERVER_FAILED"]')
  await expect(failed).toContainText('Going on without an MCP server.')
  await expect(failed).toContainText('FIXTURE_TOKEN is missing')

  await shoot(page, 'chat', card)

  const settings = await openSettings(page)
  const section = settings.getByRole('region', { name: 'MCP servers', exact: true })
  const fixture = section.getByRole('listitem', { name: 'fixture' })
  await expect(fixture.getByTestId('mcp-state-fixture')).toHaveText('Running')
  await expect(fixture).toContainText('config.json')
  const tools = fixture.getByRole('list', { name: 'Tools of fixture' })
  await expect(tools).toContainText('mcp__fixture__echo')
  await expect(tools.getByRole('listitem').filter({ hasText: 'mcp__fixture__echo' })).toContainText(
    'read-only',
  )
  await expect(tools).toContainText('mcp__fixture__write_note')
  const broken = section.getByRole('listitem', { name: 'broken' })
  await expect(broken.getByTestId('mcp-state-broken')).toHaveText('Failed')
  await expect(broken).toContainText('FIXTURE_TOKEN is missing')
  await broken.getByText('What it wrote to stderr').click()
  await expect(broken.locator('pre')).toContainText('cannot start: FIXTURE_TOKEN is missing')
  expect(await axeViolations(page, '.mcp-section')).toEqual([])
  await shoot(page, 'servers', section)

  // Off stops it and is kept in config.json; on again, Restart starts it now.
  const onSwitch = fixture.getByRole('switch', { name: 'Use fixture' })
  await onSwitch.click()
  await expect(fixture.getByTestId('mcp-state-fixture')).toHaveText('Off')
  const config = () =>
    JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as {
      mcpServers: Record<string, { enabled?: boolean }>
    }
  expect(config().mcpServers['fixture']?.enabled).toBe(false)
  await onSwitch.click()
  await expect(onSwitch).toBeChecked()
  expect(config().mcpServers['fixture']?.enabled).toBeUndefined()
  await fixture.getByRole('button', { name: 'Restart fixture' }).click()
  await expect(fixture.getByTestId('mcp-state-fixture')).toHaveText('Running')
})

test("a project's .mcp.json waits for trust: the chat leads to the prompt, which starts it", async ({
  page,
}) => {
  app = await startApp({
    files: {
      'README.md': '# Demo\n',
      '.mcp.json': JSON.stringify({ mcpServers: { notes: fixtureServer() } }),
    },
    script: [{ steps: [{ text: 'Hello.' }] }],
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await send(page, 'Hi')
  await expect(chat).toContainText('Hello.')
  const notice = chat.locator('[data-code="MCP_PROJECT_UNTRUSTED"]')
  await expect(notice).toContainText('MCP servers are waiting for your trust.')
  await notice.getByRole('button', { name: 'Review MCP servers' }).click()

  // The settings open at the MCP section, its heading focused.
  const settings = page.getByRole('main', { name: 'Settings' })
  await expect(settings.getByRole('heading', { name: 'MCP servers', exact: true })).toBeFocused()
  const section = settings.getByRole('region', { name: 'MCP servers', exact: true })
  await expect(section).toBeInViewport()
  await expect(page.getByRole('button', { name: 'Settings', exact: true })).toBeInViewport()
  const notes = section.getByRole('listitem', { name: 'notes' })
  await expect(notes.getByTestId('mcp-state-notes')).toHaveText('Not trusted')
  await expect(notes.getByRole('switch')).toHaveCount(0)
  const prompt = section.getByRole('region', { name: 'This project asks to run MCP servers' })
  const runs = prompt.getByRole('list', { name: "What the project's servers would run" })
  await expect(runs).toContainText('notes')
  await expect(runs).toContainText('stdio.ts')
  expect(await axeViolations(page, '.mcp-section')).toEqual([])
  await shoot(page, 'trust', prompt)

  await prompt.getByRole('button', { name: 'Trust and start' }).click()
  await expect(notes.getByTestId('mcp-state-notes')).toHaveText('Running')
  await expect(notes.getByRole('list', { name: 'Tools of notes' })).toContainText(
    'mcp__notes__echo',
  )
  await expect(prompt).toHaveCount(0)

  await section.getByRole('button', { name: 'Stop trusting' }).click()
  await expect(notes.getByTestId('mcp-state-notes')).toHaveText('Not trusted')
  await expect(section.getByRole('button', { name: 'Trust and start' })).toBeVisible()
})

test('with no server configured, the section says in one line how to add one', async ({ page }) => {
  app = await startApp({ script: [] })
  await page.goto(app.url)
  const section = (await openSettings(page)).getByRole('region', {
    name: 'MCP servers',
    exact: true,
  })
  await expect(section).toContainText('No MCP servers yet')
  await expect(section).toContainText('mcpServers')
  await expect(section).toContainText('.mcp.json')
  await expect(section.getByRole('list', { name: 'MCP servers' })).toHaveCount(0)
})
