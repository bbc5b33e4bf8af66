import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dispatchCall } from '../../core/host/index.js'
import type { BootOptions } from '../../core/host/index.js'
import { startServe } from '../serve.js'
import { UsageError } from './command.js'
import type { CommandArgs, CommandContext } from './command.js'
import { parseContextWindow, parseFolder, parsePort } from './options.js'
import type { OptionValues } from './options.js'

/** The built renderer beside the bundle's folder, when this runs as `out/main/*.js` (`bridle`). */
const BUNDLED_RENDERER = fileURLToPath(new URL('../renderer', import.meta.url))
/** The built renderer of the checkout, when this runs from the sources (`npm run bridle`). */
const CHECKOUT_RENDERER = fileURLToPath(new URL('../../../out/renderer', import.meta.url))

/** Where the renderer is; when it is not built, the page served says what to run. */
function defaultRendererDir(): string {
  return existsSync(join(BUNDLED_RENDERER, 'index.html')) ? BUNDLED_RENDERER : CHECKOUT_RENDERER
}

/**
 * `bridle serve`: boots the core and serves the UI and the bridge (`../serve.ts`) until SIGINT,
 * SIGTERM or SIGHUP, with `--project` opened first and `--base-url` as the default endpoint.
 */
export async function run({ values }: CommandArgs, { bootHost }: CommandContext): Promise<number> {
  const project =
    values.project === undefined ? undefined : parseFolder('--project', values.project)
  const host = await bootHost(modelOverride(values))
  if (project !== undefined) {
    // Through the contract like any client; a failure is reported, the UI can still open one.
    const ctx = { transport: 'in-process' } as const
    const opened = await dispatchCall(host, 'project/open', { path: project }, ctx)
    if (!opened.ok) {
      process.stderr.write(
        `bridle: could not open the project ${project} (${opened.error.code}): ${opened.error.message}\n`,
      )
    }
  }
  const serving = await startServe({
    host,
    rendererDir: values.renderer ?? defaultRendererDir(),
    port: parsePort(values.port?.at(-1)),
    hostname: values.host ?? '127.0.0.1',
  })
  process.stdout.write(`Bridle is serving at ${serving.url}\n`)
  process.stdout.write('Open that address in a browser; press Ctrl+C to stop.\n')
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
    process.once('SIGHUP', resolve)
  })
  await serving.close()
  await host.close()
  return 0
}

/**
 * `--base-url` (with --model, --api-key-env, --context-window) adds an endpoint `cli` that new
 * sessions use by default, as `bridle run` would.
 */
function modelOverride(values: OptionValues): Pick<BootOptions, 'modelOverride'> {
  const baseUrl = values['base-url']
  if (baseUrl === undefined && (values.model ?? values['api-key-env']) !== undefined) {
    throw new UsageError('serve takes --model and --api-key-env only with --base-url')
  }
  if (baseUrl === undefined) return {}
  return {
    modelOverride: {
      baseUrl,
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
      ...(values['context-window'] === undefined
        ? {}
        : { contextWindow: parseContextWindow(values['context-window']) }),
    },
  }
}
