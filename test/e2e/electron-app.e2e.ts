import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron as electron, expect, test } from '@playwright/test'
import { findElectronBinary } from './electron-binary'
import type { PageGlobals } from './page-globals'

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

    // Main cancels navigation away (will-navigate) and denies new windows; file: URLs are not
    // handed to the OS either, so nothing opens outside the app during the test.
    await window.evaluate(() => {
      ;(globalThis as unknown as PageGlobals).location.href = 'file:///etc/hostname'
    })
    await window.waitForTimeout(300)
    expect(window.url()).toMatch(/^bridle:\/\/app\//)
    const popup = await window.evaluate(() =>
      (globalThis as unknown as PageGlobals).open('file:///etc/hostname'),
    )
    expect(popup).toBeNull()
    expect(app.windows()).toHaveLength(1)
    await expect(window.getByTestId('app-transport')).toHaveText('Electron IPC')
    await window.screenshot({ path: 'test-results/electron-app.png' })
  } finally {
    await app.close()
    rmSync(home, { recursive: true, force: true })
  }
})
