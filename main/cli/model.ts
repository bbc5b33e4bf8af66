import { CapabilityStore } from '../core/host/endpoints/capabilities.js'
import type { Config } from '../core/host/settings/config.js'
import { CredentialStore } from '../core/host/settings/credentials.js'
import {
  defaultEndpointId,
  endpointConfigOf,
  endpointEntries,
  pickEndpoint,
  presetModel,
  resolveApiKey,
} from '../core/host/endpoints/resolve.js'
import type { EndpointEntry, EndpointPick, ModelOverride } from '../core/host/endpoints/resolve.js'
import { connectModel } from '../core/host/endpoints/connection.js'
import type { ModelConnection } from '../core/host/endpoints/connection.js'
import { listModels } from '../core/models/discovery.js'
import type { EndpointConfig } from '../core/models/types.js'

export interface ModelFlags {
  readonly config: Config
  readonly baseUrl?: string
  readonly model?: string
  readonly apiKeyEnv?: string
  readonly env: NodeJS.ProcessEnv
  /**
   * The data folder: a key stored there for the configured endpoint (`credential/set` in
   * `bridle serve`) is used as the app would use it. Without it, keys come from the environment.
   */
  readonly dataDir?: string
}

/** The endpoint and model a command talks to, before anything asked the server. */
export interface ModelTarget {
  readonly entry: EndpointEntry
  /** With its key. */
  readonly endpoint: EndpointConfig
  readonly model: string
}

/**
 * The endpoint and model a command talks to: flags first, then config.json's default endpoint
 * (or its only one) and model, by the rules the Host uses (core/host/endpoints/resolve.ts). Says
 * exactly what is missing when something is.
 */
export function resolveModel(flags: ModelFlags): ModelTarget {
  const entry = chooseEndpoint(flags)
  // The CLI cannot ask the server for its models before it starts, so config's defaultModel is
  // the last resort here, where the Host would take the server's first model.
  const model = flags.model ?? presetModel(entry, flags.config) ?? flags.config.defaultModel
  if (model === undefined)
    throw new Error('no model: pass --model NAME or set defaultModel in config.json')
  // --api-key-env names the key to use whatever is stored.
  const credentials =
    flags.apiKeyEnv === undefined && flags.dataDir !== undefined
      ? new CredentialStore(flags.dataDir)
      : undefined
  const key = resolveApiKey(entry, credentials, flags.env)
  if (key.source === 'problem') throw new Error(key.message)
  // Throws, at start, for a base URL that is not http(s).
  const endpoint = endpointConfigOf(entry, key.source === 'none' ? undefined : key.value)
  return { entry, endpoint, model }
}

/** `--base-url` (another server: the configured endpoint's key and models do not apply), else config's. */
function chooseEndpoint(flags: ModelFlags): EndpointEntry {
  const override: ModelOverride | undefined =
    flags.baseUrl === undefined
      ? undefined
      : {
          baseUrl: flags.baseUrl,
          ...(flags.model === undefined ? {} : { model: flags.model }),
          ...(flags.apiKeyEnv === undefined ? {} : { apiKeyEnv: flags.apiKeyEnv }),
        }
  const entries = endpointEntries(flags.config, override)
  const pick = pickEndpoint(entries, defaultEndpointId(flags.config, entries))
  if (!pick.ok) throw new Error(pickMessage(pick))
  if (flags.apiKeyEnv === undefined || pick.entry.override !== undefined) return pick.entry
  return { ...pick.entry, apiKeyEnv: flags.apiKeyEnv }
}

function pickMessage(pick: Extract<EndpointPick, { ok: false }>): string {
  switch (pick.problem) {
    case 'none':
      return 'no model endpoint: pass --base-url (e.g. http://127.0.0.1:11434/v1) or set endpoints and defaultEndpoint in config.json'
    case 'ambiguous':
      return `several endpoints in config.json (${pick.known.join(', ')}) and no defaultEndpoint: set defaultEndpoint or pass --base-url`
    case 'unknown':
      return `config.json's defaultEndpoint "${pick.id ?? ''}" is not one of its endpoints (${pick.known.join(', ') || 'none'}): fix defaultEndpoint or pass --base-url`
  }
}

/** How long the CLI waits for the server's listing (its kind and the window it runs). */
const LISTING_TIMEOUT_MS = 3_000

/**
 * Connects to the target the way the app does (core/host/endpoints/connection.ts): asks the
 * server what it is and which window it runs, applies what a probe or earlier refusals taught
 * (capabilities.json in the data folder) and config.json's overrides. `--context-window` is the configured window. A
 * server that does not answer the listing is still connected to: the request reports the fault.
 */
export async function connectTarget(
  target: ModelTarget,
  options: { readonly contextWindow?: number; readonly dataDir?: string },
): Promise<ModelConnection> {
  const listing = await listModels(target.endpoint, { timeoutMs: LISTING_TIMEOUT_MS })
  const window = options.contextWindow
  const entry: EndpointEntry =
    window === undefined
      ? target.entry
      : target.entry.override !== undefined
        ? { ...target.entry, override: { ...target.entry.override, contextWindow: window } }
        : {
            ...target.entry,
            models: {
              ...target.entry.models,
              [target.model]: { ...target.entry.models?.[target.model], contextWindow: window },
            },
          }
  return connectModel({
    entry,
    endpoint: target.endpoint,
    model: target.model,
    listing,
    ...(options.dataDir === undefined
      ? {}
      : { capabilities: new CapabilityStore(options.dataDir) }),
  })
}
