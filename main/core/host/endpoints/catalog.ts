/**
 * Model listings of endpoints, kept briefly so that resolving a model for every turn does not
 * query the server every time, plus what only `model/list` needs (tool support). Failures are
 * not kept: a server that was just started is seen at the next call.
 */
import { isRecord } from '../../models/model-errors.js'
import { listModels } from '../../models/discovery.js'
import type { ListModelsResult } from '../../models/discovery.js'
import type { EndpointConfig } from '../../models/types.js'

/** How long a successful listing stays fresh. */
export const DEFAULT_LISTING_TTL_MS = 30_000
/** Per request of a listing made while resolving a model (a turn waits for it). */
export const DEFAULT_LISTING_TIMEOUT_MS = 5_000

interface Cached {
  readonly at: number
  readonly result: Promise<ListModelsResult>
}

export class ModelCatalog {
  private readonly cache = new Map<string, Cached>()
  private readonly ttlMs: number
  private readonly timeoutMs: number
  private readonly now: () => number

  constructor(
    options: {
      readonly ttlMs?: number
      readonly timeoutMs?: number
      readonly now?: () => number
    } = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_LISTING_TTL_MS
    this.timeoutMs = options.timeoutMs ?? DEFAULT_LISTING_TIMEOUT_MS
    this.now = options.now ?? Date.now
  }

  /**
   * The endpoint's models, from the cache when fresh (and `fresh` is not asked for). Callers
   * asking at the same time share one request. Never rejects: failures are data.
   */
  list(
    cacheKey: string,
    endpoint: EndpointConfig,
    options: { readonly fresh?: boolean } = {},
  ): Promise<ListModelsResult> {
    const now = this.now()
    const hit = this.cache.get(cacheKey)
    if (options.fresh !== true && hit !== undefined && now - hit.at < this.ttlMs) return hit.result
    const result = listModels(endpoint, { timeoutMs: this.timeoutMs })
    this.cache.set(cacheKey, { at: now, result })
    const forget = () => {
      if (this.cache.get(cacheKey)?.result === result) this.cache.delete(cacheKey)
    }
    result.then((answer) => {
      if (!answer.ok) forget()
    }, forget)
    return result
  }

  /** After a settings or key change: the next listing asks the server again. */
  clear(): void {
    this.cache.clear()
  }
}

/**
 * Which of Ollama's models advertise tool calling (`capabilities` of `/api/show` holds
 * `tools`). A model missing from the map is unknown: an old Ollama without `capabilities`, or a
 * request that failed. Never throws.
 */
export async function ollamaToolSupport(
  endpoint: EndpointConfig,
  modelIds: readonly string[],
  timeoutMs: number,
): Promise<Map<string, boolean>> {
  const root = endpoint.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  }
  if (endpoint.apiKey !== undefined) headers['authorization'] = `Bearer ${endpoint.apiKey}`
  const support = new Map<string, boolean>()
  await Promise.all(
    modelIds.map(async (id) => {
      const capabilities = await showCapabilities(`${root}/api/show`, id, headers, timeoutMs)
      if (capabilities !== undefined) support.set(id, capabilities.includes('tools'))
    }),
  )
  return support
}

async function showCapabilities(
  url: string,
  model: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<string[] | undefined> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) return undefined
    const body: unknown = await response.json()
    const capabilities = isRecord(body) ? body['capabilities'] : undefined
    return Array.isArray(capabilities)
      ? capabilities.filter((c): c is string => typeof c === 'string')
      : undefined
  } catch {
    // Unreachable, slow or not JSON: tool support stays unknown, which the contract allows.
    return undefined
  }
}
