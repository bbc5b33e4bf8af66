import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron as electron, expect, test } from '@playwright/test'
import { findElectronBinary } from './electron-binary'

const binary = findElectronBinary()
const skipReason = 'reason' in binary ? `skipped: no Electron binary (${binary.reason})` : undefined
if (skipReason) console.log(skipReason)

test('the desktop app opens a sandboxed window that shows the app info over IPC', async () => {
  test.skip(skipReason !== undefined, skipReason)
  if (!('path' in binary)) return
  const home = mkdtempSync(join(tmpdir(), 'bridle-electron-'))
  const app = await electron.launch({
    executablePath: binary.path,
    args: ['.'],
    env: { ...process.env, BRIDLE_HOME: home },
  })
  try {
    const window = await app.firstWindow()
    await expect(window.getByTestId('app-transport')).toHaveText('Electron IPC')
    await expect(window.getByTestId('app-data-dir')).toHaveText(home)
    const exposed = await window.evaluate(() =>
      Object.keys((globalThis as { bridle?: object }).bridle ?? {}).sort(),
    )
    expect(exposed).toEqual(['call', 'subscribe'])
    const hasRequire = await window.evaluate(
      () => typeof (globalThis as { require?: unknown }).require,
    )
    expect(hasRequire).toBe('undefined')
    await window.screenshot({ path: 'test-results/electron-app.png' })
  } finally {
    await app.close()
    rmSync(home, { recursive: true, force: true })
  }
})
