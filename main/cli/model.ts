import type { Config } from '../core/host/config.js'
import { listModels } from '../core/models/discovery.js'
import { createOpenAiCompatibleAdapter } from '../core/models/openai-compatible.js'
import type { EndpointConfig, ModelAdapter } from '../core/models/types.js'

export interface ModelFlags {
  readonly config: Config
  readonly baseUrl?: string
  readonly model?: string
  readonly apiKeyEnv?: string
  readonly env: NodeJS.ProcessEnv
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
 * and model. Says exactly what is missing when something is.
 */
export function resolveModel(flags: ModelFlags): ModelChoice {
  const name = flags.config.defaultEndpoint
  const configured = name === undefined ? undefined : flags.config.endpoints[name]
  const baseUrl = flags.baseUrl ?? configured?.baseUrl
  if (baseUrl === undefined) {
    throw new Error(
      'no model endpoint: pass --base-url (e.g. http://127.0.0.1:11434/v1) or set endpoints and defaultEndpoint in config.json',
    )
  }
  const model = flags.model ?? flags.config.defaultModel
  if (model === undefined)
    throw new Error('no model: pass --model NAME or set defaultModel in config.json')
  // A --base-url names another server: the configured endpoint's key and models do not apply.
  const endpointConfig = flags.baseUrl === undefined ? configured : undefined
  const keyEnv = flags.apiKeyEnv ?? endpointConfig?.apiKeyEnv
  const apiKey = keyEnv === undefined ? undefined : flags.env[keyEnv]
  if (keyEnv !== undefined && !apiKey)
    throw new Error(`the environment variable ${keyEnv} (the API key) is not set`)
  const endpoint: EndpointConfig = {
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    ...(endpointConfig?.idleTimeoutSeconds
      ? { idleTimeoutMs: endpointConfig.idleTimeoutSeconds * 1000 }
      : {}),
  }
  const configuredWindow = endpointConfig?.models?.[model]?.contextWindow
  return {
    adapter: createOpenAiCompatibleAdapter(endpoint),
    model,
    endpoint,
    ...(configuredWindow === undefined ? {} : { configuredWindow }),
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
