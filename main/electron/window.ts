import { BrowserWindow, shell } from 'electron'
import type { BrowserWindowConstructorOptions, Rectangle, Session, WebContents } from 'electron'
import { externalWebUrl, isAppUrl } from './urls.js'

export { isAppUrl } from './urls.js'

export interface WindowOptions {
  readonly preload: string
  /** `bridle://app/` in a build, the electron-vite dev server in `npm run dev`. */
  readonly url: string
  /** Where the window was last, already checked to be on a visible display. */
  readonly bounds?: Partial<Rectangle>
  readonly isMaximized?: boolean
}

/**
 * The options of the main window, as data so a test can assert every one. Each isolation setting
 * is spelled out even where it is Electron's default, so a changed default cannot loosen it.
 */
export function windowOptions(
  preload: string,
  bounds: Partial<Rectangle> = {},
): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    ...bounds,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Bridle',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      // A file dropped on the window would otherwise replace the app with that file.
      navigateOnDragDrop: false,
      // A middle click would otherwise ask for a new window outside the click handlers.
      disableBlinkFeatures: 'Auxclick',
      safeDialogs: true,
      spellcheck: false,
    },
  }
}

/** Hands an http(s) URL to the OS browser; anything else is dropped. */
export function openExternally(url: string): void {
  const safe = externalWebUrl(url)
  if (safe !== undefined) void shell.openExternal(safe)
}

/**
 * Keeps a webContents on the app: navigation of any frame to another origin is cancelled (a main
 * frame's http(s) link opens in the OS browser instead), redirects away are cancelled, every new
 * window is denied (http(s) ones open in the OS browser) and `<webview>` never attaches.
 */
export function lockNavigation(contents: WebContents, appUrl: string): void {
  contents.on('will-navigate', (details) => {
    if (isAppUrl(details.url, appUrl)) return
    details.preventDefault()
    openExternally(details.url)
  })
  // `will-navigate` sees the main frame only; subframes (none today, CSP forbids them) too.
  contents.on('will-frame-navigate', (details) => {
    if (!details.isMainFrame && !isAppUrl(details.url, appUrl)) details.preventDefault()
  })
  contents.on('will-redirect', (details) => {
    if (!isAppUrl(details.url, appUrl)) details.preventDefault()
  })
  contents.setWindowOpenHandler(({ url }) => {
    openExternally(url)
    return { action: 'deny' }
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}

/**
 * Permissions a page of the app may use. Everything else is denied, because Electron grants a
 * request when no handler answers it. Writing to the clipboard lets "copy" buttons work; reading
 * it, the camera, notifications, devices and the rest stay closed.
 */
const GRANTED_TO_APP: ReadonlySet<string> = new Set(['clipboard-sanitized-write'])

export function isPermissionGranted(
  permission: string,
  requestingUrl: string,
  appUrl: string,
): boolean {
  return GRANTED_TO_APP.has(permission) && isAppUrl(requestingUrl, appUrl)
}

/** Installs deny-by-default permission handlers on a session (the default one and any other). */
export function restrictPermissions(session: Session, appUrl: string): void {
  session.setPermissionRequestHandler((_contents, permission, decide, details) =>
    decide(isPermissionGranted(permission, details.requestingUrl, appUrl)),
  )
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionGranted(permission, requestingOrigin, appUrl),
  )
  // HID, serial and USB devices: nothing of the app needs one.
  session.setDevicePermissionHandler(() => false)
}

/** The one main window, with every isolation setting on and navigation locked to the app. */
export function createMainWindow(opts: WindowOptions): BrowserWindow {
  const options = windowOptions(opts.preload, opts.bounds)
  const window = new BrowserWindow({
    ...options,
    // The same values as windowOptions (a test holds them equal), repeated in the literal at the
    // constructor because that is where static scanners (Electronegativity) look for them.
    webPreferences: {
      ...options.webPreferences,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      disableBlinkFeatures: 'Auxclick',
    },
  })
  lockNavigation(window.webContents, opts.url)
  window.once('ready-to-show', () => {
    if (opts.isMaximized === true) window.maximize()
    window.show()
  })
  void window.loadURL(opts.url)
  return window
}
