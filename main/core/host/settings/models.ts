/**
 * The model side of the settings: which endpoint and model a session talks to
 * (`resolveModel`), and the methods that ask a server (`endpoint/test`, `model/list`,
 * `endpoint/discover`). A dead endpoint is an answer with a message, never a crash.
 */
import type { DiscoveredServer, ModelInfo } from '../../../../protocol/contract.js'
import { discoverEndpoints, listModels } from '../../models/discovery.js'
import type { DiscoveredEndpoint, ListModelsResult } from '../../models/discovery.js'
import type { EndpointConfig, ModelInfo as CoreModelInfo } from '../../models/types.js'
import type { Config } from './config.js'
import { describeListFailure, describeListSuccess } from '../endpoints/check.js'
import {
  configuredWindow,
  defaultEndpointId,
  endpointConfigOf,
  endpointEntries,
  modelFromListing,
  pickEndpoint,
  presetModel,
  resolveApiKey,
} from '../endpoints/resolve.js'
import type { EndpointEntry, EndpointPick } from '../endpoints/resolve.js'
import type { ProbeReport } from '../../../../protocol/probe-report.js'
import { HostError } from '../host.js'
import { probeEndpointModel } from '../endpoints/probe-card.js'
import { connectModel } from '../endpoints/connection.js'
import type { ModelConnection } from '../endpoints/connection.js'
import { ollamaToolSupport } from '../endpoints/catalog.js'
import type { ModelChoice } from '../services.js'
import type { SettingsParts } from './service.js'

/** `endpoint/test` waits this long for each request of the listing. */
export const ENDPOINT_TEST_TIMEOUT_MS = 5_000

export const NO_ENDPOINT_MESSAGE =
  'no endpoint configured: add one in Settings or run a local server such as Ollama (ollama serve)'

export async function discoverServers(): Promise<{ servers: DiscoveredServer[] }> {
  return { servers: (await discoverEndpoints()).map(toDiscoveredServer) }
}

/** The endpoint `requested` names (else the default), or NOT_FOUND saying what to configure. */
export function endpointFor(parts: SettingsParts, requested: string | undefined): EndpointEntry {
  const config = parts.config.current()
  const entries = endpointEntries(config, parts.opts.modelOverride)
  const pick = pickEndpoint(entries, defaultEndpointId(config, entries), requested)
  if (pick.ok) return pick.entry
  throw new HostError('NOT_FOUND', pickMessage(pick, requested === undefined))
}

function pickMessage(pick: Extract<EndpointPick, { ok: false }>, isDefault: boolean): string {
  switch (pick.problem) {
    case 'none':
      return NO_ENDPOINT_MESSAGE
    case 'ambiguous':
      return `several endpoints (${pick.known.join(', ')}) and no default: choose one, or set the default endpoint in Settings`
    case 'unknown': {
      const known =
        pick.known.length === 0
          ? 'there are none yet'
          : `the endpoints are: ${pick.known.join(', ')}`
      return isDefault
        ? `the default endpoint "${pick.id ?? ''}" is not configured (${known}): fix the default endpoint in Settings`
        : `no endpoint "${pick.id ?? ''}" (${known}): add it in Settings`
    }
  }
}

/** The adapter's endpoint with its key; a key that cannot be had fails with what to do. */
function connectionOf(parts: SettingsParts, entry: EndpointEntry): EndpointConfig {
  const key = resolveApiKey(entry, parts.credentials, parts.opts.env)
  if (key.source === 'problem') throw new HostError('ENDPOINT_FAILED', key.message)
  return endpointConfigOf(entry, key.source === 'none' ? undefined : key.value)
}

const cacheKeyOf = (entry: EndpointEntry): string => `${entry.id}\n${entry.baseUrl}`

export async function resolveModel(
  parts: SettingsParts,
  ref: { readonly endpointId?: string; readonly model?: string },
): Promise<ModelChoice> {
  const config = parts.config.current()
  const entry = endpointFor(parts, ref.endpointId)
  const endpoint = connectionOf(parts, entry)
  const listing = await parts.catalog.list(cacheKeyOf(entry), endpoint)
  const model = ref.model ?? presetModel(entry, config) ?? chooseListed(entry, listing, config)
  let connection: ModelConnection
  try {
    connection = connectModel({ entry, endpoint, model, listing, capabilities: parts.capabilities })
  } catch (error) {
    throw new HostError('ENDPOINT_FAILED', error instanceof Error ? error.message : String(error), {
      cause: error,
    })
  }
  return {
    ...connection,
    endpointId: entry.id,
    baseUrl: entry.baseUrl,
    ...(listing.ok ? {} : { isProvisional: true }),
  }
}

/** No model named anywhere: the server's (`defaultModel` if it has it, else its first). */
function chooseListed(entry: EndpointEntry, listing: ListModelsResult, config: Config): string {
  if (!listing.ok) {
    const why = describeListFailure(listing.error, {
      baseUrl: entry.baseUrl,
      keySent: false,
      isSaved: entry.override === undefined,
      timeoutMs: ENDPOINT_TEST_TIMEOUT_MS,
    })
    throw new HostError(
      'ENDPOINT_FAILED',
      `cannot choose a model for endpoint "${entry.id}": ${why}; or set a default model in Settings`,
    )
  }
  const model = modelFromListing(listing.models, config.defaultModel)
  if (model === undefined) {
    throw new HostError(
      'NOT_FOUND',
      `endpoint "${entry.id}" lists no models: load or pull one (e.g. ollama pull qwen3:8b), or set a default model in Settings`,
    )
  }
  return model
}

/**
 * Lists the models of a saved endpoint (`endpointId`, else the default) or of a URL being tried
 * out (`baseUrl`, sent without any key). A dead or refusing endpoint is an answer, not a throw.
 */
export async function testEndpoint(
  parts: SettingsParts,
  params: { readonly endpointId?: string; readonly baseUrl?: string; readonly apiKey?: string },
): Promise<{ ok: boolean; latencyMs: number; models: ModelInfo[]; message: string }> {
  const target = testTarget(parts, params)
  if ('problem' in target) return { ok: false, latencyMs: 0, models: [], message: target.problem }
  const { endpoint, isSaved } = target
  const started = performance.now()
  const listing = await listModels(endpoint, { timeoutMs: ENDPOINT_TEST_TIMEOUT_MS })
  const latencyMs = Math.round(performance.now() - started)
  if (!listing.ok) {
    const message = describeListFailure(listing.error, {
      baseUrl: endpoint.baseUrl,
      keySent: endpoint.apiKey !== undefined,
      isSaved,
      timeoutMs: ENDPOINT_TEST_TIMEOUT_MS,
    })
    return { ok: false, latencyMs, models: [], message }
  }
  const models = listing.models.map(toModelInfo)
  return {
    ok: true,
    latencyMs,
    models,
    message: describeListSuccess(endpoint.baseUrl, models.length, latencyMs),
  }
}

type TestTarget =
  { readonly endpoint: EndpointConfig; readonly isSaved: boolean } | { readonly problem: string }

function testTarget(
  parts: SettingsParts,
  params: { readonly endpointId?: string; readonly baseUrl?: string; readonly apiKey?: string },
): TestTarget {
  if (params.baseUrl !== undefined) {
    const endpoint = { baseUrl: params.baseUrl, apiKey: params.apiKey }
    return { endpoint, isSaved: false }
  }
  const entry = endpointFor(parts, params.endpointId)
  try {
    return { endpoint: connectionOf(parts, entry), isSaved: entry.override === undefined }
  } catch (error) {
    if (error instanceof HostError && error.code === 'ENDPOINT_FAILED')
      return { problem: error.message }
    throw error
  }
}

/** The models with their windows (the server's, else config's) and tool support where known. */
export async function listEndpointModels(
  parts: SettingsParts,
  endpointId: string,
): Promise<{ models: ModelInfo[] }> {
  const entry = endpointFor(parts, endpointId)
  const endpoint = connectionOf(parts, entry)
  const listing = await parts.catalog.list(cacheKeyOf(entry), endpoint, { fresh: true })
  if (!listing.ok) {
    const message = describeListFailure(listing.error, {
      baseUrl: entry.baseUrl,
      keySent: endpoint.apiKey !== undefined,
      isSaved: entry.override === undefined,
      timeoutMs: ENDPOINT_TEST_TIMEOUT_MS,
    })
    throw new HostError('ENDPOINT_FAILED', message)
  }
  const tools =
    listing.kind === 'ollama'
      ? await ollamaToolSupport(
          endpoint,
          listing.models.map((m) => m.id),
          ENDPOINT_TEST_TIMEOUT_MS,
        )
      : new Map<string, boolean>()
  const models = listing.models.map((model): ModelInfo => {
    const configured = configuredWindow(entry, model.id)
    const supportsTools = tools.get(model.id)
    const probe = parts.capabilities.get(entry.baseUrl, model.id, listing.serverVersion)?.probe
    // A window set in config.json is the one Bridle plans for (and, on Ollama, asks for).
    const window =
      configured !== undefined
        ? { contextWindow: configured, contextSource: 'configured' as const }
        : model.contextWindow === undefined
          ? {}
          : {
              contextWindow: model.contextWindow,
              ...(model.contextSource === undefined ? {} : { contextSource: model.contextSource }),
            }
    return {
      id: model.id,
      ...window,
      ...(model.trainedContext === undefined ? {} : { trainedContext: model.trainedContext }),
      ...(supportsTools === undefined ? {} : { supportsTools }),
      ...(probe === undefined ? {} : { probe }),
    }
  })
  return { models }
}

/** A listed model for the contract: its window with where that comes from, and what it was trained for. */
function toModelInfo(model: CoreModelInfo): ModelInfo {
  return {
    id: model.id,
    ...(model.contextWindow === undefined ? {} : { contextWindow: model.contextWindow }),
    ...(model.contextSource === undefined ? {} : { contextSource: model.contextSource }),
    ...(model.trainedContext === undefined ? {} : { trainedContext: model.trainedContext }),
  }
}

function toDiscoveredServer(found: DiscoveredEndpoint): DiscoveredServer {
  return {
    kind: found.kind === 'unknown' ? 'openai-compatible' : found.kind,
    baseUrl: found.baseUrl,
    models: found.models.map(toModelInfo),
  }
}

/**
 * `model/probe`: tests the model on the endpoint with a few real requests and keeps the report;
 * agents built before it are rebuilt at their next turn. A server that cannot be reached fails
 * with ENDPOINT_FAILED saying what to do; every other failure is part of the report.
 */
export async function probeModelOf(
  parts: SettingsParts,
  params: { readonly endpointId: string; readonly model: string; readonly contextTokens?: number },
): Promise<{ report: ProbeReport }> {
  const entry = endpointFor(parts, params.endpointId)
  const endpoint = connectionOf(parts, entry)
  const listing = await parts.catalog.list(cacheKeyOf(entry), endpoint, { fresh: true })
  if (!listing.ok && listing.error.code === 'ENDPOINT_UNREACHABLE') {
    throw new HostError(
      'ENDPOINT_FAILED',
      describeListFailure(listing.error, {
        baseUrl: entry.baseUrl,
        keySent: endpoint.apiKey !== undefined,
        isSaved: entry.override === undefined,
        timeoutMs: ENDPOINT_TEST_TIMEOUT_MS,
      }),
    )
  }
  const report = await probeEndpointModel({
    entry,
    endpoint,
    model: params.model,
    listing,
    capabilities: parts.capabilities,
    ...(params.contextTokens === undefined ? {} : { contextTokens: params.contextTokens }),
  })
  parts.probes.count++
  return { report }
}
