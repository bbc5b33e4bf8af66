/**
 * MCP prompts and resources in the composer, through `bridle serve` with the scripted model and
 * the fixture MCP server (a real child process over stdio), beside a server that cannot start:
 * - `/rev` lists the fixture's `review` prompt (the failed server named in the list's footer);
 *   picking it asks for its `file` argument, and the filled-in text replaces the command; a
 *   prompt whose server was turned off meanwhile fails with the host's sentence;
 * - `@fixture` lists the fixture's resources after the files (the binary one disabled); picking
 *   the readme adds a chip, and the model receives its text in a `<resource>` block; the sent
 *   message shows the resource's chip.
 * Screenshots of the open `/` list, light and dark: mcp-composer-slash-*.png in $BRIDLE_SHOTS
 * and of the argument form (default test-results); axe checks the composer with the list and with the argument form open.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { chatRequests } from '../fixtures/model-server/server'
import { fixtureServer } from '../fixtures/mcp-server/index'
import { startApp, typeInComposer } from './app-fixture'
import { callFromPage } from './page-bridge'
import type { AppUnderTest } from './app-fixture'

const SHOTS = process.env['BRIDLE_SHOTS'] ?? 'test-results'

let app: AppUnderTest | undefined

// Two MCP server processes, axe and two screenshots on a shared two-core machine.
test.setTimeout(120_000)

test.afterEach(async () => {
  await app?.stop()
  app = undefined
})

async function start(): Promise<AppUnderTest> {
  return startApp({
    config: {
      mcpServers: { fixture: fixtureServer(), broken: fixtureServer({ flags: ['--fail-start'] }) },
    },
    script: [{ steps: [{ text: 'Read it.' }] }],
  })
}

/** Serious or critical axe violations inside `selector`, as `id: targets` lines. */
async function axeViolations(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include(selector).analyze()
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

test('/ lists the MCP prompts; one with arguments asks for them and fills in the message', async ({
  page,
}) => {
  app = await start()
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(page.getByText('No sessions yet')).toBeVisible()
  await typeInComposer(box, '/rev')

  // The catalog starts the servers on the list's first opening: give them time.
  const list = page.getByRole('listbox', { name: 'MCP prompts' })
  await expect(list).toBeVisible({ timeout: 30_000 })
  const options = list.getByRole('option')
  await expect(options).toHaveText([
    '/mcp__fixture__reviewAsks for a review of one file. · MCP fixture',
  ])
  await expect(options.first()).toHaveAttribute('aria-selected', 'true')
  await expect(box).toHaveAttribute(
    'aria-activedescendant',
    (await options.first().getAttribute('id')) ?? '',
  )
  await expect(box).toHaveAttribute('aria-controls', (await list.getAttribute('id')) ?? '')
  await expect(page.getByText('Not available: broken')).toBeVisible()
  expect(await axeViolations(page, '.composer')).toEqual([])

  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme })
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme)
    await page.screenshot({ path: `${SHOTS}/mcp-composer-slash-${theme}.png` })
  }
  await page.emulateMedia({ colorScheme: 'light' })

  // Escape closes the list and leaves the text; typing on opens it again.
  await box.press('Escape')
  await expect(list).toHaveCount(0)
  await expect(box).toHaveValue('/rev')
  await box.pressSequentially('i')
  await expect(options).toHaveCount(1)

  // Enter picks it: the form asks for `file`, marked required, and has the focus.
  await box.press('Enter')
  await expect(list).toHaveCount(0)
  await expect(box).toHaveValue('/mcp__fixture__review ')
  const form = page.getByRole('group', { name: 'Arguments for /mcp__fixture__review' })
  const file = form.getByRole('textbox', { name: 'file' })
  await expect(file).toBeFocused()
  await expect(file).toHaveAttribute('required', '')
  expect(await axeViolations(page, '.composer')).toEqual([])
  await page.screenshot({ path: `${SHOTS}/mcp-composer-arguments-light.png` })

  // Enter with the required field empty says so and sends nothing; Escape cancels.
  await file.press('Enter')
  await expect(form.getByRole('alert')).toHaveText('Fill in file.')
  await file.press('Escape')
  await expect(form).toHaveCount(0)
  await expect(box).toBeFocused()
  await expect(box).toHaveValue('/mcp__fixture__review ')

  // Picked again, filled in: the prompt's text replaces the command, for the user to send.
  await box.fill('/review')
  await expect(options).toHaveCount(1)
  await box.press('Tab')
  await form.getByRole('textbox', { name: 'file' }).fill('a.ts')
  await form.getByRole('textbox', { name: 'file' }).press('Enter')
  await expect(form).toHaveCount(0)
  await expect(box).toHaveValue('Review a.ts for bugs.')
  await expect(box).toBeFocused()

  // A prompt that cannot be had (its server turned off meanwhile) is the host's sentence where
  // the composer shows errors; the command stays for another try.
  await box.fill('/review')
  await expect(options).toHaveCount(1)
  await box.press('Enter')
  await expect(form).toBeVisible()
  const off = await callFromPage(page, new URL(app.url).origin, 'mcp/setEnabled', {
    projectDir: app.project,
    name: 'fixture',
    enabled: false,
  })
  expect(off).toMatchObject({ ok: true })
  await form.getByRole('textbox', { name: 'file' }).fill('b.ts')
  await form.getByRole('textbox', { name: 'file' }).press('Enter')
  await expect(form).toHaveCount(0)
  await expect(page.getByRole('alert')).toContainText(
    'Could not fill in /mcp__fixture__review: the MCP server "fixture" is',
  )
  await expect(box).toHaveValue('/mcp__fixture__review ')
  expect(chatRequests(app.model)).toHaveLength(0)
})

test('@ lists the MCP resources after the files; one picked reaches the model as a resource', async ({
  page,
}) => {
  app = await start()
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const box = page.getByRole('textbox', { name: 'Message' })
  await typeInComposer(box, 'Explain @fixture')

  const list = page.getByRole('listbox', { name: 'Project files and MCP resources' })
  await expect(list).toBeVisible({ timeout: 30_000 })
  const options = list.getByRole('option')
  await expect(options).toHaveText([
    'fixture://logo · MCP fixturenot text',
    'fixture://readme · MCP fixturereadme',
  ])
  await expect(options.first()).toHaveAttribute('aria-disabled', 'true')

  // The binary one cannot be picked; the readme can.
  await box.press('Enter')
  await expect(list).toBeVisible()
  await box.press('ArrowDown')
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true')
  await box.press('Enter')
  await expect(list).toHaveCount(0)
  await expect(box).toHaveValue('Explain @fixture://readme ')
  await expect(page.getByRole('button', { name: 'Remove fixture://readme' })).toBeVisible()

  await box.press('Enter')
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(page.getByRole('article', { name: 'Agent' }).last()).toContainText('Read it.')
  const body = chatRequests(app.model)[0]?.body as {
    messages: { role: string; content: unknown }[]
  }
  expect(body.messages.findLast((m) => m.role === 'user')?.content).toBe(
    'Explain @fixture://readme \n\n<resource server="fixture" uri="fixture://readme">\nThe fixture readme.\n</resource>',
  )
  // The sent message shows the resource by its URI and the size of its text.
  const sent = chat.getByRole('list', { name: 'Attachments' }).getByRole('listitem')
  await expect(sent).toHaveText(['fixture://readme19 B'])
  await expect(sent.first()).toHaveAttribute(
    'title',
    'fixture://readme from the MCP server fixture',
  )
})
