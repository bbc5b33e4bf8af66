import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FieldError } from '../../../../protocol/contract.js'
import { Config } from '../../../../protocol/settings.js'
import { writeFileAtomic } from '../files.js'
import { fieldErrorsOf, summarizeFields } from './validation.js'

export { ApprovalRuleConfig, Config, Endpoint } from '../../../../protocol/settings.js'

export const CONFIG_FILE = 'config.json'

/** `<home>/config.json`. */
export function configPath(home: string): string {
  return join(home, CONFIG_FILE)
}

/**
 * config.json cannot be used as it is. `fields` names each failing entry (dotted paths), so the
 * settings UI can point at them; the message names the file and the first of them.
 */
export class ConfigFileError extends Error {
  constructor(
    message: string,
    readonly fields: readonly FieldError[] = [],
    options?: { readonly cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ConfigFileError'
  }
}

/**
 * Reads `<home>/config.json`. A missing file means defaults; a file that is not JSON or does not
 * match the schema is an error naming the file, the failing path and what is expected, never
 * silently ignored.
 */
export function loadConfig(home: string): Config {
  return Config.parse(readRawConfig(home))
}

/** The file's JSON as written (defaults not filled in), validated, or `{}` when there is none. */
function readRawConfig(home: string): Record<string, unknown> {
  const path = configPath(home)
  if (!existsSync(path)) return {}
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new ConfigFileError(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix or remove it`,
      [],
      { cause: error },
    )
  }
  const parsed = Config.safeParse(raw)
  if (!parsed.success) {
    const fields = fieldErrorsOf(parsed.error)
    throw new ConfigFileError(
      `${path}: ${summarizeFields(fields, 1)}; fix that entry or remove it`,
      fields,
    )
  }
  return raw as Record<string, unknown>
}

/**
 * Changes config.json: reads what is written (so defaults are not frozen into the file), applies
 * `change`, validates the result and replaces the file atomically. Returns the new config.
 */
export function updateConfig(
  home: string,
  change: (raw: Record<string, unknown>) => Record<string, unknown>,
): Config {
  const next = change(structuredClone(readRawConfig(home)))
  return replaceConfig(home, next)
}

/**
 * Replaces config.json with `raw` as given (defaults not filled in), atomically, after checking
 * it against the schema: an invalid config throws and the file keeps its old content. Works
 * when the old file is broken, which is how the settings UI repairs one.
 */
export function replaceConfig(home: string, raw: Record<string, unknown>): Config {
  const parsed = Config.parse(raw)
  writeFileAtomic(configPath(home), [`${JSON.stringify(raw, null, 2)}\n`])
  return parsed
}

/**
 * `next` without the top-level settings the file did not have and that still hold their
 * defaults: a client that edits the whole defaults-filled config (the settings UI) and sends it
 * back does not freeze today's defaults into the file, so a later default still reaches the user.
 * A file that cannot be read keeps everything (the update is then its repair).
 */
export function withoutUntouchedDefaults(
  home: string,
  next: Record<string, unknown>,
): Record<string, unknown> {
  let current: Record<string, unknown>
  try {
    current = readRawConfig(home)
  } catch {
    return next
  }
  const defaults = Config.parse({}) as Record<string, unknown>
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(next)) {
    const isUntouchedDefault =
      !Object.hasOwn(current, key) &&
      Object.hasOwn(defaults, key) &&
      JSON.stringify(value) === JSON.stringify(defaults[key])
    if (!isUntouchedDefault) kept[key] = value
  }
  return kept
}
