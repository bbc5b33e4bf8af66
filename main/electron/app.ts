import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { app, BrowserWindow, Menu, session } from 'electron'
import type { BrowserWindow as Window } from 'electron'
import { boot, resolveHome, runtimeVersions } from '../core/host/index.js'
import type { Host } from '../core/host/index.js'
import { bindIpc } from './ipc.js'
import type { IpcBinding } from './ipc.js'
import { APP_ORIGIN, registerAppScheme, serveAppScheme } from './protocol.js'
import { createMainWindow, isAppUrl } from './window.js'

const here = fileURLToPath(new URL('.', import.meta.url))

/**
 * The app's lifecycle: one instance, one Host, one window. A second launch focuses the first.
 * Quitting closes the Host (and with it the database) before the process exits.
 */
export function startApp(): void {
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

  const openWindow = () => {
    window = createMainWindow({ preload: join(here, '../preload/index.cjs'), url: appUrl })
    ipc?.attach(window.webContents)
    window.on('closed', () => {
      window = undefined
    })
  }

  app.on('second-instance', () => {
    if (!window) return
    if (window.isMinimized()) window.restore()
    window.focus()
  })

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

  void app.whenReady().then(async () => {
    // Nothing in the window needs the camera, notifications or anything else a site may ask for.
    session.defaultSession.setPermissionRequestHandler((_contents, _permission, decide) =>
      decide(false),
    )
    session.defaultSession.setPermissionCheckHandler(() => false)
    serveAppScheme(join(here, '../renderer'))
    Menu.setApplicationMenu(Menu.buildFromTemplate(defaultMenu()))

    host = await boot({
      home: resolveHome(process.env, app.getPath('userData')),
      version: app.getVersion(),
      versions: runtimeVersions(process.versions),
    })
    ipc = bindIpc(host, (url) => isAppUrl(url, appUrl))
    openWindow()
  })
}

function defaultMenu(): Electron.MenuItemConstructorOptions[] {
  const isMac = process.platform === 'darwin'
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ]
}
