/**
 * The environment commands run with (docs/ARCHITECTURE.md 4, "Commands"). It is built from an allowlist, not by
 * removing known secrets, so a provider key the harness was started with cannot reach `env`,
 * the output or a spill file. A child can still read its parent's `/proc/<ppid>/environ`, so the
 * main process itself must not keep keys in its environment (they live in the OS keychain).
 * Secrets the harness knows (its API keys) are also looked for in the values, so a key copied
 * into an innocent-looking allowlisted name (`LC_X=sk-...`) is dropped too.
 */

/** Names passed through from the base environment: where things are, locale, terminal. */
const ALLOWED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_RUNTIME_DIR',
])

/** `LC_ALL`, `LC_CTYPE` and the rest of the locale family. */
const ALLOWED_PREFIXES = ['LC_']

/**
 * Names that look like credentials, refused even when allowlisted: `SSH_AUTH_SOCK` would hand
 * the command the user's SSH agent, a `*_TOKEN` the user's accounts.
 */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i

/**
 * Shorter secret values are not looked for: they would match ordinary values by chance, and a
 * real API key is far longer.
 */
export const MIN_SECRET_LENGTH = 8

/** Used when the base environment has no PATH, so plain commands still resolve. */
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin'

/** Values every command gets: mark the harness, and keep programs from paging or colouring. */
const FORCED: Readonly<Record<string, string>> = {
  BRIDLE: '1',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  NO_COLOR: '1',
  // stdin is closed and there is no terminal: a credential prompt could only hang.
  GIT_TERMINAL_PROMPT: '0',
}

/** Whether `name` says its variable holds a credential (`*_API_KEY`, `*_TOKEN`, `SSH_AUTH_SOCK`). */
export function looksLikeCredential(name: string): boolean {
  return SECRET_NAME.test(name)
}

/** Whether `name` from the base environment may reach a command. */
export function isPassedThrough(name: string): boolean {
  if (looksLikeCredential(name)) return false
  return ALLOWED_NAMES.has(name) || ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix))
}

export interface ToolEnvironmentOptions {
  /**
   * Values that must not reach a command (the API keys the harness knows): any variable whose
   * value contains one is dropped. Values shorter than `MIN_SECRET_LENGTH` are ignored.
   */
  readonly secrets?: readonly string[]
}

/**
 * The environment for a command: the allowlisted names of `base` (never one that looks like a
 * credential, nor one whose value contains a secret of `opts.secrets`), then the forced values;
 * `TERM` is `dumb` unless `base` has one. Pure: `base` is not changed.
 */
export function toolEnvironment(
  base: NodeJS.ProcessEnv,
  opts: ToolEnvironmentOptions = {},
): Record<string, string> {
  const secrets = (opts.secrets ?? []).filter((secret) => secret.length >= MIN_SECRET_LENGTH)
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !isPassedThrough(name)) continue
    if (secrets.some((secret) => value.includes(secret))) continue
    env[name] = value
  }
  return { PATH: FALLBACK_PATH, TERM: 'dumb', ...env, ...FORCED }
}
