import { BrowserWindow, shell } from 'electron'
import type { WebContents } from 'electron'

export interface WindowOptions {
  readonly preload: string
  /** `bridle://app/` in a build, the electron-vite dev server in `npm run dev`. */
  readonly url: string
}

/** True when `url` is a page of the app itself (same origin as the one it was loaded from). */
export function isAppUrl(url: string, appUrl: string): boolean {
  try {
    return new URL(url).origin === new URL(appUrl).origin
  } catch {
    return false
  }
}

function openExternally(url: string): void {
  try {
    const { protocol } = new URL(url)
    if (protocol === 'https:' || protocol === 'http:') void shell.openExternal(url)
  } catch {
    // Not a URL at all: there is nothing safe to open.
  }
}

/** Navigation away from the app is refused; http(s) links open in the OS browser instead. */
function lockNavigation(contents: WebContents, appUrl: string): void {
  contents.on('will-navigate', (event, url) => {
    if (isAppUrl(url, appUrl)) return
    event.preventDefault()
    openExternally(url)
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, appUrl)) event.preventDefault()
  })
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url)
    return { action: 'deny' }
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

/** The one main window, with every isolation setting on. */
export function createMainWindow(opts: WindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Bridle',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  })
  lockNavigation(window.webContents, opts.url)
  window.once('ready-to-show', () => window.show())
  void window.loadURL(opts.url)
  return window
}
