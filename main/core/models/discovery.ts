/**
 * Finds local model servers on their usual ports and lists their models with the context window
 * where the server reports it. Plain fetch rather than the `openai` client: the interesting
 * fields (`max_model_len`, `meta`) and endpoints (`/props`, `/api/show`, `/api/v0/models`) are
 * outside the OpenAI API. Never throws: failures are data, and an unreachable port is not listed.
 */
import {
  classifyError,
  describeEndpoint,
  errorFromStatus,
  extractServerMessage,
  isRecord,
  modelError,
} from './model-errors.js'
import type { EndpointConfig, ModelError, ModelInfo } from './types.js'

export type EndpointKind = 'ollama' | 'lm-studio' | 'llama.cpp' | 'vllm' | 'unknown'

export interface DiscoveredEndpoint {
  /** e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  readonly kind: EndpointKind
  readonly models: readonly ModelInfo[]
  /** Set when a server answered but refused to list its models (it wants an API key). */
  readonly error?: ModelError
}

export type ListModelsResult =
  | { readonly ok: true; readonly kind: EndpointKind; readonly models: readonly ModelInfo[] }
  | { readonly ok: false; readonly error: ModelError }

export interface DiscoverOptions {
  readonly hosts?: readonly string[]
  readonly ports?: readonly number[]
  /** For each request of a probe. */
  readonly timeoutMs?: number
}

export const DEFAULT_DISCOVERY_HOSTS: readonly string[] = ['127.0.0.1']
export const DEFAULT_DISCOVERY_PORTS: readonly number[] = [11434, 1234, 8080, 8000]
export const DEFAULT_DISCOVERY_TIMEOUT_MS = 800
/** For `listModels` on a configured endpoint, which may be remote. */
export const DEFAULT_LIST_TIMEOUT_MS = 10_000

const KIND_BY_PORT: Readonly<Record<number, EndpointKind>> = {
  11434: 'ollama',
  1234: 'lm-studio',
  8080: 'llama.cpp',
  8000: 'vllm',
}

/** Probes every host and port at once; resolves within about two timeouts. */
export async function discoverEndpoints(
  options: DiscoverOptions = {},
): Promise<DiscoveredEndpoint[]> {
  const hosts = options.hosts ?? DEFAULT_DISCOVERY_HOSTS
  const ports = options.ports ?? DEFAULT_DISCOVERY_PORTS
  const timeoutMs = options.timeoutMs ?? DEFAULT_DISCOVERY_TIMEOUT_MS
  const probes = hosts.flatMap((host) =>
    ports.map(async (port): Promise<DiscoveredEndpoint | undefined> => {
      const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`
      const result = await listModels({ baseUrl }, { timeoutMs })
      if (result.ok) return { baseUrl, kind: result.kind, models: result.models }
      if (result.error.code === 'AUTH_FAILED') {
        return { baseUrl, kind: KIND_BY_PORT[port] ?? 'unknown', models: [], error: result.error }
      }
      return undefined
    }),
  )
  const found = await Promise.all(probes)
  return found.filter((endpoint) => endpoint !== undefined)
}

/** `GET /models`, then the cheapest server-specific call that tells the context window. */
export async function listModels(
  endpoint: EndpointConfig,
  options: { readonly timeoutMs?: number } = {},
): Promise<ListModelsResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS
  const base = endpoint.baseUrl.replace(/\/+$/, '')
  const answer = await getJson(endpoint, `${base}/models`, timeoutMs)
  if (!answer.ok) return answer
  const list = answer.value
  if (!isRecord(list) || !Array.isArray(list['data'])) {
    return {
      ok: false,
      error: modelError('NOT_FOUND', `${base}/models is not an OpenAI-compatible model list`),
    }
  }
  const entries = list['data'].filter(isRecord).filter((m) => typeof m['id'] === 'string')
  const kind = guessKind(endpoint.baseUrl, list, entries)
  const root = base.replace(/\/v1$/, '')
  const windows = await contextWindows(kind, endpoint, root, entries, timeoutMs)
  const models = entries.map((entry): ModelInfo => {
    const id = entry['id'] as string
    const contextWindow = windows.get(id) ?? windowFromListEntry(entry)
    return contextWindow === undefined ? { id } : { id, contextWindow }
  })
  return { ok: true, kind, models }
}

function guessKind(
  baseUrl: string,
  list: Record<string, unknown>,
  entries: readonly Record<string, unknown>[],
): EndpointKind {
  const owners = new Set(entries.map((entry) => entry['owned_by']))
  if (owners.has('vllm') || entries.some((e) => typeof e['max_model_len'] === 'number'))
    return 'vllm'
  if (
    owners.has('llamacpp') ||
    entries.some((e) => isRecord(e['meta'])) ||
    Array.isArray(list['models'])
  ) {
    return 'llama.cpp'
  }
  if (owners.has('organization_owner')) return 'lm-studio'
  if (owners.has('library')) return 'ollama'
  return KIND_BY_PORT[portOf(baseUrl)] ?? 'unknown'
}

/** Context windows by model id, from the server-specific endpoint that has them. */
async function contextWindows(
  kind: EndpointKind,
  endpoint: EndpointConfig,
  root: string,
  entries: readonly Record<string, unknown>[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const windows = new Map<string, number>()
  switch (kind) {
    case 'vllm':
    case 'unknown':
      // In the list already (`max_model_len`), or not known.
      return windows
    case 'llama.cpp': {
      // The context the server was started with (-c), not just what the model was trained on.
      const props = await getJson(endpoint, `${root}/props`, timeoutMs)
      const settings =
        props.ok && isRecord(props.value) ? props.value['default_generation_settings'] : undefined
      const nCtx = isRecord(settings) ? positiveInt(settings['n_ctx']) : undefined
      if (nCtx !== undefined) for (const entry of entries) windows.set(entry['id'] as string, nCtx)
      return windows
    }
    case 'lm-studio': {
      const native = await getJson(endpoint, `${root}/api/v0/models`, timeoutMs)
      const data = native.ok && isRecord(native.value) ? native.value['data'] : undefined
      for (const model of Array.isArray(data) ? data.filter(isRecord) : []) {
        const size =
          positiveInt(model['loaded_context_length']) ?? positiveInt(model['max_context_length'])
        if (typeof model['id'] === 'string' && size !== undefined) windows.set(model['id'], size)
      }
      return windows
    }
    case 'ollama': {
      await Promise.all(
        entries.map(async (entry) => {
          const id = entry['id'] as string
          const show = await getJson(endpoint, `${root}/api/show`, timeoutMs, { model: id })
          const size = show.ok ? ollamaContextWindow(show.value) : undefined
          if (size !== undefined) windows.set(id, size)
        }),
      )
      return windows
    }
  }
}

/**
 * Ollama runs a model with `num_ctx` when its Modelfile sets one, else with a server default
 * that may be far below the model's trained `<arch>.context_length` (a known limit: see README).
 */
function ollamaContextWindow(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined
  const parameters = value['parameters']
  if (typeof parameters === 'string') {
    const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)
    if (match?.[1] !== undefined) return positiveInt(Number(match[1]))
  }
  const info = value['model_info']
  if (!isRecord(info)) return undefined
  const arch = info['general.architecture']
  return typeof arch === 'string' ? positiveInt(info[`${arch}.context_length`]) : undefined
}

/** Fields some servers put on the list entries themselves. */
function windowFromListEntry(entry: Record<string, unknown>): number | undefined {
  const meta = isRecord(entry['meta']) ? entry['meta'] : {}
  return (
    positiveInt(entry['max_model_len']) ??
    positiveInt(entry['context_length']) ??
    positiveInt(entry['context_window']) ??
    positiveInt(meta['n_ctx_train'])
  )
}

type JsonAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ModelError }

async function getJson(
  endpoint: EndpointConfig,
  url: string,
  timeoutMs: number,
  postBody?: unknown,
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...endpoint.headers }
  if (endpoint.apiKey !== undefined) headers['authorization'] = `Bearer ${endpoint.apiKey}`
  if (postBody !== undefined) headers['content-type'] = 'application/json'
  const context = {
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  }
  try {
    const response = await fetch(url, {
      method: postBody === undefined ? 'GET' : 'POST',
      headers,
      ...(postBody === undefined ? {} : { body: JSON.stringify(postBody) }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    if (!response.ok) {
      return {
        ok: false,
        error: errorFromStatus(
          response.status,
          extractServerMessage(text),
          context,
          response.headers,
        ),
      }
    }
    try {
      return { ok: true, value: JSON.parse(text) as unknown }
    } catch {
      return {
        ok: false,
        error: modelError('MALFORMED_CHUNK', `${describeEndpoint(url)} did not answer JSON`),
      }
    }
  } catch (error) {
    if (isRecord(error) && error['name'] === 'TimeoutError') {
      return {
        ok: false,
        error: modelError(
          'STALLED',
          `${describeEndpoint(url)} did not answer within ${timeoutMs} ms`,
        ),
      }
    }
    return { ok: false, error: classifyError(error, context) }
  }
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined
}

function portOf(baseUrl: string): number {
  try {
    const url = new URL(baseUrl)
    return Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  } catch {
    return 0
  }
}
