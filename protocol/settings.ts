/**
 * The settings schema (`<home>/config.json`): pure zod, shared by the core (which reads and writes
 * the file) and the bridge contract (which carries it to the renderer). No secret ever lives in
 * it: an endpoint names an environment variable or has a key in the credential store.
 */
import { z } from 'zod'
import { McpServers } from './mcp.js'

/**
 * How Bridle talks to a server or model, when what it detects is wrong: which API (`ollama`:
 * Ollama's native one, which can set the window), how tools are passed (`text`: described in the
 * prompt, calls read from the text), whether `stream_options` is sent, whether reasoning is sent
 * back (DeepSeek's thinking mode), whether a lone `</think>` ends reasoning.
 */
export const ProfileOverride = z
  .object({
    api: z.enum(['openai', 'ollama']).optional(),
    toolCalls: z.enum(['native', 'native-nonstream', 'text']).optional(),
    streamUsage: z.boolean().optional(),
    replayReasoning: z.boolean().optional(),
    unopenedThink: z.boolean().optional(),
  })
  .strict()
export type ProfileOverride = z.infer<typeof ProfileOverride>

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
    /** Overrides what Bridle detects about this server. */
    profile: ProfileOverride.optional(),
    models: z
      .record(
        z.string(),
        z
          .object({
            /** The window to plan for; on Ollama, also the window Bridle asks it to run (num_ctx). */
            contextWindow: z.number().int().positive().optional(),
            profile: ProfileOverride.optional(),
            /** Whether the model accepts images; absent: guessed from its name, else no. */
            vision: z.boolean().optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict()

/**
 * "Always allow `npm test *`" (or never), for one project folder or, without `project`, for all.
 * `pattern` (commands): the words a command is, and with a final `*` any arguments after them
 * (never a recursive delete, a force push or a path outside the project). `prefix` (file tools):
 * a path, or a folder ending in `/`; for bash, an older spelling of `pattern` "<prefix> *".
 */
export const ApprovalRuleConfig = z
  .object({
    tool: z.string().min(1),
    prefix: z.string().min(1).optional(),
    pattern: z.string().min(1).optional(),
    effect: z.enum(['allow', 'deny']),
    project: z.string().min(1).optional(),
  })
  .strict()
export type ApprovalRuleConfig = z.infer<typeof ApprovalRuleConfig>

/** A project folder's own defaults for new sessions; what is absent falls back to the global. */
export const ProjectDefaults = z
  .object({
    endpoint: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
  })
  .strict()
export type ProjectDefaults = z.infer<typeof ProjectDefaults>

export const Config = z
  .object({
    endpoints: z.record(z.string().min(1), Endpoint).default({}),
    defaultEndpoint: z.string().min(1).optional(),
    defaultModel: z.string().min(1).optional(),
    /** By project folder (its real path): the endpoint and model its new sessions get. */
    projects: z.record(z.string().min(1), ProjectDefaults).default({}),
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
    /**
     * Commands in an OS sandbox (bubblewrap, Linux): `auto` when it works here, `required` to
     * refuse commands without one, `off` to run them with the user's full rights.
     */
    sandbox: z.enum(['auto', 'required', 'off']).default('auto'),
    /**
     * Paths to protect on top of the built-in list (README, Safety), as files that run on this
     * machine: sandboxed commands cannot change or create them, and a command line, a `write` or
     * an `edit` that changes one needs the user's approval of that call. Relative to the project, matched at any depth:
     * `scripts/deploy.sh`, `tools/**`, `*.service`.
     */
    protectedPaths: z
      .array(
        z
          .string()
          .min(1)
          .refine(
            (p) =>
              !/^([/\\]|[a-zA-Z]:)/.test(p) && !p.split(/[/\\]/).some((n) => /^\.{0,2}$/.test(n)),
            'a path relative to the project with / between names and no "." or ".." in it, e.g. "scripts/deploy.sh" or "tools/**"',
          ),
      )
      .optional(),
    /**
     * Plugin files loaded into every session's agent, in order: ES modules whose default export
     * is `{ name, setup(ctx) }` (main/core/kernel/README.md). A path is absolute, or relative to
     * the data folder (where this file is). A plugin that cannot load stops the session's agent.
     */
    plugins: z.array(z.string().min(1)).optional(),
    /**
     * The user's MCP servers, in the shape other tools use (protocol/mcp.ts); a project adds its
     * own in `.mcp.json`, run once the user trusts that file.
     */
    mcpServers: McpServers.optional(),
    /**
     * Code mode's limits (`bridle run --code-mode`): how long one `run_code` program may run,
     * how many tool calls it may make, and how much heap it gets. Absent: 30 s, 50 calls, 64 MB.
     */
    codeMode: z
      .object({
        timeoutSeconds: z.number().positive().max(3600).optional(),
        maxInnerCalls: z.number().int().positive().max(10_000).optional(),
        memoryMegabytes: z.number().int().min(8).max(4096).optional(),
      })
      .strict()
      .optional(),
    /**
     * Subagents (the `task` tool): how deep they may nest (1: a subagent cannot start another),
     * how many of one reply's `task` calls run at once, and each child's step limit (default: the
     * session's). Absent: depth 1, 4 at once.
     */
    subagents: z
      .object({
        maxDepth: z.number().int().min(0).max(5).optional(),
        maxParallel: z.number().int().positive().max(32).optional(),
        maxSteps: z.number().int().positive().max(1000).optional(),
      })
      .strict()
      .optional(),
    /**
     * The loop guard: from the `repeats`th identical call in a row in a turn (same tool, same
     * arguments), ask the user, or in full-auto stop the turn. Absent: 3; 0 turns it off.
     */
    loopGuard: z
      .object({
        repeats: z
          .number()
          .int()
          .min(0)
          .max(1000)
          .refine((n) => n !== 1, 'repeats is 0 (off) or at least 2; 1 would stop every call')
          .optional(),
      })
      .strict()
      .optional(),
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
