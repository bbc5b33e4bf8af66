import { statSync } from 'node:fs'
import { resolve } from 'node:path'
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

/** A whole number of 0 or more, or a `UsageError` naming `option`. */
export function parseCount(option: string, text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`${option} must be a whole number, not "${text}"`)
  }
  return value
}

/**
 * The smallest `--context-window` taken: below it not even the system prompt and the tools'
 * descriptions fit, so every turn would end in compaction or an overflow. Small local models
 * start at 2048; 512 only refuses what is surely a typo (0, 1, 10).
 */
export const MIN_CONTEXT_WINDOW = 512

/** `--context-window N`: a whole number of at least `MIN_CONTEXT_WINDOW` tokens. */
export function parseContextWindow(text: string): number {
  const value = Number(text)
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < MIN_CONTEXT_WINDOW) {
    throw new UsageError(
      `--context-window must be a whole number of tokens, at least ${MIN_CONTEXT_WINDOW}, not "${text}"`,
    )
  }
  return value
}

/**
 * A folder named on the command line (`--project DIR`), resolved against the current folder.
 * Throws a `UsageError` in one sentence when it does not exist or is not a folder.
 */
export function parseFolder(option: string, text: string): string {
  const path = resolve(text)
  let info
  try {
    info = statSync(path, { throwIfNoEntry: false })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'an error'
    throw new UsageError(`${option}: cannot look at ${path} (${code})`)
  }
  if (info === undefined) throw new UsageError(`${option}: the folder ${path} does not exist`)
  if (info.isDirectory()) return path
  throw new UsageError(
    `${option}: ${path} is ${info.isFile() ? 'a file, not a folder' : 'not a folder'}`,
  )
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
