/**
 * The words the settings and first-run screens show for the contract's values: key states, model
 * facts and server kinds. Pure, so tests can pin them without a DOM.
 */
import type { EndpointInfo, ModelInfo } from '../../../../protocol/contract'
import type { ApprovalMode, SandboxMode } from './config-edit'

/** What the user knows about an endpoint's key: never the key, only where it comes from. */
export function keyStateText(info: Pick<EndpointInfo, 'key' | 'apiKeyEnv'>): string {
  switch (info.key) {
    case 'none':
      return 'no key'
    case 'stored':
      return 'key stored'
    case 'env':
      return `key from $${info.apiKeyEnv ?? '?'}`
    case 'env-missing':
      return `$${info.apiKeyEnv ?? '?'} is not set`
  }
}

const tokens = (value: number) => value.toLocaleString('en-US')

/**
 * A model's window and where the number comes from: `8,192 (what the server runs)`,
 * `4,096 (Ollama's default; trained for 40,960)`. Only Ollama has a `default` (a server default
 * Bridle assumes, since the model list does not say what a model runs).
 */
export function contextWindowText(model: ModelInfo): string {
  if (model.contextWindow === undefined) return 'unknown'
  const source =
    model.contextSource === undefined ? undefined : CONTEXT_SOURCES[model.contextSource]
  const trained =
    model.trainedContext === undefined || model.trainedContext === model.contextWindow
      ? undefined
      : `trained for ${tokens(model.trainedContext)}`
  const why = [source, trained].filter((part) => part !== undefined).join('; ')
  return why === ''
    ? `${tokens(model.contextWindow)} tokens`
    : `${tokens(model.contextWindow)} (${why})`
}

const CONTEXT_SOURCES: Readonly<Record<NonNullable<ModelInfo['contextSource']>, string>> = {
  server: 'what the server runs',
  default: "Ollama's default",
  advertised: 'advertised: the server may run less',
  configured: 'set in config',
}

/**
 * Where a session's window comes from (`ModelProfileView.windowSource`), after the number:
 * `learned` is the one a server's silent cut taught.
 */
export function windowSourceText(
  source: string | undefined,
  serverKind: string,
): string | undefined {
  switch (source) {
    case undefined:
      return undefined
    case 'configured':
      return 'set in config'
    case 'server':
      return 'what the server runs'
    case 'default':
      return `${serverKind === 'ollama' ? "Ollama's" : "the server's"} default, assumed`
    case 'advertised':
      return 'advertised: the server may run less'
    case 'probed':
      return 'measured by the capability test'
    case 'learned':
      return 'learnt from a cut: the server dropped the start of a longer prompt'
    default:
      return source
  }
}

export function toolSupportText(model: ModelInfo): 'yes' | 'no' | 'unknown' {
  if (model.supportsTools === undefined) return 'unknown'
  return model.supportsTools ? 'yes' : 'no'
}

const KIND_NAMES: Readonly<Record<string, string>> = {
  ollama: 'Ollama',
  'lm-studio': 'LM Studio',
  'llama.cpp': 'llama.cpp',
  vllm: 'vLLM',
  'openai-compatible': 'OpenAI-compatible server',
}

export function serverKindName(kind: string): string {
  return KIND_NAMES[kind] ?? kind
}

/** The one-line explanations of the approval modes (see main/core/tools/approvals.ts). */
export const APPROVAL_MODES: readonly {
  readonly mode: ApprovalMode
  readonly label: string
  readonly help: string
}[] = [
  {
    mode: 'ask',
    label: 'Ask',
    help: 'Reads run freely; every file edit and command waits for your answer.',
  },
  {
    mode: 'auto-edit',
    label: 'Auto-edit',
    help: 'File edits in the project run without asking; commands still wait for your answer.',
  },
  {
    mode: 'full-auto',
    label: 'Full auto',
    help: 'Edits run without asking. Commands in the sandbox run without asking; without a sandbox (setting off, or none works here, as on macOS and Windows) only those Bridle can prove stay in the project do, and the rest wait for your answer. What needs your own approval (a protected path, a destructive command) is refused, as are rules marked deny.',
  },
]

/** The one-line explanations of the sandbox setting (see main/core/tools/builtin/bash-sandbox.ts). */
export const SANDBOX_MODES: readonly {
  readonly mode: SandboxMode
  readonly label: string
  readonly help: string
}[] = [
  {
    mode: 'auto',
    label: 'Auto',
    help: 'Commands run in a sandbox when one works here (Linux, with bubblewrap), else without one; the chat says which.',
  },
  {
    mode: 'required',
    label: 'Required',
    help: 'Commands run only in a sandbox; where none works, they are refused.',
  },
  {
    mode: 'off',
    label: 'Off',
    help: 'Commands never run in a sandbox: they have your account’s full rights.',
  },
]

/** `3 models: a, b, c` with the rest counted, for a server card. */
export function modelsSummary(models: readonly ModelInfo[], max = 3): string {
  if (models.length === 0) return 'no models listed yet'
  const shown = models.slice(0, max).map((model) => model.id)
  const rest = models.length - shown.length
  const count = `${models.length} model${models.length === 1 ? '' : 's'}`
  return `${count}: ${shown.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}`
}
