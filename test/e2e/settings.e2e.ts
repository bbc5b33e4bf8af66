/**
 * The settings panel through `bridle serve` (real Host, scripted model servers): a bad endpoint
 * URL shows its error next to the URL input and nothing is saved; the fixed one is saved, tested
 * (models listed) and its models shown; a dead port's test says what to do; a stored key shows
 * only as "key stored"; approval mode and compaction threshold reach config.json; dark theme.
 * Screenshots: test-results/settings.png and settings-dark.png.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import type { Locator, Page } from '@playwright/test'
import { closedPort, startModelServer } from '../fixtures/model-server/server'
import type { ModelServer } from '../fixtures/model-server/server'
import { startApp } from './app-fixture'
import { chooseOption, openOptions } from './combobox'
import { pageProtocols } from './page-bridge'
import type { AppUnderTest } from './app-fixture'

let app: AppUnderTest
let lab: ModelServer

test.beforeEach(async () => {
  app = await startApp()
  lab = await startModelServer({
    models: [
      { id: 'lab-coder', max_model_len: 16384 },
      { id: 'lab-small', max_model_len: 4096 },
    ],
  })
})

test.afterEach(async () => {
  await lab.close()
  await app.stop()
})

/** config.json as serve wrote it (what the user gave, not the defaults); {} before the first save. */
function savedConfig(): Record<string, unknown> {
  const file = join(app.serve.home, 'config.json')
  if (!existsSync(file)) return {}
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
}

async function openSettings(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const settings = page.getByRole('main', { name: 'Settings' })
  await expect(settings.getByRole('heading', { name: 'Endpoints' })).toBeVisible()
  return settings
}

test('endpoints: field error, save, test, models, dead port, key state', async ({ page }) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const settings = await openSettings(page)

  // The serve override is listed, marked, and cannot take a key.
  const cli = settings.getByRole('listitem', { name: 'Endpoint cli' })
  await expect(cli).toContainText(app.model.url)
  await expect(cli).toContainText('bridle serve --base-url')
  await expect(cli.getByRole('button', { name: 'API key' })).toHaveCount(0)

  // A bad URL: the error is next to (and describes) the URL input; nothing is written.
  await settings.getByRole('button', { name: 'Add endpoint' }).click()
  const form = settings.getByRole('form', { name: 'Add an endpoint' })
  await form.getByLabel('Name').fill('lab')
  const url = form.getByLabel('Base URL')
  await url.fill('localhost:11434')
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  await expect(url).toHaveAttribute('aria-invalid', 'true')
  await expect(url).toHaveAccessibleDescription(/must be an http\(s\) URL/)
  await expect(form.getByRole('alert')).toContainText('must be an http(s) URL')
  await form.screenshot({ path: 'test-results/settings-error.png' })
  expect(existsSync(join(app.serve.home, 'config.json'))).toBe(false)

  // Fixed: saved, listed, and the form closes.
  await url.fill(lab.url)
  await expect(url).toHaveValue(lab.url)
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  await expect(form).toHaveCount(0)
  const card = settings.getByRole('listitem', { name: 'Endpoint lab' })
  await expect(card).toContainText(lab.url)
  await expect(card.getByTestId('key-state-lab')).toHaveText('no key')
  expect(savedConfig()).toEqual({ ...savedConfig(), endpoints: { lab: { baseUrl: lab.url } } })

  // Test: it works, with its latency and models.
  await card.getByRole('button', { name: 'Test' }).click()
  const result = card.getByTestId('endpoint-test-result')
  await expect(result).toContainText('Works')
  await expect(result).toContainText(/\d+ ms/)
  await expect(result).toContainText('2 models: lab-coder, lab-small')

  // Models: context window and tool support (unknown for a non-Ollama server); pick a default.
  await card.getByRole('button', { name: 'Models' }).click()
  const models = card.getByRole('table', { name: 'Models of lab' })
  await expect(models.getByRole('row', { name: /lab-coder/ })).toContainText(
    '16,384 (what the server runs)',
  )
  await expect(models.getByRole('row', { name: /lab-coder/ })).toContainText('unknown')
  await models.getByRole('button', { name: 'Use lab-coder as the default model' }).click()
  await expect(models.getByRole('row', { name: /lab-coder/ })).toContainText('default')
  await card.screenshot({ path: 'test-results/settings-models.png' })
  expect(savedConfig()).toMatchObject({ defaultEndpoint: 'lab', defaultModel: 'lab-coder' })
  await expect(card).toContainText('Default model: lab-coder')

  // A dead port: the test says what failed and what to do.
  const port = await closedPort()
  await settings.getByRole('button', { name: 'Add endpoint' }).click()
  const second = settings.getByRole('form', { name: 'Add an endpoint' })
  await second.getByLabel('Name').fill('offline')
  await second.getByLabel('Base URL').fill(`http://127.0.0.1:${port}/v1`)
  await second.getByRole('button', { name: 'Save endpoint' }).click()
  const offline = settings.getByRole('listitem', { name: 'Endpoint offline' })
  await offline.getByRole('button', { name: 'Test' }).click()
  const failed = offline.getByTestId('endpoint-test-result')
  await expect(failed).toContainText('Not working')
  await expect(failed).toContainText(
    `nothing answered at http://127.0.0.1:${port}: is the server running, and is the address right?`,
  )

  // A key: stored, shown only as its state; the text is nowhere in the page or config.json.
  const secret = 'sk-e2e-secret-0123456789abcdef'
  await card.getByRole('button', { name: 'API key' }).click()
  const keyInput = card.getByLabel('API key for lab')
  await expect(keyInput).toHaveAttribute('type', 'password')
  await keyInput.fill(secret)
  await card.getByRole('button', { name: 'Store key' }).click()
  await expect(card.getByTestId('key-state-lab')).toHaveText('key stored')
  await expect(card.getByLabel('Replace the API key of lab')).toHaveValue('')
  expect(await page.content()).not.toContain(secret)
  expect(await page.locator('body').innerText()).not.toContain(secret)
  expect(JSON.stringify(savedConfig())).not.toContain(secret)

  // The key is sent to the server it was set for.
  await card.getByRole('button', { name: 'Test' }).click()
  await expect(result).toContainText('Works')
  const withKey = lab.requests.filter((r) => r.headers.authorization === `Bearer ${secret}`)
  expect(withKey.length).toBeGreaterThan(0)

  await settings.getByRole('heading', { name: 'Endpoints' }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/settings.png' })
  expect(consoleErrors).toEqual([])
})

test('approval mode, remembered rules, compaction threshold, dark theme', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(app.url)
  const settings = await openSettings(page)

  // Approval mode: saved as soon as it is picked.
  const autoEdit = settings.getByRole('radio', { name: /^Auto-edit/ })
  await expect(settings.getByRole('radio', { name: /^Ask/ })).toBeChecked()
  await autoEdit.check()
  await expect(autoEdit).toBeChecked()
  await expect.poll(() => savedConfig()['approval']).toBe('auto-edit')
  await expect(settings).toContainText('None yet.')

  // Compaction: an out-of-range threshold is refused next to its input, then a good one saved.
  const compaction = settings.getByRole('form', { name: 'Compaction' })
  const threshold = compaction.getByRole('spinbutton', { name: 'Threshold' })
  await threshold.fill('0.99')
  await compaction.getByRole('button', { name: 'Save compaction' }).click()
  await expect(threshold).toHaveAttribute('aria-invalid', 'true')
  await expect(threshold).toHaveAccessibleDescription(/between 0.1 and 0.95/)
  await threshold.fill('0.6')
  await compaction.getByRole('checkbox', { name: 'Prune old tool outputs first' }).uncheck()
  await compaction.getByRole('button', { name: 'Save compaction' }).click()
  await expect(threshold).not.toHaveAttribute('aria-invalid', 'true')
  await expect
    .poll(() => savedConfig()['compaction'])
    .toEqual({ threshold: 0.6, keepUserTurns: 2, prune: false })
  await expect(compaction).toContainText('more than 60% of the context window')
  // The earlier change survived the later one (each save sends the whole config as read).
  expect(savedConfig()['approval']).toBe('auto-edit')

  // Dark theme.
  await settings.getByText('Dark', { exact: true }).click()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await settings.getByRole('heading', { name: 'Approvals' }).scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/settings-dark.png' })
})

test('remembered rules are listed and can be deleted', async ({ page }) => {
  await page.goto(app.url)
  // A rule as "always" would remember it, written through the same contract the panel uses.
  const settings = await openSettings(page)
  await expect(settings.getByRole('radio', { name: /^Ask/ })).toBeChecked()
  const protocols = await pageProtocols(page)
  const written = await page.evaluate(
    async ({ origin, protocols }) => {
      const socket = new WebSocket(`ws://${new URL(origin).host}/bridge`, protocols)
      const call = (id: number, method: string, params: unknown) =>
        new Promise<unknown>((resolve) => {
          socket.addEventListener('message', function onMessage(message) {
            const data = JSON.parse(String(message.data)) as {
              kind: string
              id?: number
              result?: unknown
            }
            if (data.kind !== 'result' || data.id !== id) return
            socket.removeEventListener('message', onMessage)
            resolve(data.result)
          })
          socket.send(JSON.stringify({ id, method, params }))
        })
      await new Promise((resolve) => socket.addEventListener('open', resolve))
      const read = (await call(1, 'settings/get', {})) as {
        value: { config: Record<string, unknown> }
      }
      const config = {
        ...read.value.config,
        approvalRules: [
          { tool: 'bash', prefix: 'npm test', effect: 'allow', project: '/path/to/demo' },
          { tool: 'bash', prefix: 'rm -rf', effect: 'deny' },
        ],
      }
      const result = await call(2, 'settings/update', { config })
      socket.close()
      return result
    },
    { origin: app.serve.origin, protocols },
  )
  expect(written).toMatchObject({ ok: true })

  // settings/changed brings them in without a reload.
  const rules = settings.getByRole('table', { name: 'Remembered rules' })
  await expect(rules.getByRole('row')).toHaveCount(3)
  await expect(rules).toContainText('npm test')
  await expect(rules).toContainText('all projects')
  await rules.getByRole('button', { name: 'Delete rule: Allow bash "npm test"' }).click()
  await expect(rules.getByRole('row')).toHaveCount(2)
  await expect(rules).not.toContainText('npm test')
  expect(savedConfig()['approvalRules']).toEqual([
    { tool: 'bash', prefix: 'rm -rf', effect: 'deny' },
  ])
})

test("the open project's own defaults are saved for it and cleared back to the global ones", async ({
  page,
}) => {
  await page.goto(app.url)
  const settings = await openSettings(page)
  const own = settings.getByRole('form', { name: 'Project defaults' })
  await expect(own).toContainText(app.project)
  await expect(own.getByRole('combobox', { name: 'Project endpoint' })).toHaveText(
    '(the global default)',
  )
  // An endpoint of the config's own to choose for the project (serve's `cli` is not in it).
  await settings.getByRole('button', { name: 'Add endpoint' }).click()
  const form = settings.getByRole('form', { name: 'Add an endpoint' })
  await form.getByLabel('Name').fill('lab')
  await form.getByLabel('Base URL').fill(lab.url)
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  const endpoint = own.getByRole('combobox', { name: 'Project endpoint' })
  const endpoints = (await openOptions(endpoint)).getByRole('option')
  await expect(endpoints).toHaveText(['(the global default)', 'lab'])
  await endpoints.nth(1).click()
  await expect(endpoint).toHaveText('lab')
  await own.getByRole('textbox', { name: 'Project model' }).fill('lab-small')
  await own.getByRole('button', { name: 'Save project defaults' }).click()
  await expect
    .poll(() => savedConfig()['projects'])
    .toEqual({ [app.project]: { endpoint: 'lab', model: 'lab-small' } })
  // The form is drawn anew from the saved values (its Save then has nothing to save): wait for
  // that before scrolling, or the scroll may hold the form that was just replaced.
  await expect(own.getByRole('button', { name: 'Save project defaults' })).toBeDisabled()
  await own.scrollIntoViewIfNeeded()
  await page.screenshot({ path: 'test-results/settings-project.png' })
  // The global defaults are untouched, and emptying the project's fields removes its entry.
  expect(savedConfig()).not.toHaveProperty('defaultModel')
  await chooseOption(endpoint, '(the global default)')
  await own.getByRole('textbox', { name: 'Project model' }).fill('')
  await own.getByRole('button', { name: 'Save project defaults' }).click()
  await expect.poll(() => savedConfig()['projects']).toEqual({})
})
