import { mkdirSync, statSync, chmodSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Where Bridle keeps its data, always an absolute path: `BRIDLE_HOME` when set, else the given
 * default (Electron's userData folder in the app, `~/.bridle` for the CLI); a relative one is
 * taken against the current folder.
 */
export function resolveHome(env: NodeJS.ProcessEnv, fallback = join(homedir(), '.bridle')): string {
  const fromEnv = env['BRIDLE_HOME']?.trim()
  return resolve(fromEnv || fallback)
}

/**
 * Creates the data folder, owner-only, if it is missing. An existing folder is kept as it is
 * except for group/other permissions, which are removed: it holds transcripts and credentials.
 */
export function ensureHome(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = statSync(dir)
  if (!stat.isDirectory()) throw new Error(`BRIDLE_HOME ${dir} exists and is not a folder`)
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, stat.mode & 0o700)
  return dir
}
