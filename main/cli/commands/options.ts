import type { parseArgs, ParseArgsOptionsConfig } from 'node:util'
import type { ModelFlags } from '../model.js'
import { UsageError } from './command.js'

/**
 * The options of the command line, one set for every command (each reads the ones it uses), and
 * the parsing of the numbers they carry.
 */
export const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  home: { type: 'string' },
  port: { type: 'string', multiple: true },
  host: { type: 'string' },
  renderer: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  type: { type: 'string', multiple: true },
  turn: { type: 'string' },
  from: { type: 'string' },
  limit: { type: 'string' },
  project: { type: 'string' },
  session: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  'max-steps': { type: 'string' },
  json: { type: 'boolean' },
  scan: { type: 'boolean' },
  'trust-project-mcp': { type: 'boolean' },
  'allow-home': { type: 'boolean' },
  'code-mode': { type: 'boolean' },
  approval: { type: 'string' },
  at: { type: 'string' },
  focus: { type: 'string' },
  force: { type: 'boolean' },
  undo: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'context-window': { type: 'string' },
  'context-tokens': { type: 'string' },
} as const satisfies ParseArgsOptionsConfig

/** The parsed options, as `parseArgs` gives them for `OPTIONS`. */
export type OptionValues = ReturnType<
  typeof parseArgs<{
    args: string[]
    allowPositionals: true
    strict: true
    options: typeof OPTIONS
  }>
>['values']

export function parseCount(option: string, text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`${option} must be a whole number, not "${text}"`)
  }
  return value
}

export function parsePort(text: string | undefined): number {
  if (text === undefined) return 7420
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, not "${text}"`)
  }
  return port
}

/** `--base-url`, `--model` and `--api-key-env`, as the model resolution takes them. */
export function modelFlags(
  values: OptionValues,
): Pick<ModelFlags, 'baseUrl' | 'model' | 'apiKeyEnv'> {
  return {
    ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] }),
    ...(values.model === undefined ? {} : { model: values.model }),
    ...(values['api-key-env'] === undefined ? {} : { apiKeyEnv: values['api-key-env'] }),
  }
}
