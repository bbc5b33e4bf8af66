import type { Config } from '../core/host/config.js'
import { CredentialStore } from '../core/host/credentials.js'
import {
  configuredWindow,
  defaultEndpointId,
  endpointConfigOf,
  endpointEntries,
  pickEndpoint,
  presetModel,
  resolveApiKey,
} from '../core/host/endpoints.js'
import type { EndpointEntry, EndpointPick, ModelOverride } from '../core/host/endpoints.js'
import { listModels } from '../core/models/discovery.js'
import { createOpenAiCompatibleAdapter } from '../core/models/openai-compatible.js'
import type { EndpointConfig, ModelAdapter } from '../core/models/types.js'

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

export interface ModelChoice {
  readonly adapter: ModelAdapter
  readonly model: string
  readonly endpoint: EndpointConfig
  /** The window config.json gives this model, if any. */
  readonly configuredWindow?: number
}

/**
 * The endpoint and model a command talks to: flags first, then config.json's default endpoint
 * (or its only one) and model, by the rules the Host uses (core/host/endpoints.ts). Says
 * exactly what is missing when something is.
 */
export function resolveModel(flags: ModelFlags): ModelChoice {
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
  const endpoint = endpointConfigOf(entry, key.source === 'none' ? undefined : key.value)
  const window = configuredWindow(entry, model)
  return {
    adapter: createOpenAiCompatibleAdapter(endpoint),
    model,
    endpoint,
    ...(window === undefined ? {} : { configuredWindow: window }),
  }
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

export interface ContextWindow {
  readonly tokens: number
  readonly source: 'flag' | 'server' | 'config'
}

/**
 * The model's context window: `--context-window` when given, else what the server reports for
 * the model (the context it was started with, where the server says), else config.json.
 * Undefined when nobody knows; then nothing compacts automatically.
 */
export async function contextWindowOf(
  choice: ModelChoice,
  override: number | undefined,
): Promise<ContextWindow | undefined> {
  if (override !== undefined) return { tokens: override, source: 'flag' }
  const listed = await listModels(choice.endpoint, { timeoutMs: 3000 })
  const reported = listed.ok
    ? listed.models.find((m) => m.id === choice.model)?.contextWindow
    : undefined
  if (reported !== undefined) return { tokens: reported, source: 'server' }
  if (choice.configuredWindow !== undefined)
    return { tokens: choice.configuredWindow, source: 'config' }
  return undefined
}
