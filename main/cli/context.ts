import { existsSync } from 'node:fs'
import { databasePath, openStore } from '../core/store/index.js'
import type { Store } from '../core/store/index.js'
import { sandboxProbeFile } from '../core/host/cache-dir.js'
import type { CommandContext } from './commands/command.js'
import { launchEnvironment } from './launch-env.js'
import { writeOut } from './terminal.js'

/**
 * What every command gets: the data folder and the ways to open it. Loaded by the dispatcher only
 * once a command runs (the help never opens SQLite); the core itself loads only for `bootHost`.
 */
export function commandContext(home: string, version: string): CommandContext {
  return {
    home,
    version,
    print: (line) => writeOut(`${line}\n`),
    bootHost: async (extra) => {
      const { boot, runtimeVersions } = await import('../core/host/index.js')
      return boot({
        home,
        version,
        versions: runtimeVersions(process.versions),
        sandboxProbeCache: sandboxProbeFile(),
        env: launchEnvironment(),
        ...extra,
      })
    },
    withExistingStore: (body) => {
      const dbPath = databasePath(home)
      if (!existsSync(dbPath))
        throw new Error(`there is no Bridle database in ${home} (nothing has been recorded yet)`)
      return withStore(dbPath, body)
    },
    withStore,
    withStoreAsync,
  }
}

function withStore<T>(dbPath: string, body: (store: Store) => T): T {
  const store = openStore(dbPath)
  try {
    return body(store)
  } finally {
    store.close()
  }
}

async function withStoreAsync<T>(dbPath: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(dbPath)
  try {
    return await body(store)
  } finally {
    store.close()
  }
}
