/**
 * What Bridle learnt about the model, shown where the user looks, through `bridle serve` and
 * personas of real servers (test/fixtures/model-server/persona-catalog.ts):
 * - Settings: the window says where its number comes from; "Test <model>" runs a capability
 *   probe (held mid-way, so "Testing…" is seen for sure) and shows its card, which the next
 *   `model/list` brings back without a test; the chat's model badge opens the same card.
 * - A server that cuts the prompt without a word: a banner at the top of the chat until
 *   dismissed (the error row stays), the notice of a reply cut at the output limit, what Bridle
 *   told the model about it, and the badge's "window learnt from a cut".
 * - A model that writes its calls as text: each card says Bridle read it from the text; a
 *   capability test of it once its server is gone fails in words, in place.
 * Screenshots (1440×900 and 1024×700, light and dark): test-results/capabilities-*.png.
 */
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import {
  ollamaNew,
  silentTruncation,
  textCallModel,
} from '../fixtures/model-server/persona-catalog'
import { probeAnswers } from '../fixtures/model-server/probe-script'
import type { RouteHandler } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import { backToChat, openSettings } from './shell-nav'
import { shootEachWay } from './shots'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest | undefined
let release: () => void = () => undefined

test.afterEach(async () => {
  release()
  await app?.stop()
  app = undefined
})

/** Screenshots at both sizes in both themes; `prepare` brings the view back after a resize. */
async function shoot(page: Page, name: string, prepare?: () => Promise<void>): Promise<void> {
  await shootEachWay(
    page,
    (size, theme) => `test-results/capabilities-${name}-${size}-${theme}.png`,
    prepare === undefined ? {} : { prepare },
  )
}

async function openModels(page: Page, endpointId: string): Promise<Locator> {
  const settings = await openSettings(page)
  const card = settings.getByRole('listitem', { name: `Endpoint ${endpointId}` })
  await card.getByRole('button', { name: 'Models' }).click()
  return card.getByRole('table', { name: `Models of ${endpointId}` })
}

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

/**
 * ollamaNew's `POST /api/show`, held at `gate` once `isArmed()`: the probe lists the model
 * fresh before its first request, so the test sees it running for sure.
 */
function heldShow(gate: Promise<void>, isArmed: () => boolean): Record<string, RouteHandler> {
  const show = ollamaNew.routes?.({ loaded: new Map() })['POST /api/show']
  if (show === undefined) throw new Error('ollamaNew has no POST /api/show')
  return {
    'POST /api/show': async (body) => {
      if (isArmed()) await gate
      return show(body)
    },
  }
}

test('settings: a capability test of Ollama 0.12, its card, and the same card from the chat', async ({
  page,
}) => {
  test.slow()
  const gate = new Promise<void>((resolve) => (release = resolve))
  let isArmed = false
  app = await startApp({
    persona: ollamaNew,
    script: [probeAnswers(ollamaNew)],
    loop: true,
    routes: heldShow(gate, () => isArmed),
  })
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)

  // The window, and where its number comes from: Ollama does not say what it runs.
  const models = await openModels(page, 'cli')
  const row = models.getByRole('row').filter({ hasText: 'qwen3:8b' }).first()
  await expect(row).toContainText("4,096 (Ollama's default; trained for 40,960)")
  const card = models.getByRole('region', { name: 'Capabilities of qwen3:8b' })
  await expect(card).toHaveCount(0)

  // Test: busy while the probe's first request is held, then the card under the row.
  const testButton = models.getByRole('button', { name: 'Test qwen3:8b' })
  await expect(testButton).toHaveText('Test')
  isArmed = true
  await testButton.click()
  await expect(testButton).toBeDisabled()
  await expect(testButton).toHaveAttribute('aria-busy', 'true')
  await expect(testButton).toHaveText('Testing…')
  release()
  isArmed = false
  await expect(card).toBeVisible()
  await expect(testButton).toBeEnabled()
  await expect(testButton).toHaveText('Test again')
  await expect(card.getByRole('heading')).toContainText('qwen3:8b')
  await expect(card.getByRole('heading')).toContainText('Ollama 0.12.3')
  await expect(card).toContainText(/Tested (just now|\d+ min ago) · took \d/)
  await expect(card).toContainText("in Ollama's thinking field")
  await expect(card).toContainText('it honours about 4,096 tokens')
  await expect(card).toContainText('Warning: prompts are cut silently.')
  await expect(card).toContainText('OLLAMA_CONTEXT_LENGTH')
  await expect(card.getByRole('term')).toHaveText([
    'Tool calls',
    'Reasoning',
    '⚠Context',
    'Bridle uses',
  ])
  await shoot(page, 'settings', async () => {
    await card.scrollIntoViewIfNeeded()
  })

  // The core kept the report: a fresh listing shows the card without a test.
  await page.reload()
  const again = await openModels(page, 'cli')
  await expect(again.getByRole('region', { name: 'Capabilities of qwen3:8b' })).toContainText(
    "in Ollama's thinking field",
  )
  await expect(again.getByRole('button', { name: 'Test qwen3:8b' })).toHaveText('Test again')

  // A turn resolves the session's profile: the badge names the model and the server, and opens
  // the profile with the same card.
  await backToChat(page)
  await send(page, 'Say hello')
  const chat = page.getByRole('main', { name: 'Chat' })
  await expect(chat.getByRole('article', { name: /^Agent/ })).toContainText('Hello.')
  const badge = chat.getByRole('button', { name: /^qwen3:8b, Ollama 0\.12\.3, .*model details$/ })
  await expect(badge).toHaveAttribute('aria-expanded', 'false')
  await badge.click()
  await expect(badge).toHaveAttribute('aria-expanded', 'true')
  const profile = chat.getByRole('region', { name: 'Model profile' })
  await expect(profile).toContainText("Ollama's own (/api/chat)")
  await expect(profile.getByRole('region', { name: 'Capabilities of qwen3:8b' })).toContainText(
    'it honours about 4,096 tokens',
  )
  await shoot(page, 'badge', async () => {
    if ((await badge.getAttribute('aria-expanded')) !== 'true') await badge.click()
    await expect(profile).toBeVisible()
  })
  await page.keyboard.press('Escape')
  await expect(profile).toHaveCount(0)
  await expect(badge).toHaveAttribute('aria-expanded', 'false')
  await expect(badge).toBeFocused()
  expect(consoleErrors).toEqual([])
})

test('chat: a server that cuts the prompt without a word, and a reply cut at the output limit', async ({
  page,
}) => {
  test.slow()
  // About 6,000 tokens of prose: more than the 4,096 the server runs, less than the 32,768 it lists.
  const paragraph =
    'The river bends twice before the old mill, where the water slows and the herons wait.\n'
  app = await startApp({
    persona: silentTruncation,
    files: { 'rivers.txt': paragraph.repeat(300) },
    script: [
      // Cut at the output limit: the call is dropped, the model is told, and asked again.
      {
        steps: [
          { text: 'I will read it.' },
          { toolCall: { name: 'read', args: '{"path":"rivers.txt"}' } },
          { finish: 'length' },
        ],
      },
      { steps: [{ toolCall: { name: 'read', args: '{"path":"rivers.txt"}' } }] },
      // The file makes this prompt longer than the server runs: it counts 4,096 of it.
      'It is a long text about a river and a mill.',
    ],
  })
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await send(page, 'What is rivers.txt about?')
  await expect(chat).toContainText('It is a long text about a river and a mill.')

  // The banner, above the conversation; the error's own row stays in it.
  const banner = chat.getByRole('region', { name: 'The server cut the prompt' })
  await expect(banner).toContainText('runs a window of about 4,096 tokens')
  await expect(banner).toContainText('To give the model more room')
  // Three lines of the long message show; the rest on demand.
  await banner.getByRole('button', { name: 'Show all' }).click()
  const less = banner.getByRole('button', { name: 'Show less' })
  await expect(less).toHaveAttribute('aria-expanded', 'true')
  await less.click()
  await expect(banner.getByRole('button', { name: 'Show all' })).toBeVisible()
  const log = chat.getByRole('log', { name: 'Conversation' })
  await expect(
    log.getByRole('alert').filter({ hasText: 'CONTEXT_TRUNCATED_BY_SERVER' }),
  ).toHaveCount(1)
  await expect(
    log.getByRole('alert').filter({ hasText: 'CONTEXT_TRUNCATED_BY_SERVER' }),
  ).toContainText('The model saw only part of the prompt.')

  // The cut reply: its badge, the notice, and what Bridle told the model.
  await expect(log).toContainText("Cut off at the model's output limit")
  const notice = log.getByRole('status').filter({ hasText: 'cut at the output limit' })
  await expect(notice).toContainText(
    'The answer was cut at the output limit, and its tool call (read) did not run',
  )
  await expect(notice.getByRole('img', { name: 'Warning' })).toBeVisible()
  const told = log
    .locator('details')
    .filter({ hasText: 'Bridle told the model about its last reply' })
  await expect(told).toHaveCount(1)
  await told.locator('summary').click()
  await expect(told).toContainText('cut off at the output token limit')

  // The badge: what this server taught.
  const badge = chat.getByRole('button', {
    name: /^qwen3:8b, OpenAI-compatible, window learnt from a cut, model details$/,
  })
  await expect(badge).toContainText('window learnt from a cut')
  await badge.click()
  const profile = chat.getByRole('region', { name: 'Model profile' })
  await expect(profile).toContainText('4,096 tokens (learnt from a cut')
  await expect(profile).toContainText('No capability test of this model yet.')
  await shoot(page, 'banner', async () => {
    if ((await badge.getAttribute('aria-expanded')) !== 'true') await badge.click()
    await expect(profile).toBeVisible()
  })
  await badge.click()
  await expect(profile).toHaveCount(0)
  await shoot(page, 'chat-cut')

  // Dismissed, it stays dismissed (after a reload too); the row in the conversation stays.
  await banner.getByRole('button', { name: 'Dismiss' }).click()
  await expect(banner).toHaveCount(0)
  await expect(
    log.getByRole('alert').filter({ hasText: 'CONTEXT_TRUNCATED_BY_SERVER' }),
  ).toHaveCount(1)
  await page.reload()
  await page
    .getByRole('complementary', { name: 'Sessions' })
    // The session's title (its model's, trailing "?" cleaned off), no longer the message as typed.
    .getByText(/What is rivers\.txt about/)
    .first()
    .click()
  await expect(chat).toContainText('It is a long text about a river and a mill.')
  await expect(
    log.getByRole('alert').filter({ hasText: 'CONTEXT_TRUNCATED_BY_SERVER' }),
  ).toHaveCount(1)
  await expect(banner).toHaveCount(0)
  expect(consoleErrors).toEqual([])
})

test('calls a model wrote as text say so on their cards; a test that fails says so', async ({
  page,
}) => {
  app = await startApp({
    persona: textCallModel('hermes'),
    script: [
      { steps: [{ toolCall: { name: 'read', args: '{"path":"README.md"}' } }] },
      'The README is a one-line title: Demo.',
    ],
  })
  await page.setViewportSize({ width: 1024, height: 700 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await send(page, 'What does the README say?')
  await expect(chat).toContainText('The README is a one-line title: Demo.')
  const card = chat.getByRole('article', { name: 'Tool read: done' })
  await expect(card).toContainText("Call read from the model's text (hermes)")
  // The markup is not shown as the model's answer.
  await expect(chat).not.toContainText('<tool_call>')
  await page.screenshot({ path: 'test-results/capabilities-text-calls.png' })

  // A test that cannot reach the server says so in place, under the model's row.
  const models = await openModels(page, 'cli')
  await expect(models.getByRole('row').filter({ hasText: 'local-model' })).toBeVisible()
  await app.model.close()
  await models.getByRole('button', { name: 'Test local-model' }).click()
  const failure = models.getByRole('alert')
  await expect(failure).toContainText('The test of local-model failed: nothing answered at')
  await expect(models.getByRole('button', { name: 'Test local-model' })).toHaveText('Test')
  await expect(models.getByRole('region', { name: 'Capabilities of local-model' })).toHaveCount(0)
  await page.screenshot({ path: 'test-results/capabilities-test-failed.png' })
})
