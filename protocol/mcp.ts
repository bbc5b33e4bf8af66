/**
 * MCP servers as users already write them for other tools: `"mcpServers": { "<name>": { … } }`,
 * in config.json (the user's servers) and in a project's `.mcp.json` (the project's, run only
 * once the user trusts that file). Pure zod, shared by the core and the bridge.
 *
 * A value in `env`, `headers`, `args` or `url` may name an environment variable as `${NAME}` (or
 * `${NAME:-fallback}`), so a secret stays out of the file, as an endpoint's `apiKeyEnv` does.
 */
import { z } from 'zod'

const Common = {
  /** `false` keeps the server configured but never started. */
  enabled: z.boolean().optional(),
  /** How long one tool call may take before it fails (default 60 s). */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /** How long the server may take to start and list its tools (default 30 s). */
  startTimeoutMs: z.number().int().positive().max(600_000).optional(),
}

/** A server Bridle starts as a child process and speaks to over its stdin and stdout. */
export const McpStdioServer = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    /**
     * Added to a minimal inherited environment (PATH, HOME, …), never the harness's keys: a key
     * reaches the server only when named here (`"OPENAI_API_KEY": "${OPENAI_API_KEY}"`).
     */
    env: z.record(z.string(), z.string()).optional(),
    /**
     * Where it runs. A project's server (`.mcp.json`): absolute, or relative to the project;
     * default the project. A user's (config.json): absolute, or relative to the home folder;
     * default the home folder, never the project.
     */
    cwd: z.string().min(1).optional(),
    ...Common,
  })
  .strict()
export type McpStdioServer = z.infer<typeof McpStdioServer>

/** A server that answers over HTTP: streamable HTTP, or the older SSE transport (`type: "sse"`). */
export const McpHttpServer = z
  .object({
    type: z.enum(['http', 'streamable-http', 'sse']).optional(),
    url: z.string().min(1),
    headers: z.record(z.string(), z.string()).optional(),
    ...Common,
  })
  .strict()
export type McpHttpServer = z.infer<typeof McpHttpServer>

export const McpServerConfig = z.union([McpStdioServer, McpHttpServer], {
  error: () =>
    'an MCP server needs either "command" (a program to start) or "url" (an HTTP server)',
})
export type McpServerConfig = z.infer<typeof McpServerConfig>

/** Server names as keys; the name becomes part of its tools' names (`mcp__<server>__<tool>`). */
export const McpServers = z.record(z.string().min(1), McpServerConfig)
export type McpServers = z.infer<typeof McpServers>

/** A project's `.mcp.json`: other tools' keys beside `mcpServers` are allowed and ignored. */
export const McpProjectFile = z.looseObject({ mcpServers: McpServers.default({}) })

/** Where a server is configured. */
export const McpScope = z.enum(['user', 'project'])
export type McpScope = z.infer<typeof McpScope>

/**
 * What a server is doing, for settings and `bridle mcp list`: `stopped` (not started, or idle),
 * `starting`, `running`, `failed` (with why), `disabled` (`enabled: false`), `untrusted` (a
 * project's server before the user trusts its `.mcp.json`).
 */
export const McpState = z.enum([
  'stopped',
  'starting',
  'running',
  'failed',
  'disabled',
  'untrusted',
])
export type McpState = z.infer<typeof McpState>

export const McpToolView = z.object({
  /** The name the model calls it by (`mcp__<server>__<tool>`). */
  name: z.string(),
  /** The server's own name for it. */
  serverTool: z.string(),
  description: z.string(),
  readOnly: z.boolean(),
})
export type McpToolView = z.infer<typeof McpToolView>

export const McpServerView = z.object({
  name: z.string(),
  scope: McpScope,
  /** `stdio`, `http` or `sse`. */
  transport: z.enum(['stdio', 'http', 'sse']),
  /** What it runs or where it is, secrets left out: `npx -y server-x`, `https://…/mcp`. */
  target: z.string(),
  state: McpState,
  /** Why it failed, is off or is waiting, in words a person understands. */
  reason: z.string().optional(),
  tools: z.array(McpToolView),
  /** The end of what it wrote to stderr (bounded). */
  stderr: z.string(),
})
export type McpServerView = z.infer<typeof McpServerView>

/**
 * One server of a project's `.mcp.json` as the trust question shows it: every field of its entry,
 * each string escaped (`protocol/visible-text.ts`: no control character or ANSI sequence), the
 * values of env, headers and URL query masked with where each comes from and goes to, and the
 * project files trust covers with their hashes.
 */
export const McpTrustServerView = z.object({
  /** Escaped, like every string here. */
  name: z.string(),
  /** What it runs or where it is, in one line: `python3 srv.py`, `https://…/mcp`. */
  target: z.string(),
  /** In the file's order: `command`, `arg 1`…, `cwd`, `env`, `url`, `header`, `timeoutMs`… */
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  /** Project files its command line names: path, and the content hash (null: missing now). */
  files: z.array(z.object({ path: z.string(), sha256: z.string().nullable() })),
})
export type McpTrustServerView = z.infer<typeof McpTrustServerView>

/** A project's `.mcp.json` as settings show it: whether it is trusted, and what it would run. */
export const McpProjectFileView = z.object({
  path: z.string(),
  state: z.enum(['trusted', 'untrusted', 'invalid']),
  /** Why it cannot be used (`invalid`). */
  reason: z.string().optional(),
  servers: z.array(McpTrustServerView),
  /** What trust would be given to; `mcp/trust` with it refuses if the servers changed since. */
  fingerprint: z.string().optional(),
  /** The file holds control or invisible characters (shown escaped): a reason to look twice. */
  hiddenCharacters: z.boolean().optional(),
  /** Covered files that changed since the user last trusted them (`server: path`). */
  changed: z.array(z.string()).optional(),
})
export type McpProjectFileView = z.infer<typeof McpProjectFileView>

/** What `mcp/list` and the other `mcp/*` methods answer: a project's servers as they are now. */
export const McpListView = z.object({
  /** The project folder they are for (its real path). */
  projectDir: z.string(),
  servers: z.array(McpServerView),
  /** The project's `.mcp.json`, when it has one. */
  projectFile: McpProjectFileView.optional(),
})
export type McpListView = z.infer<typeof McpListView>

/** A server's prompt, offered as the slash command `/mcp__<server>__<prompt>` in the composer. */
export const McpPromptView = z.object({
  server: z.string(),
  name: z.string(),
  /** What the user types: `/mcp__<server>__<prompt>`. */
  command: z.string(),
  description: z.string(),
  arguments: z.array(
    z.object({ name: z.string(), description: z.string(), required: z.boolean() }),
  ),
})
export type McpPromptView = z.infer<typeof McpPromptView>

/** A server's resource, attachable to a message like a file. */
export const McpResourceView = z.object({
  server: z.string(),
  uri: z.string(),
  name: z.string(),
  description: z.string(),
  mimeType: z.string().optional(),
})
export type McpResourceView = z.infer<typeof McpResourceView>

/** What the composer may offer from a project's MCP servers; servers that failed say why. */
export const McpCatalogView = z.object({
  prompts: z.array(McpPromptView),
  resources: z.array(McpResourceView),
  failures: z.array(z.object({ server: z.string(), reason: z.string() })),
})
export type McpCatalogView = z.infer<typeof McpCatalogView>
