import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Mock } from 'vitest'
import { FakeWebContents, navigation } from './fakes.js'

const electron = vi.hoisted(() => {
  const windows: { options: unknown; instance: unknown }[] = []
  return {
    windows,
    openExternal: vi.fn(() => Promise.resolve()),
  }
})

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events')
  const { FakeWebContents: Contents } = await import('./fakes.js')
  class BrowserWindow extends EventEmitter {
    readonly webContents = new Contents('about:blank')
    readonly loadURL = vi.fn(() => Promise.resolve())
    readonly show = vi.fn()
    readonly maximize = vi.fn()
    constructor(options: unknown) {
      super()
      electron.windows.push({ options, instance: this })
    }
  }
  return { BrowserWindow, shell: { openExternal: electron.openExternal } }
})

const {
  createMainWindow,
  isPermissionGranted,
  lockNavigation,
  restrictPermissions,
  windowOptions,
} = await import('../../main/electron/window.js')

const APP_URL = 'bridle://app/index.html'

/** The mocked BrowserWindow's surface as the test sees it. */
interface FakeWindow {
  readonly webContents: FakeWebContents
  readonly loadURL: Mock
  readonly show: Mock
  readonly maximize: Mock
  emit(event: string): boolean
}

beforeEach(() => {
  electron.openExternal.mockClear()
  electron.windows.length = 0
})

describe('the window options', () => {
  const options: BrowserWindowConstructorOptions = windowOptions('/app/out/preload/index.cjs')
  const prefs = options.webPreferences ?? {}

  it('turn every isolation setting on, spelled out', () => {
    expect(prefs).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      disableBlinkFeatures: 'Auxclick',
    })
  })

  it('set nothing that loosens them', () => {
    expect(prefs.enableBlinkFeatures).toBeUndefined()
    expect(prefs.additionalArguments).toBeUndefined()
    expect(prefs.partition).toBeUndefined()
    expect(prefs.session).toBeUndefined()
  })

  it('take saved bounds but never the isolation settings from them', () => {
    const placed = windowOptions('/p', { x: 10, y: 20, width: 900, height: 700 })
    expect(placed).toMatchObject({ x: 10, y: 20, width: 900, height: 700, show: false })
    expect(placed.webPreferences).toEqual(windowOptions('/p').webPreferences)
  })
})

describe('createMainWindow', () => {
  it('builds the window from windowOptions, locks it, loads the app and shows it when ready', () => {
    const created = createMainWindow({ preload: '/p.cjs', url: APP_URL, isMaximized: true })
    const window = created as unknown as FakeWindow
    expect(electron.windows[0]?.options).toEqual(windowOptions('/p.cjs'))
    expect(window.loadURL).toHaveBeenCalledWith(APP_URL)
    expect(window.show).not.toHaveBeenCalled()
    window.emit('ready-to-show')
    expect(window.maximize).toHaveBeenCalled()
    expect(window.show).toHaveBeenCalled()
    // Navigation is locked from the start.
    const away = navigation('https://evil.example/')
    window.webContents.emit('will-navigate', away)
    expect(away.preventDefault).toHaveBeenCalled()
  })
})

describe('lockNavigation', () => {
  let contents: FakeWebContents

  beforeEach(() => {
    contents = new FakeWebContents(APP_URL)
    lockNavigation(contents as unknown as WebContents, APP_URL)
  })

  it('lets the main frame move within the app', () => {
    const within = navigation('bridle://app/settings')
    contents.emit('will-navigate', within)
    expect(within.preventDefault).not.toHaveBeenCalled()
  })

  it('cancels navigation to another origin and opens only http(s) in the OS browser', () => {
    const web = navigation('https://example.com/docs')
    contents.emit('will-navigate', web)
    expect(web.preventDefault).toHaveBeenCalled()
    expect(electron.openExternal).toHaveBeenCalledWith('https://example.com/docs')
    electron.openExternal.mockClear()

    for (const url of [
      'bridle://app.evil/',
      'bridle://evil/index.html',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vscode://open?x',
      'ms-msdt:/id',
      'http://localhost:5173/',
      'not a url',
    ]) {
      const away = navigation(url)
      contents.emit('will-navigate', away)
      expect(away.preventDefault, url).toHaveBeenCalled()
    }
    expect(electron.openExternal).toHaveBeenCalledTimes(1)
    expect(electron.openExternal).toHaveBeenCalledWith('http://localhost:5173/')
  })

  it('cancels subframe navigation and redirects away from the app', () => {
    const subframe = navigation('https://evil.example/', false)
    contents.emit('will-frame-navigate', subframe)
    expect(subframe.preventDefault).toHaveBeenCalled()
    const redirect = navigation('https://evil.example/')
    contents.emit('will-redirect', redirect)
    expect(redirect.preventDefault).toHaveBeenCalled()
    const inside = navigation('bridle://app/x')
    contents.emit('will-redirect', inside)
    expect(inside.preventDefault).not.toHaveBeenCalled()
    expect(electron.openExternal).not.toHaveBeenCalled()
  })

  it('denies every new window; only http(s) ones go to the OS browser', () => {
    const open = contents.openHandler
    if (!open) throw new Error('no window-open handler was set')
    for (const url of [
      'https://example.com/',
      'http://example.com/',
      'bridle://app/index.html',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,hi',
      'smb://host/share',
      'about:blank',
      '',
    ]) {
      expect(open({ url }), url).toEqual({ action: 'deny' })
    }
    expect(electron.openExternal.mock.calls).toEqual([
      ['https://example.com/'],
      ['http://example.com/'],
    ])
  })

  it('never attaches a webview', () => {
    const attach = { preventDefault: vi.fn() }
    contents.emit('will-attach-webview', attach, {}, { src: 'https://evil.example/' })
    expect(attach.preventDefault).toHaveBeenCalled()
  })
})

describe('permissions', () => {
  interface Handlers {
    request?: (c: unknown, p: string, decide: (granted: boolean) => void, d: object) => void
    check?: (c: unknown, p: string, origin: string, d: object) => boolean
    device?: (d: object) => boolean
  }

  function restricted(): Handlers {
    const handlers: Handlers = {}
    const session = {
      setPermissionRequestHandler: (h: Handlers['request']) => (handlers.request = h),
      setPermissionCheckHandler: (h: Handlers['check']) => (handlers.check = h),
      setDevicePermissionHandler: (h: Handlers['device']) => (handlers.device = h),
    }
    restrictPermissions(session as unknown as Session, APP_URL)
    return handlers
  }

  it('denies every request by default, from the app too', () => {
    const { request } = restricted()
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'hid',
      'usb',
      'serial',
      'unknown',
      'made-up-permission',
    ]) {
      const decide = vi.fn()
      request?.(undefined, permission, decide, { requestingUrl: 'bridle://app/index.html' })
      expect(decide, permission).toHaveBeenCalledWith(false)
    }
  })

  it('grants clipboard writes to the app only', () => {
    const { request, check } = restricted()
    const decide = vi.fn()
    request?.(undefined, 'clipboard-sanitized-write', decide, { requestingUrl: APP_URL })
    expect(decide).toHaveBeenCalledWith(true)
    const foreign = vi.fn()
    request?.(undefined, 'clipboard-sanitized-write', foreign, {
      requestingUrl: 'https://evil.example/',
    })
    expect(foreign).toHaveBeenCalledWith(false)
    expect(check?.(undefined, 'clipboard-sanitized-write', 'bridle://app', {})).toBe(true)
    expect(check?.(undefined, 'clipboard-sanitized-write', 'https://evil.example', {})).toBe(false)
    expect(check?.(undefined, 'media', 'bridle://app', {})).toBe(false)
    expect(check?.(undefined, 'notifications', 'bridle://app', {})).toBe(false)
  })

  it('denies every device', () => {
    expect(restricted().device?.({ deviceType: 'hid', origin: 'bridle://app' })).toBe(false)
  })

  it('isPermissionGranted refuses an unknown permission name', () => {
    expect(isPermissionGranted('something-new', APP_URL, APP_URL)).toBe(false)
  })
})
