import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/**
 * Finds the Electron executable without `require('electron')`, which since Electron 42 tries to
 * download the binary. Returns the path, or why there is none.
 */
export function findElectronBinary(): { path: string } | { reason: string } {
  const fromEnv = process.env['ELECTRON_EXEC_PATH']
  if (fromEnv) {
    return existsSync(fromEnv)
      ? { path: fromEnv }
      : { reason: `ELECTRON_EXEC_PATH=${fromEnv} does not exist` }
  }
  let packageDir: string
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'))
  } catch {
    return { reason: 'the electron package is not installed' }
  }
  const pathFile = join(packageDir, 'path.txt')
  if (!existsSync(pathFile)) {
    return {
      reason: 'the binary was never downloaded (run `npx install-electron`; it needs the internet)',
    }
  }
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(binary) ? { path: binary } : { reason: `${binary} is missing` }
}
