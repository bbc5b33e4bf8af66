/**
 * The variables Bridle took out of its own environment at start (`key-handoff.ts`): API keys and
 * other credentials, kept here in memory only. `process.env` never holds them again, so no child
 * Bridle starts without an explicit environment (git for the prompt, ripgrep) inherits them, and
 * nothing can read them in `/proc/<pid>/environ`.
 *
 * Code that resolves keys (`apiKeyEnv`), expands `${NAME}` in MCP servers' settings or gathers
 * the secrets to redact reads `launchEnvironment()`, never `process.env` directly.
 */

const handedOver = new Map<string, string>()

/** Keeps `values` for `launchEnvironment`; a later value of the same name replaces the earlier. */
export function rememberLaunchVariables(values: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(values)) handedOver.set(name, value)
}

/**
 * The environment Bridle was launched with: `process.env` plus the variables taken out of it at
 * start. A fresh object each call; changing it changes neither.
 */
export function launchEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, ...Object.fromEntries(handedOver) }
}
