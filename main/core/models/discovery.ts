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
  | {
      readonly ok: true
      readonly kind: EndpointKind
      readonly models: readonly ModelInfo[]
      /** The server's version or build, where it says (Ollama, vLLM, llama.cpp's build). */
      readonly serverVersion?: string
    }
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
  const facts = await serverFacts(kind, endpoint, root, entries, timeoutMs)
  const models = entries.map((entry): ModelInfo => {
    const id = entry['id'] as string
    const window = facts.windows.get(id) ?? windowFromListEntry(entry)
    if (window === undefined) return { id }
    return {
      id,
      contextWindow: window.tokens,
      contextSource: window.source,
      ...(window.trained === undefined || window.trained === window.tokens
        ? {}
        : { trainedContext: window.trained }),
    }
  })
  return {
    ok: true,
    kind,
    models,
    ...(facts.version === undefined ? {} : { serverVersion: facts.version }),
  }
}

interface Window {
  readonly tokens: number
  readonly source: NonNullable<ModelInfo['contextSource']>
  readonly trained?: number
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

/** The server's version and each model's window, from the server-specific endpoints. */
async function serverFacts(
  kind: EndpointKind,
  endpoint: EndpointConfig,
  root: string,
  entries: readonly Record<string, unknown>[],
  timeoutMs: number,
): Promise<{ windows: Map<string, Window>; version?: string }> {
  const windows = new Map<string, Window>()
  switch (kind) {
    case 'unknown':
      // In the list already, or not known.
      return { windows }
    case 'vllm': {
      // vLLM runs exactly `max_model_len`.
      for (const entry of entries) {
        const size = positiveInt(entry['max_model_len'])
        if (size !== undefined)
          windows.set(entry['id'] as string, { tokens: size, source: 'server' })
      }
      return { windows, ...versionOf(await getJson(endpoint, `${root}/version`, timeoutMs)) }
    }
    case 'llama.cpp': {
      // The context a slot runs (-c shared among the slots), not what the model was trained on.
      const props = await getJson(endpoint, `${root}/props`, timeoutMs)
      const value = props.ok && isRecord(props.value) ? props.value : {}
      const settings = value['default_generation_settings']
      const nCtx = isRecord(settings) ? positiveInt(settings['n_ctx']) : undefined
      for (const entry of entries) {
        const meta = isRecord(entry['meta']) ? entry['meta'] : {}
        const trained = positiveInt(meta['n_ctx_train'])
        const size = nCtx ?? positiveInt(meta['n_ctx'])
        if (size === undefined) continue
        windows.set(entry['id'] as string, {
          tokens: size,
          source: 'server',
          ...(trained === undefined ? {} : { trained }),
        })
      }
      const build = value['build_info']
      return { windows, ...(typeof build === 'string' ? { version: build } : {}) }
    }
    case 'lm-studio': {
      const native = await getJson(endpoint, `${root}/api/v0/models`, timeoutMs)
      const data = native.ok && isRecord(native.value) ? native.value['data'] : undefined
      for (const model of Array.isArray(data) ? data.filter(isRecord) : []) {
        const id = model['id']
        if (typeof id !== 'string') continue
        const loaded = positiveInt(model['loaded_context_length'])
        const max = positiveInt(model['max_context_length'])
        // A model not loaded yet gets LM Studio's default length when it loads, not its maximum.
        if (loaded !== undefined) {
          windows.set(id, {
            tokens: loaded,
            source: 'server',
            ...(max === undefined ? {} : { trained: max }),
          })
        } else if (max !== undefined) {
          windows.set(id, { tokens: max, source: 'advertised' })
        }
      }
      return { windows }
    }
    case 'ollama': {
      const facts = await ollamaFacts(endpoint, root, timeoutMs)
      await Promise.all(
        entries.map(async (entry) => {
          const id = entry['id'] as string
          const window = await ollamaWindow(endpoint, root, id, facts, timeoutMs)
          if (window !== undefined) windows.set(id, window)
        }),
      )
      return { windows, ...(facts.version === undefined ? {} : { version: facts.version }) }
    }
  }
}

/** Ollama's num_ctx default: 2048 before 0.6.7, 4096 since (newer builds may give more by VRAM). */
function ollamaDefaultWindow(version: string | undefined): number {
  const [major = 0, minor = 0, patch = 0] = (version ?? '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number(part) || 0)
  const isOld = major === 0 && (minor < 6 || (minor === 6 && patch < 7))
  return version !== undefined && isOld ? 2048 : 4096
}

interface OllamaFacts {
  readonly version?: string
  /** Running models and the context each was loaded with (`/api/ps`; the field is 0.9.6+). */
  readonly loaded: ReadonlyMap<string, number | undefined>
}

async function ollamaFacts(
  endpoint: EndpointConfig,
  root: string,
  timeoutMs: number,
): Promise<OllamaFacts> {
  const [version, ps] = await Promise.all([
    getJson(endpoint, `${root}/api/version`, timeoutMs),
    getJson(endpoint, `${root}/api/ps`, timeoutMs),
  ])
  const loaded = new Map<string, number | undefined>()
  const running = ps.ok && isRecord(ps.value) ? ps.value['models'] : undefined
  for (const model of Array.isArray(running) ? running.filter(isRecord) : []) {
    const name = typeof model['model'] === 'string' ? model['model'] : model['name']
    if (typeof name === 'string') loaded.set(name, positiveInt(model['context_length']))
  }
  return { ...versionOf(version), loaded }
}

/**
 * The window Ollama runs a model with: the context of the loaded model (`/api/ps`), else the
 * Modelfile's `num_ctx` (`/api/show`), else the server's default for its version, which is far
 * below the trained `<arch>.context_length` that a listing would otherwise report.
 */
async function ollamaWindow(
  endpoint: EndpointConfig,
  root: string,
  model: string,
  facts: OllamaFacts,
  timeoutMs: number,
): Promise<Window | undefined> {
  const show = await getJson(endpoint, `${root}/api/show`, timeoutMs, { model })
  const value = show.ok && isRecord(show.value) ? show.value : {}
  const info = isRecord(value['model_info']) ? value['model_info'] : {}
  const arch = info['general.architecture']
  const trained = typeof arch === 'string' ? positiveInt(info[`${arch}.context_length`]) : undefined
  const withTrained = (window: Window): Window =>
    trained === undefined ? window : { ...window, trained }
  const running = facts.loaded.get(model)
  if (running !== undefined) return withTrained({ tokens: running, source: 'server' })
  const parameters = value['parameters']
  if (typeof parameters === 'string') {
    const size = positiveInt(Number(/^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1]))
    if (size !== undefined) return withTrained({ tokens: size, source: 'server' })
  }
  if (!show.ok && facts.version === undefined) return undefined
  return withTrained({ tokens: ollamaDefaultWindow(facts.version), source: 'default' })
}

function versionOf(answer: JsonAnswer): { version?: string } {
  const version = answer.ok && isRecord(answer.value) ? answer.value['version'] : undefined
  return typeof version === 'string' ? { version } : {}
}

/** Fields some servers put on the list entries themselves: maxima, not what runs. */
function windowFromListEntry(entry: Record<string, unknown>): Window | undefined {
  const meta = isRecord(entry['meta']) ? entry['meta'] : {}
  const tokens =
    positiveInt(entry['max_model_len']) ??
    positiveInt(entry['context_length']) ??
    positiveInt(entry['context_window']) ??
    positiveInt(meta['n_ctx_train'])
  return tokens === undefined ? undefined : { tokens, source: 'advertised' }
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
