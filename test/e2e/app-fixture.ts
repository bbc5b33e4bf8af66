/**
 * The whole app for an e2e test: a scripted model server (in this process, so the test can queue
 * responses and read what was sent), a project folder with a few files, and `bridle serve` as a
 * real child process pointed at both. Tests drive the UI in Chromium at `app.url`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from '@playwright/test'
import type { Locator } from '@playwright/test'
import { startModelServer } from '../fixtures/model-server/server'
import type { ModelServer, ModelServerOptions } from '../fixtures/model-server/server'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

export interface AppUnderTest {
  readonly serve: ServeProcess
  readonly model: ModelServer
  /** The project folder (real path), opened by serve at start. */
  readonly project: string
  /** The address to open (with the token). */
  readonly url: string
  stop(): Promise<void>
}

export interface AppOptions extends ModelServerOptions {
  /** Files to create in the project folder, by relative path. */
  readonly files?: Readonly<Record<string, string>>
  /** `--context-window` for the model (default: what the scripted server reports). */
  readonly contextWindow?: number
  /** `--model`; default the persona's model, else `scripted` (the scripted server's one model). */
  readonly model?: string
  /** Added to serve's environment (a test seam such as BRIDLE_TEST_STORE_FAULT). */
  readonly env?: Readonly<Record<string, string>>
  /** The data folder's config.json at start (`mcpServers`, …); none by default. */
  readonly config?: Readonly<Record<string, unknown>>
  /** Writes sessions into the data folder before serve starts (`home`, the project's real path). */
  readonly seed?: (home: string, project: string) => void
}

export async function startApp(opts: AppOptions = {}): Promise<AppUnderTest> {
  const { files, contextWindow, model: modelId, env, config, seed, ...serverOptions } = opts
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-e2e-project-')))
  for (const [path, text] of Object.entries(
    files ?? { 'README.md': '# Demo\n', 'src/app.ts': 'export const answer = 41\n' },
  )) {
    mkdirSync(join(project, path, '..'), { recursive: true })
    writeFileSync(join(project, path), text)
  }
  const model = await startModelServer(serverOptions)
  const serve = await startServeProcess(
    [
      '--project',
      project,
      '--base-url',
      model.url,
      '--model',
      modelId ?? serverOptions.persona?.model ?? 'scripted',
      ...(contextWindow === undefined ? [] : ['--context-window', String(contextWindow)]),
    ],
    env,
    config,
    seed === undefined ? undefined : (home) => seed(home, project),
  )
  return {
    serve,
    model,
    project,
    url: serve.url,
    async stop() {
      await serve.stop()
      await model.close()
      rmSync(project, { recursive: true, force: true })
    },
  }
}

/**
 * Types into the composer until it holds the text: keys typed while the shell is still loading
 * can be lost to a re-render (seen on a loaded machine).
 */
export async function typeInComposer(box: Locator, text: string): Promise<void> {
  await expect(async () => {
    await box.fill('')
    await box.pressSequentially(text)
    await expect(box).toHaveValue(text, { timeout: 1000 })
  }).toPass({ timeout: 20_000 })
}
