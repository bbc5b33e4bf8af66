/**
 * The first run through `bridle serve` with no endpoint and an empty home: the screen explains
 * how to start a local server (never blank), looks again on demand, and connects an API endpoint
 * entered by hand (address tried with its key, saved, key stored, tested, then the normal layout;
 * a refused key is said in words and first run stays until its flow ends). When one of the ports
 * discovery probes is free, a scripted server on it is found and added with one click.
 * Screenshot: test-results/first-run.png.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import { startModelServer } from '../fixtures/model-server/server'
import type { ModelServer, ModelServerOptions } from '../fixtures/model-server/server'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess | undefined
let model: ModelServer | undefined

test.afterEach(async () => {
  await serve?.stop()
  await model?.close()
  serve = undefined
  model = undefined
})

function savedConfig(home: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as Record<string, unknown>
}

function endpointsOf(home: string): Record<string, unknown> {
  return (savedConfig(home)['endpoints'] ?? {}) as Record<string, unknown>
}

test('no endpoint: explains how to start a server, then connects an API endpoint', async ({
  page,
}) => {
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  serve = await startServeProcess()
  await page.setViewportSize({ width: 1400, height: 900 })
  await page.goto(serve.url)

  const firstRun = page.getByRole('region', { name: 'Connect a model' })
  await expect(firstRun.getByRole('heading', { name: 'Connect a model' })).toBeVisible()
  const help = firstRun.getByLabel('How to start a local model server')
  await expect(help).toBeVisible({ timeout: 10_000 })
  await expect(help).toContainText('ollama serve')
  await expect(help).toContainText('ollama pull qwen3:8b')
  await expect(help).toContainText('port 1234')
  await expect(help).toContainText('llama-server -m model.gguf --port 8080')
  await page.screenshot({ path: 'test-results/first-run.png' })

  // Look again: searches, then says the same, without losing the page.
  await firstRun.getByRole('button', { name: 'Look again' }).click()
  await expect(help).toBeVisible()
  await expect(firstRun.getByRole('button', { name: 'Look again' })).toBeEnabled()

  // An API endpoint by hand: a bad address is refused next to its input first.
  model = await startModelServer({ models: [{ id: 'remote-model', max_model_len: 32768 }] })
  const form = firstRun.getByRole('form', { name: 'Enter an API endpoint' })
  const url = form.getByLabel('Base URL')
  await url.fill('api.example.com/v1')
  await form.getByRole('button', { name: 'Save and connect' }).click()
  await expect(url).toHaveAccessibleDescription(/must be an http\(s\) URL/)

  const secret = 'sk-first-run-0123456789'
  await url.fill(model.url)
  await form.getByLabel('API key (optional)').fill(secret)
  await form.getByRole('button', { name: 'Save and connect' }).click()

  // Connected: the normal layout, with the endpoint saved as the default and its key stored.
  // The address was tried with the key before saving, and tested again once saved.
  const server = model
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  await expect(firstRun).toHaveCount(0)
  // settings/get gives the config with defaults filled in, and that is what goes back (see the
  // report: the contract has no way to read the file as written).
  expect(savedConfig(serve.home)).toMatchObject({
    endpoints: { api: { baseUrl: model.url } },
    defaultEndpoint: 'api',
  })
  expect(savedConfig(serve.home)).not.toHaveProperty('defaultModel')
  const listings = server.requests.filter((r) => r.path === '/v1/models')
  expect(listings.map((r) => r.headers.authorization)).toEqual([
    `Bearer ${secret}`,
    `Bearer ${secret}`,
  ])
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const card = page
    .getByRole('main', { name: 'Settings' })
    .getByRole('listitem', { name: 'Endpoint api' })
  await expect(card.getByTestId('key-state-api')).toHaveText('key stored')
  expect(await page.content()).not.toContain(secret)
  expect(consoleErrors).toEqual([])
})

/** A scripted server on the first free port of those discovery probes, or undefined. */
async function serverOnProbedPort(options: ModelServerOptions): Promise<ModelServer | undefined> {
  for (const port of [8000, 8080, 1234, 11434]) {
    try {
      return await startModelServer({ ...options, port })
    } catch {
      // In use (a real server, or another test): try the next, and skip if none is free.
    }
  }
  return undefined
}

test('a local server on a probed port is found and added with one click', async ({ page }) => {
  model = await serverOnProbedPort({ models: [{ id: 'found-model', max_model_len: 8192 }] })
  const busy = 'skipped: ports 8000, 8080, 1234 and 11434 are all in use on this machine'
  if (model === undefined) console.log(busy)
  test.skip(model === undefined, busy)
  if (model === undefined) return
  serve = await startServeProcess()
  await page.goto(serve.url)

  const firstRun = page.getByRole('region', { name: 'Connect a model' })
  const found = firstRun.getByRole('list', { name: 'Local servers found' })
  const entry = found.getByRole('listitem', { name: new RegExp(`at ${model.url}`) })
  await expect(entry).toContainText('1 model: found-model')
  await entry.getByRole('button', { name: /^Use this server/ }).click()

  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  const config = savedConfig(serve.home)
  expect(config).toMatchObject({ defaultModel: 'found-model' })
  const endpoints = config['endpoints'] as Record<string, { baseUrl: string }>
  const id = String(config['defaultEndpoint'])
  expect(endpoints[id]?.baseUrl).toBe(model.url)
})

test('an endpoint that does not answer is not saved: a hint, and "Save anyway"', async ({
  page,
}) => {
  // A port that was just listening and is closed now: nothing answers there.
  const gone = await startModelServer({})
  const url = gone.url
  await gone.close()
  serve = await startServeProcess()
  await page.goto(serve.url)
  const firstRun = page.getByRole('region', { name: 'Connect a model' })
  const form = firstRun.getByRole('form', { name: 'Enter an API endpoint' })
  await form.getByLabel('Base URL').fill(url)
  await form.getByRole('button', { name: 'Save and connect' }).click()
  const refusal = form.getByRole('alert')
  await expect(refusal).toContainText(/Nothing answered at http:\/\/127\.0\.0\.1:\d+/)
  await expect(refusal).toContainText('Ollama listens on 11434')
  await expect(refusal).not.toContainText('fetch failed')
  const home = serve.home
  const hasSaved = () => existsSync(join(home, 'config.json')) && 'api' in endpointsOf(home)
  expect(hasSaved()).toBe(false)
  await expect(firstRun).toBeVisible()

  await refusal.getByRole('button', { name: 'Save anyway' }).click()
  await expect.poll(hasSaved).toBe(true)
})

test('a key the server refuses is not saved: a plain sentence, and "Save anyway" stays in first run', async ({
  page,
}) => {
  model = await startModelServer({
    routes: { 'GET /v1/models': () => ({ status: 401, body: { error: 'invalid api key' } }) },
  })
  serve = await startServeProcess()
  await page.goto(serve.url)
  const firstRun = page.getByRole('region', { name: 'Connect a model' })
  const form = firstRun.getByRole('form', { name: 'Enter an API endpoint' })
  const secret = 'sk-wrong-0123456789'
  await form.getByLabel('Base URL').fill(model.url)
  await form.getByLabel('API key (optional)').fill(secret)
  await form.getByRole('button', { name: 'Save and connect' }).click()

  // Tried with the key before saving, and refused in words.
  const refusal = form.getByRole('alert')
  await expect(refusal).toContainText('The server refused the key (401)')
  await expect(refusal).not.toContainText('Ollama listens on')
  await expect(refusal).not.toContainText('AUTH_FAILED')
  const server = model
  expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${secret}`)
  const home = serve.home
  const hasSaved = () => existsSync(join(home, 'config.json')) && 'api' in endpointsOf(home)
  expect(hasSaved()).toBe(false)

  // Saved anyway: first run stays through its own flow (key stored, test failed, said) rather
  // than giving way to the chat the moment the endpoint exists.
  await refusal.getByRole('button', { name: 'Save anyway' }).click()
  await expect.poll(hasSaved).toBe(true)
  await expect(form.getByRole('status')).toContainText('Saved, but not working yet')
  await expect(form.getByRole('status')).toContainText('the server refused the API key (401)')
  await expect(firstRun).toBeVisible()
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0)
  await form.getByRole('button', { name: 'Continue anyway' }).click()
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  await expect(firstRun).toHaveCount(0)
  expect(await page.content()).not.toContain(secret)
})
