import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

export const Endpoint = z
  .object({
    /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** The name of an environment variable holding the API key. Keys never live in this file. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
      .optional(),
    /** Seconds without a byte before a stream counts as stalled. */
    idleTimeoutSeconds: z.number().positive().max(3600).optional(),
    models: z
      .record(
        z.string(),
        z.object({ contextWindow: z.number().int().positive().optional() }).strict(),
      )
      .optional(),
  })
  .strict()

export const Config = z
  .object({
    endpoints: z.record(z.string().min(1), Endpoint).default({}),
    defaultEndpoint: z.string().min(1).optional(),
    defaultModel: z.string().min(1).optional(),
    approval: z.enum(['ask', 'auto-edit', 'full-auto']).default('ask'),
    limits: z
      .object({
        maxSteps: z.number().int().positive().max(1000).optional(),
        maxWallSeconds: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
  })
  .strict()
export type Config = z.infer<typeof Config>

export const CONFIG_FILE = 'config.json'

/**
 * Reads `<home>/config.json`. A missing file means defaults; a file that is not JSON or does not
 * match the schema is an error naming the file, the failing path and what is expected, never
 * silently ignored.
 */
export function loadConfig(home: string): Config {
  const path = join(home, CONFIG_FILE)
  if (!existsSync(path)) return Config.parse({})
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
  return parsed.data
}
