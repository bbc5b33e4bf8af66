/**
 * Which endpoint, key and model a session talks to: the rules the Host and the CLI share, so
 * that `bridle run` and the app pick the same thing from the same config.json. Pure except for
 * reading the credential store; no network here (listing models is the caller's business).
 */
import { z } from 'zod'
import type { EndpointInfo } from '../../../../protocol/contract.js'
import type { Config } from '../settings/config.js'
import type { CredentialStore } from '../settings/credentials.js'
import type { ProfileOverride } from '../../models/profile.js'
import type { EndpointConfig, ModelInfo } from '../../models/types.js'

/** The id of the endpoint given on the command line (`bridle serve --base-url`). */
export const OVERRIDE_ENDPOINT_ID = 'cli'

/** `--base-url URL [--model M] [--api-key-env VAR] [--context-window N]` as an endpoint. */
export interface ModelOverride {
  readonly baseUrl: string
  readonly model?: string
  readonly apiKeyEnv?: string
  readonly contextWindow?: number
}

const ModelOverrideSchema = z.object({
  baseUrl: z.url({
    protocol: /^https?$/,
    error: 'must be an http(s) URL, e.g. http://127.0.0.1:11434/v1',
  }),
  model: z.string().min(1).optional(),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable')
    .optional(),
  contextWindow: z.number().int().positive().optional(),
})

/** Throws, at start, naming the flag, when the override cannot work. */
export function checkModelOverride(override: ModelOverride): void {
  const parsed = ModelOverrideSchema.safeParse(override)
  if (parsed.success) return
  const flags: Record<string, string> = {
    baseUrl: '--base-url',
    model: '--model',
    apiKeyEnv: '--api-key-env',
    contextWindow: '--context-window',
  }
  const issue = parsed.error.issues[0]
  const field = String(issue?.path[0] ?? '')
  throw new Error(`${flags[field] ?? field}: ${issue?.message ?? 'invalid'}`)
}

/** An endpoint of config.json, or the override, in one shape. */
export interface EndpointEntry {
  readonly id: string
  readonly baseUrl: string
  readonly apiKeyEnv?: string
  readonly idleTimeoutSeconds?: number
  /** config.json's overrides of what Bridle detects about this server, and per model. */
  readonly profile?: ProfileOverride
  readonly models?: Readonly<
    Record<string, { readonly contextWindow?: number; readonly profile?: ProfileOverride }>
  >
  /** Set for the command line's endpoint: its model and window, and no stored key. */
  readonly override?: ModelOverride
}

/** The override first (it shadows a configured endpoint named `cli`), then config.json's. */
export function endpointEntries(config: Config, override?: ModelOverride): EndpointEntry[] {
  const entries: EndpointEntry[] = []
  if (override !== undefined) {
    entries.push({
      id: OVERRIDE_ENDPOINT_ID,
      baseUrl: override.baseUrl,
      ...(override.apiKeyEnv === undefined ? {} : { apiKeyEnv: override.apiKeyEnv }),
      override,
    })
  }
  for (const [id, endpoint] of Object.entries(config.endpoints)) {
    if (override !== undefined && id === OVERRIDE_ENDPOINT_ID) continue
    entries.push({ id, ...endpoint })
  }
  return entries
}

/** The override when there is one, else config's `defaultEndpoint`, else the only endpoint. */
export function defaultEndpointId(
  config: Config,
  entries: readonly EndpointEntry[],
): string | undefined {
  if (entries.some((entry) => entry.override !== undefined)) return OVERRIDE_ENDPOINT_ID
  if (config.defaultEndpoint !== undefined) return config.defaultEndpoint
  return entries.length === 1 ? entries[0]?.id : undefined
}

export type EndpointPick =
  | { readonly ok: true; readonly entry: EndpointEntry }
  | {
      readonly ok: false
      /** `none`: no endpoint at all; `ambiguous`: several and no default; `unknown`: `id` is not one. */
      readonly problem: 'none' | 'ambiguous' | 'unknown'
      readonly id?: string
      readonly known: readonly string[]
    }

/** `requested`, else the default; says why when neither names an endpoint. */
export function pickEndpoint(
  entries: readonly EndpointEntry[],
  defaultId: string | undefined,
  requested?: string,
): EndpointPick {
  const known = entries.map((entry) => entry.id)
  const id = requested ?? defaultId
  if (id === undefined)
    return { ok: false, problem: entries.length === 0 ? 'none' : 'ambiguous', known }
  const entry = entries.find((candidate) => candidate.id === id)
  return entry === undefined ? { ok: false, problem: 'unknown', id, known } : { ok: true, entry }
}

/**
 * The model to use without asking the server: the override's, else `defaultModel` when this is
 * the default endpoint (or config names none). Another endpoint's server may not have that
 * model; the caller then takes `defaultModel` only if the server lists it.
 */
export function presetModel(entry: EndpointEntry, config: Config): string | undefined {
  if (entry.override !== undefined) return entry.override.model
  const defaultEndpoint = config.defaultEndpoint
  return defaultEndpoint === undefined || defaultEndpoint === entry.id
    ? config.defaultModel
    : undefined
}

/** From a server's list: `preferred` when it is there, else the first model. */
export function modelFromListing(
  models: readonly ModelInfo[],
  preferred: string | undefined,
): string | undefined {
  if (preferred !== undefined && models.some((model) => model.id === preferred)) return preferred
  return models[0]?.id
}

/** The window config.json (or `--context-window`) gives this model on this endpoint. */
export function configuredWindow(entry: EndpointEntry, model: string): number | undefined {
  if (entry.override !== undefined) return entry.override.contextWindow
  return entry.models?.[model]?.contextWindow
}

/** `https://api.example.com`: what a stored key is bound to. */
export function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin
  } catch {
    return baseUrl
  }
}

export type ApiKeyResolution =
  | { readonly source: 'stored' | 'env'; readonly value: string }
  | { readonly source: 'none' }
  /** A key is expected but cannot be had; `message` says what to do (and never holds a key). */
  | { readonly source: 'problem'; readonly message: string }

/**
 * The endpoint's key: the stored one (when it was set for this endpoint's origin), else the
 * environment variable named by `apiKeyEnv`. The override never uses stored keys: its server
 * comes from a flag and may be anyone's.
 */
export function resolveApiKey(
  entry: EndpointEntry,
  credentials: CredentialStore | undefined,
  env: NodeJS.ProcessEnv,
): ApiKeyResolution {
  const stored =
    entry.override === undefined && credentials !== undefined
      ? credentials.reveal(entry.id)
      : undefined
  const fromEnv = entry.apiKeyEnv === undefined ? undefined : env[entry.apiKeyEnv]
  const isSameOrigin =
    stored !== undefined && stored.state !== 'absent' && stored.origin === originOf(entry.baseUrl)
  if (stored?.state === 'ready' && isSameOrigin) return { source: 'stored', value: stored.value }
  if (fromEnv !== undefined && fromEnv !== '') return { source: 'env', value: fromEnv }
  if (stored !== undefined && stored.state !== 'absent') {
    return {
      source: 'problem',
      message:
        isSameOrigin && stored.state === 'unreadable'
          ? `${stored.reason}: set the key again in Settings`
          : `the stored API key of endpoint "${entry.id}" was set for ${stored.origin}, but the endpoint now points to ${originOf(entry.baseUrl)}: set the key again in Settings`,
    }
  }
  if (entry.apiKeyEnv !== undefined) {
    const whose = entry.override === undefined ? `of endpoint "${entry.id}"` : 'for --base-url'
    const remedy = entry.override === undefined ? ', or store a key in Settings' : ''
    return {
      source: 'problem',
      message: `the environment variable ${entry.apiKeyEnv} (the API key ${whose}) is not set: set it and start Bridle again${remedy}`,
    }
  }
  return { source: 'none' }
}

/** How the settings show the key: never the key, only whether there is one and where. */
export function keyStateOf(
  entry: EndpointEntry,
  credentials: CredentialStore,
  env: NodeJS.ProcessEnv,
): EndpointInfo['key'] {
  if (entry.override === undefined && credentials.originOf(entry.id) === originOf(entry.baseUrl)) {
    return 'stored'
  }
  if (entry.apiKeyEnv === undefined) return 'none'
  const value = env[entry.apiKeyEnv]
  return value !== undefined && value !== '' ? 'env' : 'env-missing'
}

/** What the adapter and the model listing need; the key only when there is one. */
export function endpointConfigOf(entry: EndpointEntry, apiKey: string | undefined): EndpointConfig {
  return {
    baseUrl: entry.baseUrl,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(entry.idleTimeoutSeconds === undefined
      ? {}
      : { idleTimeoutMs: entry.idleTimeoutSeconds * 1000 }),
  }
}
