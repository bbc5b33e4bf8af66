import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Config } from '../../../preload/settings.js'
import { writeFileAtomic } from './files.js'

export { ApprovalRuleConfig, Config, Endpoint } from '../../../preload/settings.js'

export const CONFIG_FILE = 'config.json'

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
  const path = join(home, CONFIG_FILE)
  if (!existsSync(path)) return {}
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix or remove it`,
      { cause: error },
    )
  }
  const parsed = Config.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? issue.path.join('.') : '(the top level)'
    throw new Error(
      `${path}: ${where}: ${issue?.message ?? 'invalid'}; fix that entry or remove it`,
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
  const parsed = Config.parse(next)
  writeFileAtomic(join(home, CONFIG_FILE), [`${JSON.stringify(next, null, 2)}\n`])
  return parsed
}
