import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from './files.js'

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

/** "Always allow `npm test`" (or never), for one project folder or, without `project`, for all. */
export const ApprovalRuleConfig = z
  .object({
    tool: z.string().min(1),
    prefix: z.string().min(1).optional(),
    effect: z.enum(['allow', 'deny']),
    project: z.string().min(1).optional(),
  })
  .strict()
export type ApprovalRuleConfig = z.infer<typeof ApprovalRuleConfig>

export const Config = z
  .object({
    endpoints: z.record(z.string().min(1), Endpoint).default({}),
    defaultEndpoint: z.string().min(1).optional(),
    defaultModel: z.string().min(1).optional(),
    approval: z.enum(['ask', 'auto-edit', 'full-auto']).default('ask'),
    approvalRules: z.array(ApprovalRuleConfig).default([]),
    compaction: z
      .object({
        /** Compact when a request would fill more than this share of the context window. */
        threshold: z.number().min(0.1).max(0.95).default(0.8),
        /** The last K user turns stay verbatim. */
        keepUserTurns: z.number().int().min(0).max(50).default(2),
        /** A cheaper model (on the same endpoint) to write summaries; default: the session's. */
        model: z.string().min(1).optional(),
        /**
         * Past the threshold, large tool outputs older than the last `keepSteps` steps leave the
         * view first (a stub names their outputRef); `false` goes straight to a summary.
         */
        prune: z
          .union([
            z.literal(false),
            z
              .object({
                keepSteps: z.number().int().min(0).max(1000).default(4),
                minBytes: z.number().int().min(0).default(4096),
              })
              .strict(),
          ])
          .default({ keepSteps: 4, minBytes: 4096 }),
      })
      .strict()
      .default({ threshold: 0.8, keepUserTurns: 2, prune: { keepSteps: 4, minBytes: 4096 } }),
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
