/**
 * Settings, endpoints, credentials and model resolution: config.json (through config.ts), keys
 * (through credentials.ts) and the endpoints' model listings (cached briefly). Every successful
 * change is announced as `settings/changed` with the same view `settings/get` returns, which
 * never holds a key.
 */
import { statSync } from 'node:fs'
import type { SettingsView } from '../../../../protocol/contract.js'
import {
  Config,
  ConfigFileError,
  configPath,
  loadConfig,
  replaceConfig,
  withoutUntouchedDefaults,
  updateConfig,
} from './config.js'
import { CapabilityStore } from '../endpoints/capabilities.js'
import { CredentialStore } from './credentials.js'
import { knownSecretValues } from './known-secrets.js'
import {
  checkModelOverride,
  defaultEndpointId,
  endpointEntries,
  keyStateOf,
  OVERRIDE_ENDPOINT_ID,
  originOf,
  presetModel,
} from '../endpoints/resolve.js'
import type { EndpointEntry, ModelOverride } from '../endpoints/resolve.js'
import { HostError } from '../host.js'
import { ModelCatalog } from '../endpoints/catalog.js'
import type {
  HandlerGroup,
  HostContext,
  SecretBox,
  SettingsMethods,
  SettingsService,
} from '../services.js'
import {
  discoverServers,
  listEndpointModels,
  probeModelOf,
  resolveModel,
  testEndpoint,
} from './models.js'
import { fieldErrorsOf, referenceErrorsOf, summarizeFields } from './validation.js'

export type { ModelOverride } from '../endpoints/resolve.js'

export interface SettingsOptions {
  readonly secretBox?: SecretBox
  readonly env: NodeJS.ProcessEnv
  /** `bridle serve --base-url ...`: an endpoint `cli`, the default while it is there. */
  readonly modelOverride?: ModelOverride
}

export { ENDPOINT_TEST_TIMEOUT_MS, NO_ENDPOINT_MESSAGE } from './models.js'

/** Settings, endpoints and credentials: the service the other parts use, and the handlers. */
export function createSettings(
  ctx: HostContext,
  opts: SettingsOptions,
): { service: SettingsService; handlers: HandlerGroup<SettingsMethods> } {
  if (opts.modelOverride !== undefined) checkModelOverride(opts.modelOverride)
  const parts: SettingsParts = {
    ctx,
    opts,
    config: configReader(ctx.home),
    credentials: new CredentialStore(ctx.home, opts.secretBox),
    catalog: new ModelCatalog(),
    capabilities: new CapabilityStore(ctx.home),
    probes: { count: 0 },
  }
  return {
    service: {
      current: () => parts.config.current(),
      defaults: (projectDir) => sessionDefaults(parts, projectDir),
      resolveModel: (ref) => resolveModel(parts, ref),
      revision: () => parts.probes.count,
      probeReport: (baseUrl, model) => parts.capabilities.get(baseUrl, model)?.probe,
      rememberApprovalRule: (rule) => rememberApprovalRule(parts, rule),
      knownSecrets: () =>
        knownSecretValues(
          parts.config.current(),
          parts.credentials,
          opts.env,
          opts.modelOverride?.apiKeyEnv === undefined ? [] : [opts.modelOverride.apiKeyEnv],
        ),
    },
    handlers: settingsHandlers(parts),
  }
}

/** What the functions below share; built once per Host. */
export interface SettingsParts {
  readonly ctx: HostContext
  readonly opts: SettingsOptions
  readonly config: ConfigReader
  readonly credentials: CredentialStore
  readonly catalog: ModelCatalog
  /** Probe reports and what servers taught by refusing (capabilities.json). */
  readonly capabilities: CapabilityStore
  /** Probes run since start: each may change how a model is talked to. */
  readonly probes: { count: number }
}

function settingsHandlers(parts: SettingsParts): HandlerGroup<SettingsMethods> {
  return {
    'settings/get': () => viewOf(parts),
    'settings/update': ({ config }) => updateSettings(parts, config),
    'endpoint/list': () => ({ endpoints: viewOf(parts).endpoints }),
    'endpoint/test': (params) => testEndpoint(parts, params),
    'endpoint/discover': () => discoverServers(),
    'model/list': ({ endpointId }) => listEndpointModels(parts, endpointId),
    'model/probe': (params) => probeModelOf(parts, params),
    'credential/set': ({ endpointId, value }) => {
      setCredential(parts, endpointId, value)
      return { endpointId, stored: true as const }
    },
    'credential/delete': ({ endpointId }) => {
      const deleted = parts.credentials.delete(endpointId)
      if (deleted) announce(parts)
      return { endpointId, deleted }
    },
  }
}

// ---- config.json ---------------------------------------------------------------------------

export interface ConfigReader {
  /** config.json with defaults, read again only when the file changed on disk. */
  current(): Config
  /** After our own write: the next `current` reads the file. */
  forget(): void
}

function configReader(home: string): ConfigReader {
  let cached: { readonly stamp: string; readonly config: Config } | undefined
  return {
    current() {
      const stamp = fileStamp(configPath(home))
      if (cached?.stamp === stamp) return cached.config
      const config = asSettingsError(() => loadConfig(home))
      cached = { stamp, config }
      return config
    },
    forget() {
      cached = undefined
    },
  }
}

/** Changes when the file is replaced (a new inode) or written in place. */
function fileStamp(path: string): string {
  try {
    const stat = statSync(path)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch {
    // Missing (or unreadable, which loadConfig will then report): defaults until it appears.
    return 'missing'
  }
}

/** A broken config.json, as the bridge reports it: INVALID_SETTINGS with the failing fields. */
function asSettingsError<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof ConfigFileError) {
      throw new HostError('INVALID_SETTINGS', error.message, { fields: error.fields, cause: error })
    }
    throw error
  }
}

function viewOf(parts: SettingsParts): SettingsView {
  const config = parts.config.current()
  const entries = endpointEntries(config, parts.opts.modelOverride)
  const defaultId = defaultEndpointId(config, entries)
  return {
    config,
    endpoints: entries.map((entry) => ({
      id: entry.id,
      baseUrl: entry.baseUrl,
      isDefault: entry.id === defaultId,
      key: keyStateOf(entry, parts.credentials, parts.opts.env),
      ...(entry.apiKeyEnv === undefined ? {} : { apiKeyEnv: entry.apiKeyEnv }),
    })),
    path: configPath(parts.ctx.home),
  }
}

/** After any change: listings may differ (another URL, another key), and clients hear of it. */
function announce(parts: SettingsParts): SettingsView {
  parts.config.forget()
  parts.catalog.clear()
  const view = viewOf(parts)
  parts.ctx.notify('settings/changed', view)
  return view
}

/**
 * Validates everything first and writes only a config that passes: what the user gave, not the
 * defaults-filled object, so a later default change still reaches them.
 */
function updateSettings(parts: SettingsParts, raw: Record<string, unknown>): SettingsView {
  const parsed = Config.safeParse(raw)
  const fields = parsed.success ? referenceErrorsOf(parsed.data) : fieldErrorsOf(parsed.error)
  if (!parsed.success || fields.length > 0) {
    throw new HostError('INVALID_SETTINGS', `settings not saved: ${summarizeFields(fields)}`, {
      fields,
    })
  }
  const before = endpointIdsNow(parts)
  replaceConfig(parts.ctx.home, withoutUntouchedDefaults(parts.ctx.home, raw))
  // A removed endpoint's stored key goes with it: no secret outlives what it was for.
  for (const id of before) {
    if (!Object.hasOwn(parsed.data.endpoints, id)) parts.credentials.delete(id)
  }
  return announce(parts)
}

/** The endpoints config.json names now; none when it cannot be read (it is being replaced). */
function endpointIdsNow(parts: SettingsParts): string[] {
  try {
    return Object.keys(parts.config.current().endpoints)
  } catch {
    return []
  }
}

function rememberApprovalRule(
  parts: SettingsParts,
  rule: Parameters<SettingsService['rememberApprovalRule']>[0],
): void {
  const entry = {
    tool: rule.tool,
    ...(rule.prefix === undefined ? {} : { prefix: rule.prefix }),
    ...(rule.pattern === undefined ? {} : { pattern: rule.pattern }),
    effect: rule.effect,
    project: rule.project,
  }
  const isKnown = parts.config
    .current()
    .approvalRules.some(
      (known) =>
        known.tool === entry.tool &&
        known.prefix === entry.prefix &&
        known.pattern === entry.pattern &&
        known.effect === entry.effect &&
        known.project === entry.project,
    )
  if (isKnown) return
  asSettingsError(() =>
    updateConfig(parts.ctx.home, (raw) => ({
      ...raw,
      approvalRules: [
        ...(Array.isArray(raw['approvalRules']) ? (raw['approvalRules'] as unknown[]) : []),
        entry,
      ],
    })),
  )
  announce(parts)
}

// ---- credentials ---------------------------------------------------------------------------

/** Bytes a key never holds; a pasted key with a line break would break the request header. */
const KEY_UNSAFE = /[\s\p{Cc}]/u

function setCredential(parts: SettingsParts, endpointId: string, value: string): void {
  const entry = configuredEntry(parts, endpointId)
  const key = value.trim()
  if (key === '' || KEY_UNSAFE.test(key)) {
    const message = 'the API key must not be empty or contain spaces or line breaks'
    throw new HostError('INVALID_PARAMS', message, { fields: [{ path: 'value', message }] })
  }
  parts.credentials.set(endpointId, key, originOf(entry.baseUrl))
  announce(parts)
}

/** A saved endpoint of config.json; a key is bound to its origin, so it must exist first. */
function configuredEntry(parts: SettingsParts, endpointId: string): EndpointEntry {
  if (parts.opts.modelOverride !== undefined && endpointId === OVERRIDE_ENDPOINT_ID) {
    throw new HostError(
      'UNSUPPORTED',
      'the "cli" endpoint comes from bridle serve --base-url; it takes its key from --api-key-env',
    )
  }
  const entry = endpointEntries(parts.config.current()).find((e) => e.id === endpointId)
  if (entry === undefined) {
    throw new HostError(
      'NOT_FOUND',
      `no endpoint "${endpointId}": save the endpoint in Settings first, then set its key`,
    )
  }
  return entry
}

/** See SettingsService.defaults: no network, only config and the override. */
function sessionDefaults(
  parts: SettingsParts,
  projectDir: string | undefined,
): { endpointId?: string; model?: string } {
  const config = parts.config.current()
  const entries = endpointEntries(config, parts.opts.modelOverride)
  const globalId = defaultEndpointId(config, entries)
  // The override of `bridle serve --base-url` is what that process was started for: it wins.
  const own =
    parts.opts.modelOverride === undefined && projectDir !== undefined
      ? config.projects[projectDir]
      : undefined
  const endpointId = own?.endpoint ?? globalId
  const entry = entries.find((candidate) => candidate.id === endpointId)
  // The project's model, else the global one when it is for this endpoint.
  const model =
    own?.model ?? (entry === undefined ? config.defaultModel : presetModel(entry, config))
  return {
    ...(endpointId === undefined ? {} : { endpointId }),
    ...(model === undefined ? {} : { model }),
  }
}
