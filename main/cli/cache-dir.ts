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
