#!/usr/bin/env node
/**
 * The `bridle` command's entry (package.json "bin", built to out/main/cli.js). It turns on Node's
 * compile cache before the CLI's code is loaded, so every start after the first skips compiling
 * the bundle (most of a start's CPU), then runs the CLI (`index.ts`). The cache lives in the
 * user's own cache folder, created owner-only: compiled code from a folder others can write to
 * would run as this user. Without it (an older Node, a read-only home) the CLI runs as before.
 *
 * Then, before the CLI loads, API keys leave the environment (`key-handoff.ts`): when the
 * environment holds one, the process re-execs itself without it, so that no command can read it in
 * `/proc/<pid>/environ`.
 */
import { mkdirSync } from 'node:fs'
import { enableCompileCache } from 'node:module'
import { join } from 'node:path'
import { userCacheDir } from '../core/host/cache-dir.js'

try {
  const dir = join(userCacheDir(), 'compile-cache')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  enableCompileCache(dir)
} catch {
  // Only a speed-up: a start without the cache compiles as usual.
}
try {
  // Imported here, so that the compile cache serves it too.
  const { leaveKeysOutOfEnvironment } = await import('./key-handoff.js')
  await leaveKeysOutOfEnvironment()
} catch (error) {
  process.stderr.write(`bridle: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
await import('./index.js')
