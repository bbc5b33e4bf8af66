/**
 * Turns a config that failed the schema into field errors the settings UI can show next to each
 * input: dotted paths (`endpoints.local.baseUrl`) and messages that say what to write instead.
 * Messages never repeat the value that failed: it may be a pasted API key.
 */
import type { z } from 'zod'
import type { FieldError } from '../../../../protocol/contract.js'
import type { Config } from '../../../../protocol/settings.js'

/** The contract's id limit: an endpoint id longer than this could not cross the bridge. */
const MAX_ENDPOINT_ID_CHARS = 200

/** Names under which people paste a secret; `apiKeyEnv` (a variable's name) is not one. */
const SECRET_FIELD = /api[-_]?key|secret|token|passw(or)?d|credential|authori[sz]ation|bearer/i
const ENV_NAME_FIELD = /env$/i

export const SECRET_FIELD_MESSAGE =
  "API keys never go in config.json: set the endpoint's key in Settings (kept in the OS keychain or a private file), or name an environment variable in apiKeyEnv"

/** Dotted, e.g. `endpoints.local.baseUrl`; array indexes as numbers (`approvalRules.0.tool`). */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.')
}

export function looksLikeSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !ENV_NAME_FIELD.test(name)
}

/** One field error per failing input; unknown keys each get their own, secrets a clear refusal. */
export function fieldErrorsOf(error: z.ZodError): FieldError[] {
  const fields: FieldError[] = []
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        fields.push({
          path: dottedPath([...issue.path, key]),
          message: looksLikeSecretField(key)
            ? SECRET_FIELD_MESSAGE
            : `unknown setting "${key}": remove it (or check its spelling)`,
        })
      }
      continue
    }
    fields.push({ path: dottedPath(issue.path), message: friendlyMessage(issue) })
  }
  return fields
}

/** Zod's words where they are clear enough; plainer ones for the fields people get wrong. */
function friendlyMessage(issue: z.core.$ZodIssue): string {
  const last = issue.path.at(-1)
  if (last === 'baseUrl') {
    return 'must be an http(s) URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1'
  }
  if (last === 'apiKeyEnv') {
    return 'must be the name of an environment variable (like OPENAI_API_KEY), not the key itself'
  }
  return issue.message
}

/**
 * What the schema cannot say: the default endpoint must be one of the endpoints, and an id must
 * fit the bridge's limit. Empty when all is well.
 */
export function referenceErrorsOf(config: Config): FieldError[] {
  const fields: FieldError[] = []
  const ids = Object.keys(config.endpoints)
  for (const id of ids) {
    if (id.length > MAX_ENDPOINT_ID_CHARS) {
      fields.push({
        path: dottedPath(['endpoints', id]),
        message: `an endpoint id may have at most ${MAX_ENDPOINT_ID_CHARS} characters`,
      })
    }
  }
  const missing = (id: string | undefined) => id !== undefined && !ids.includes(id)
  const why =
    ids.length === 0
      ? 'names an endpoint that does not exist: add the endpoint first'
      : `names an endpoint that does not exist; the endpoints are: ${ids.join(', ')}`
  if (missing(config.defaultEndpoint)) fields.push({ path: 'defaultEndpoint', message: why })
  for (const [projectDir, own] of Object.entries(config.projects)) {
    if (missing(own.endpoint)) {
      fields.push({ path: dottedPath(['projects', projectDir, 'endpoint']), message: why })
    }
  }
  return fields
}

/** `a: why; b: why` for a message, with a count of the rest beyond `max`. */
export function summarizeFields(fields: readonly FieldError[], max = 3): string {
  const shown = fields
    .slice(0, max)
    .map((field) => `${field.path === '' ? '(the top level)' : field.path}: ${field.message}`)
  const rest = fields.length - shown.length
  return rest > 0 ? `${shown.join('; ')} (and ${rest} more)` : shown.join('; ')
}
