/**
 * Puts validation errors next to the inputs they are about. The server's errors come as dotted
 * paths (`endpoints.local.baseUrl`, `compaction.threshold`, `approvalRules.0.tool`); each form
 * says which paths its inputs stand for, and what no input stands for is kept for a form-level
 * message, so an error is never dropped on the floor.
 *
 * The client-side checks here catch only the obvious (an address that is not a URL) before a
 * round trip; the server stays the authority and its errors land in the same places.
 */
import type { FieldError } from '../../../../protocol/contract'

/** Messages by a form's own input names. */
export type FieldMessages<K extends string> = Partial<Record<K, string>>

export interface PlacedErrors<K extends string> {
  readonly byField: FieldMessages<K>
  /** Errors no input of the form stands for (shown above the form's buttons). */
  readonly unplaced: readonly FieldError[]
}

/**
 * Assigns each error to the input whose path is the error's path or its longest prefix
 * (`compaction.prune.keepSteps` goes to the input of `compaction.prune`). Two errors for one
 * input are joined.
 */
export function placeFieldErrors<K extends string>(
  fields: readonly FieldError[],
  targets: Readonly<Record<string, K>>,
): PlacedErrors<K> {
  const byField: FieldMessages<K> = {}
  const unplaced: FieldError[] = []
  const paths = Object.keys(targets).sort((a, b) => b.length - a.length)
  for (const field of fields) {
    const path = paths.find((p) => field.path === p || field.path.startsWith(`${p}.`))
    const key = path === undefined ? undefined : targets[path]
    if (key === undefined) {
      unplaced.push(field)
      continue
    }
    const known = byField[key]
    byField[key] = known === undefined ? field.message : `${known}; ${field.message}`
  }
  return { byField, unplaced }
}

export type EndpointField = 'id' | 'baseUrl' | 'apiKeyEnv'

/** The paths of one endpoint's inputs; `endpoints.<id>` itself is about the id (too long). */
export function endpointTargets(id: string): Record<string, EndpointField> {
  const at = `endpoints.${id.trim()}`
  return { [at]: 'id', [`${at}.baseUrl`]: 'baseUrl', [`${at}.apiKeyEnv`]: 'apiKeyEnv' }
}

export type DefaultsField = 'endpointId' | 'model'

export const DEFAULTS_TARGETS: Readonly<Record<string, DefaultsField>> = {
  defaultEndpoint: 'endpointId',
  defaultModel: 'model',
}

export type CompactionField = 'threshold' | 'keepUserTurns' | 'prune'

export const COMPACTION_TARGETS: Readonly<Record<string, CompactionField>> = {
  'compaction.threshold': 'threshold',
  'compaction.keepUserTurns': 'keepUserTurns',
  'compaction.prune': 'prune',
}

/** One target per remembered rule, keyed by its position (`rule-0`). */
export function ruleTargets(count: number): Record<string, `rule-${number}`> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `approvalRules.${index}`,
      `rule-${index}` as const,
    ]),
  )
}

// ---- client-side checks ----------------------------------------------------------------------

export const BASE_URL_MESSAGE =
  'must be an http(s) URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1'
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/** Letters, digits, `-` and `_`: a dot would make error paths like `endpoints.a.b.baseUrl` ambiguous. */
const ENDPOINT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** The id of `bridle serve --base-url`'s endpoint, which shadows a configured one. */
export const OVERRIDE_ENDPOINT_ID = 'cli'

/** Undefined when the text is an http(s) URL; else what to write instead. */
export function checkBaseUrl(text: string): string | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return 'enter the server address, e.g. http://127.0.0.1:11434/v1'
  if (!URL.canParse(trimmed)) return BASE_URL_MESSAGE
  const { protocol, hostname } = new URL(trimmed)
  if ((protocol !== 'http:' && protocol !== 'https:') || hostname === '') return BASE_URL_MESSAGE
  return undefined
}

export interface EndpointCheckContext {
  /** The ids already configured. */
  readonly existingIds: readonly string[]
  /** A new endpoint (its id must be free); an edited one keeps its id. */
  readonly isNew: boolean
}

export function checkEndpointDraft(
  draft: { readonly id: string; readonly baseUrl: string; readonly apiKeyEnv: string },
  ctx: EndpointCheckContext,
): FieldMessages<EndpointField> {
  const errors: FieldMessages<EndpointField> = {}
  const id = draft.id.trim()
  if (ctx.isNew) {
    if (id === '') errors.id = 'give the endpoint a short name, e.g. local or openai'
    else if (!ENDPOINT_ID.test(id))
      errors.id = 'use letters, digits, - and _ (at most 64), starting with a letter or digit'
    else if (id === OVERRIDE_ENDPOINT_ID)
      errors.id = '"cli" is the endpoint of bridle serve --base-url; pick another name'
    else if (ctx.existingIds.includes(id)) errors.id = `an endpoint "${id}" exists already`
  }
  const url = checkBaseUrl(draft.baseUrl)
  if (url !== undefined) errors.baseUrl = url
  const env = draft.apiKeyEnv.trim()
  if (env !== '' && !ENV_NAME.test(env)) {
    errors.apiKeyEnv =
      'must be the name of an environment variable (like OPENAI_API_KEY), not the key itself'
  }
  return errors
}

export interface CompactionText {
  readonly threshold: string
  readonly keepUserTurns: string
}

/** Parses the compaction inputs, or says what is wrong with each. */
export function parseCompactionText(
  text: CompactionText,
):
  | { readonly ok: true; readonly threshold: number; readonly keepUserTurns: number }
  | { readonly ok: false; readonly errors: FieldMessages<CompactionField> } {
  const errors: FieldMessages<CompactionField> = {}
  const threshold = Number(text.threshold)
  if (
    text.threshold.trim() === '' ||
    !Number.isFinite(threshold) ||
    threshold < 0.1 ||
    threshold > 0.95
  ) {
    errors.threshold = 'must be a share of the window between 0.1 and 0.95 (e.g. 0.8)'
  }
  const keepUserTurns = Number(text.keepUserTurns)
  if (
    text.keepUserTurns.trim() === '' ||
    !Number.isInteger(keepUserTurns) ||
    keepUserTurns < 0 ||
    keepUserTurns > 50
  ) {
    errors.keepUserTurns = 'must be a whole number from 0 to 50'
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return { ok: true, threshold, keepUserTurns }
}

export function hasErrors<K extends string>(errors: FieldMessages<K>): boolean {
  return Object.values(errors).some((message) => message !== undefined)
}
