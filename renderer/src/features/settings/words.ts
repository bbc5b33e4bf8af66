/**
 * The words the settings and first-run screens show for the contract's values: key states, model
 * facts and server kinds. Pure, so tests can pin them without a DOM.
 */
import type { EndpointInfo, ModelInfo } from '../../../../preload/contract'
import type { ApprovalMode } from './config-edit'

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

export function contextWindowText(model: ModelInfo): string {
  return model.contextWindow === undefined
    ? 'unknown'
    : `${model.contextWindow.toLocaleString('en-US')} tokens`
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
    help: 'Edits and commands run without asking; only rules marked deny stop a call.',
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
