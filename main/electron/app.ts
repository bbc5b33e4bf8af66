import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, dialog, Menu, screen, session } from 'electron'
import type { MenuItemConstructorOptions, BrowserWindow as Window } from 'electron'
import { sandboxProbeFile } from '../core/host/cache-dir.js'
import { boot, resolveHome, runtimeVersions } from '../core/host/index.js'
import type { Host } from '../core/host/index.js'
import { bindIpc } from './ipc.js'
import type { IpcBinding } from './ipc.js'
import { folderPicker, keychainSecretBox } from './native.js'
import { APP_ORIGIN, registerAppScheme, serveAppScheme } from './protocol.js'
import { createMainWindow, restrictPermissions } from './window.js'
import {
  readWindowState,
  rememberWindowState,
  visibleState,
  windowStatePath,
} from './window-state.js'

const here = fileURLToPath(new URL('.', import.meta.url))

/**
 * The app's lifecycle: one instance, one Host, one window. A second launch focuses the first.
 * Quitting closes the Host (and with it the database) before the process exits.
 */
export function startApp(): void {
  // Before anything else: no renderer, whatever its options say, runs without the sandbox.
  app.enableSandbox()
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return
  }
  registerAppScheme()

  let host: Host | undefined
  let ipc: IpcBinding | undefined
  let window: Window | undefined
  const devUrl = process.env['ELECTRON_RENDERER_URL']
  const appUrl = devUrl ?? `${APP_ORIGIN}/index.html`
  const home = resolveHome(process.env, app.getPath('userData'))
  const stateFile = windowStatePath(home)

  const openWindow = () => {
    const workAreas = screen.getAllDisplays().map((display) => display.workArea)
    const saved = visibleState(readWindowState(stateFile), workAreas)
    const opened = createMainWindow({
      preload: join(here, '../preload/index.cjs'),
      url: appUrl,
      ...(saved ? { bounds: saved.bounds, isMaximized: saved.isMaximized } : {}),
    })
    rememberWindowState(opened, stateFile)
    ipc?.attach(opened.webContents)
    opened.on('closed', () => {
      window = undefined
    })
    window = opened
  }

  app.on('second-instance', () => {
    if (!window) return
    if (window.isMinimized()) window.restore()
    window.show()
    window.focus()
  })

  // Every session, the default one and any created later, denies permissions by default.
  app.on('session-created', (created) => restrictPermissions(created, appUrl))

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && host) openWindow()
  })

  let isQuitting = false
  app.on('will-quit', (event) => {
    if (isQuitting || !host) return
    event.preventDefault()
    isQuitting = true
    ipc?.dispose()
    void host.close().finally(() => app.quit())
  })

  app
    .whenReady()
    .then(async () => {
      restrictPermissions(session.defaultSession, appUrl)
      serveAppScheme(join(here, '../renderer'))
      Menu.setApplicationMenu(Menu.buildFromTemplate(appMenu(process.platform)))
      host = await boot({
        home,
        version: app.getVersion(),
        versions: runtimeVersions(process.versions),
        pickFolder: folderPicker(() => window),
        secretBox: keychainSecretBox(),
        sandboxProbeCache: sandboxProbeFile(),
      })
      ipc = bindIpc(host, appUrl)
      openWindow()
    })
    .catch((error: unknown) => {
      // A database this Bridle must not touch, an unwritable data folder: say so and stop.
      const message = error instanceof Error ? error.message : String(error)
      dialog.showErrorBox('Bridle could not start', message)
      app.exit(1)
    })
}

/**
 * The application menu from Electron's roles, which bring the usual shortcuts of each platform
 * (copy/paste, undo, zoom, reload, close, minimise) and the macOS app menu.
 */
export function appMenu(platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ]
}
