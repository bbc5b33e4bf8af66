import { randomUUID } from 'node:crypto'
import { homedir } from 'node:os'
import type { TopicName, NotificationOf } from '../../../protocol/contract.js'
import type { CallContext, Host, HostHandlers, NotificationSink } from './host.js'
import { databasePath, openStore } from '../store/index.js'
import { ensureHome } from './home.js'
import { createMcp } from './mcp-service.js'
import { createRuntime } from './runtime/runtime.js'
import type { HostContext, SecretBox } from './services.js'
import { sessionHandlers } from './sessions/handlers.js'
import { createSettings } from './settings/service.js'
import type { ModelOverride } from './settings/service.js'

export interface BootOptions {
  /** The data folder (BRIDLE_HOME); created owner-only when missing. */
  readonly home: string
  /** The app's version, from package.json or Electron's `app.getVersion()`. */
  readonly version: string
  /** Runtime versions to report, e.g. `process.versions` filtered to node/electron/chrome. */
  readonly versions: Readonly<Record<string, string>>
  readonly platform?: string
  readonly arch?: string
  /** Electron's folder picker for `project/open`; serve mode has none. */
  readonly pickFolder?: () => Promise<string | undefined>
  /** Electron's safeStorage for API keys; without it keys go to a 0600 file. */
  readonly secretBox?: SecretBox
  /** Where `apiKeyEnv` variables are read; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv
  /** `bridle serve --base-url URL --model M ...`: an endpoint `cli`, the default while set. */
  readonly modelOverride?: ModelOverride
  /** Where a working sandbox is remembered between runs (`RuntimeOptions.sandboxProbeCache`). */
  readonly sandboxProbeCache?: string
}

/**
 * Composes the core into a Host. This is the only place where the store, the models, the clock
 * and the settings meet; nothing in the core reaches for a global instead. Whatever fails while
 * composing (a folder that cannot be made, a database this Bridle must not touch) rejects.
 */
export function boot(opts: BootOptions): Promise<Host> {
  return Promise.resolve(opts).then(compose)
}

function compose(opts: BootOptions): Host {
  const home = ensureHome(opts.home)
  const sinks = new Set<NotificationSink>()
  const notify = fanOut(sinks)
  // A database this Bridle must not touch (newer schema, not ours, corrupt) throws here, with
  // the store's message, before anything could write to it.
  const store = openStore(databasePath(home))

  const context: HostContext = {
    home,
    store,
    notify,
    ...(opts.pickFolder ? { pickFolder: opts.pickFolder } : {}),
  }
  const settings = createSettings(context, {
    env: opts.env ?? process.env,
    ...(opts.secretBox ? { secretBox: opts.secretBox } : {}),
    ...(opts.modelOverride ? { modelOverride: opts.modelOverride } : {}),
  })
  const mcp = createMcp(context, settings.service, {
    env: opts.env ?? process.env,
    version: opts.version,
  })
  const runtime = createRuntime(context, settings.service, {
    env: opts.env ?? process.env,
    mcp: mcp.service,
    ...(opts.sandboxProbeCache === undefined ? {} : { sandboxProbeCache: opts.sandboxProbeCache }),
  })

  const handlers: HostHandlers = {
    ...settings.handlers,
    ...runtime.handlers,
    ...mcp.handlers,
    ...sessionHandlers(context, {
      settings: settings.service,
      runtime: runtime.service,
      userHome: userHomeOf(opts.env ?? process.env),
    }),
    'app/info': (_params, ctx: CallContext) => ({
      name: 'Bridle',
      version: opts.version,
      dataDir: home,
      databasePath: store.path,
      platform: opts.platform ?? process.platform,
      arch: opts.arch ?? process.arch,
      versions: { ...opts.versions },
      transport: ctx.transport,
    }),
  }

  let isClosed = false
  return {
    handlers,
    bootId: randomUUID(),
    onNotification(sink) {
      sinks.add(sink)
      return () => void sinks.delete(sink)
    },
    async close() {
      if (isClosed) return
      isClosed = true
      sinks.clear()
      // Turns still running are cancelled and their sessions closed before the store goes.
      try {
        await runtime.service.close()
        // The MCP servers stop with the app, their process groups with them.
        await mcp.service.close()
      } finally {
        store.close()
      }
    },
  }
}

/** Where other tools keep their sessions: $HOME first (so a test or a user can move it). */
function userHomeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || homedir()
}

/** One sink that tells every sink in `sinks` (as it is at each call) in turn. */
function fanOut(sinks: ReadonlySet<NotificationSink>): NotificationSink {
  return <T extends TopicName>(topic: T, payload: NotificationOf<T>) => {
    for (const sink of [...sinks]) {
      try {
        sink(topic, payload)
      } catch (error) {
        // One broken transport (a closed socket) must not keep the others from hearing.
        console.error(`[bridle] notification sink failed for ${topic}:`, error)
      }
    }
  }
}

/** The runtime versions worth reporting, picked from `process.versions`. */
export function runtimeVersions(versions: NodeJS.ProcessVersions): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const key of ['node', 'electron', 'chrome', 'v8'] as const) {
    const value = (versions as Record<string, string | undefined>)[key]
    if (value) picked[key] = value
  }
  return picked
}
