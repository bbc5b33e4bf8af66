import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * Bridle's folder in the user's cache: `$XDG_CACHE_HOME/bridle`, else `~/.cache/bridle`. What
 * goes there is only a speed-up (compiled code, the sandbox probe); each user creates it
 * owner-only, since what is read back from it decides what runs.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'bridle')
}

/**
 * The file that remembers a working sandbox probe (`ProbeOptions.cacheFile`), shared by the CLI,
 * `bridle serve` and the app: its entries are keyed by the binaries and the machine they held on.
 */
export function sandboxProbeFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(userCacheDir(env), 'sandbox-probe.json')
}
