import type { EventEmitter } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Mock } from 'vitest'
import type * as HostIndex from '../../main/core/host/index.js'
import type { BootOptions } from '../../main/core/host/index.js'
import { writeWindowState } from '../../main/electron/window-state.js'
import { fakeHost } from './fakes.js'

interface FakeApp extends EventEmitter {
  enableSandbox: Mock
  requestSingleInstanceLock: Mock<() => boolean>
  quit: Mock
  exit: Mock
  getPath: Mock<() => string>
  getVersion: Mock<() => string>
  whenReady: Mock<() => Promise<void>>
}

interface FakeWindow extends EventEmitter {
  readonly options: unknown
  readonly restore: Mock
  readonly focus: Mock
}

/** What the mocked `electron` module hands the shell, kept so tests can look and poke. */
interface Shell {
  app: FakeApp
  windows: FakeWindow[]
  ready: { resolve: () => void; promise: Promise<void> }
  session: {
    setPermissionRequestHandler: Mock
    setPermissionCheckHandler: Mock
    setDevicePermissionHandler: Mock
  }
  menu: unknown[]
  safeStorage: {
    isEncryptionAvailable: Mock<() => boolean>
    getSelectedStorageBackend: Mock<() => string>
    encryptString: Mock<(plain: string) => Buffer>
    decryptString: Mock<(sealed: Buffer) => string>
  }
  dialog: {
    showOpenDialog: Mock<() => Promise<{ canceled: boolean; filePaths: string[] }>>
    showErrorBox: Mock
  }
  displays: { workArea: { x: number; y: number; width: number; height: number } }[]
}

const shell = vi.hoisted(() => ({ current: undefined as Shell | undefined }))
const booted = vi.hoisted(() => ({
  options: [] as unknown[],
  fail: undefined as Error | undefined,
}))

function deferred(): Shell['ready'] {
  let resolve: () => void = () => undefined
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { resolve, promise }
}

vi.mock('electron', async () => {
  const { EventEmitter: Emitter } = await import('node:events')
  const { FakeWebContents } = await import('./fakes.js')
  const made: Shell = {
    app: Object.assign(new Emitter(), {
      enableSandbox: vi.fn(),
      requestSingleInstanceLock: vi.fn(() => true),
      quit: vi.fn(),
      exit: vi.fn(),
      getPath: vi.fn(() => '/unused'),
      getVersion: vi.fn(() => '1.2.3'),
      whenReady: vi.fn(() => made.ready.promise),
    }),
    windows: [],
    ready: deferred(),
    session: {
      setPermissionRequestHandler: vi.fn(),
      setPermissionCheckHandler: vi.fn(),
      setDevicePermissionHandler: vi.fn(),
    },
    menu: [],
    safeStorage: {
      isEncryptionAvailable: vi.fn(() => true),
      getSelectedStorageBackend: vi.fn(() => 'gnome_libsecret'),
      encryptString: vi.fn((plain: string) => Buffer.from(`sealed:${plain}`)),
      decryptString: vi.fn((sealed: Buffer) => sealed.toString().replace('sealed:', '')),
    },
    dialog: {
      showOpenDialog: vi.fn(() => Promise.resolve({ canceled: false, filePaths: ['/picked'] })),
      showErrorBox: vi.fn(),
    },
    displays: [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
  }
  shell.current = made
  class BrowserWindow extends Emitter {
    static getAllWindows = () => made.windows
    readonly webContents = new FakeWebContents('about:blank')
    readonly options: unknown
    readonly loadURL = vi.fn(() => Promise.resolve())
    readonly show = vi.fn()
    readonly focus = vi.fn()
    readonly restore = vi.fn()
    readonly maximize = vi.fn()
    readonly isMinimized = vi.fn(() => true)
    constructor(options: unknown) {
      super()
      this.options = options
      made.windows.push(this)
    }
  }
  return {
    app: made.app,
    BrowserWindow,
    dialog: made.dialog,
    Menu: {
      buildFromTemplate: (template: unknown[]) => template,
      setApplicationMenu: (menu: unknown[]) => made.menu.push(...menu),
    },
    screen: { getAllDisplays: () => made.displays },
    session: { defaultSession: made.session },
    protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
    net: {},
    ipcMain: { handle: vi.fn(), removeHandler: vi.fn() },
    shell: { openExternal: vi.fn() },
    safeStorage: made.safeStorage,
  }
})

vi.mock('../../main/core/host/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof HostIndex>()
  return {
    ...real,
    boot: (options: unknown) => {
      booted.options.push(options)
      return booted.fail ? Promise.reject(booted.fail) : Promise.resolve(fakeHost().host)
    },
  }
})

const { appMenu, startApp } = await import('../../main/electron/app.js')

let home: string

function current(): Shell {
  if (!shell.current) throw new Error('electron was not mocked')
  return shell.current
}

/** Lets `whenReady().then(...)` and the boot run to the end. */
async function becomeReady(): Promise<void> {
  current().ready.resolve()
  await vi.waitFor(() => {
    if (current().windows.length === 0 && !booted.fail) throw new Error('no window yet')
  })
  await new Promise((resolve) => setTimeout(resolve, 0))
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-app-'))
  vi.stubEnv('BRIDLE_HOME', home)
  const s = current()
  s.app.removeAllListeners()
  s.windows.length = 0
  s.menu.length = 0
  s.ready = deferred()
  booted.options.length = 0
  booted.fail = undefined
  vi.clearAllMocks()
  s.app.requestSingleInstanceLock.mockReturnValue(true)
  s.safeStorage.getSelectedStorageBackend.mockReturnValue('gnome_libsecret')
})

afterEach(() => {
  vi.unstubAllEnvs()
  rmSync(home, { recursive: true, force: true })
})

describe('startApp', () => {
  it('turns the sandbox on for every renderer before anything else', () => {
    startApp()
    const { app } = current()
    expect(app.enableSandbox).toHaveBeenCalled()
    expect(app.enableSandbox.mock.invocationCallOrder[0]).toBeLessThan(
      app.requestSingleInstanceLock.mock.invocationCallOrder[0] ?? 0,
    )
  })

  it('quits a second instance at once, leaving the first one alone', () => {
    current().app.requestSingleInstanceLock.mockReturnValue(false)
    startApp()
    expect(current().app.quit).toHaveBeenCalled()
    expect(current().app.whenReady).not.toHaveBeenCalled()
    expect(current().app.listenerCount('second-instance')).toBe(0)
  })

  it('focuses the first window when a second instance starts', async () => {
    startApp()
    await becomeReady()
    const [window] = current().windows
    current().app.emit('second-instance')
    expect(window?.restore).toHaveBeenCalled()
    expect(window?.focus).toHaveBeenCalled()
  })

  it('denies permissions, sets the menu and boots with the folder picker and the keychain', async () => {
    startApp()
    await becomeReady()
    expect(current().session.setPermissionRequestHandler).toHaveBeenCalled()
    expect(current().session.setPermissionCheckHandler).toHaveBeenCalled()
    expect(current().menu).toEqual(appMenu(process.platform))
    const options = booted.options[0] as BootOptions
    expect(options.home).toBe(home)
    expect(options.version).toBe('1.2.3')

    expect(await options.pickFolder?.()).toBe('/picked')
    expect(current().dialog.showOpenDialog).toHaveBeenCalledWith(
      current().windows[0],
      expect.objectContaining({ properties: ['openDirectory', 'createDirectory'] }),
    )
    current().dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] })
    expect(await options.pickFolder?.()).toBeUndefined()

    const box = options.secretBox
    expect(box?.isAvailable()).toBe(true)
    expect(box?.decrypt(box.encrypt('sk-123'))).toBe('sk-123')
  })

  it('treats Linux basic_text "encryption" as no encryption', async () => {
    startApp()
    await becomeReady()
    current().safeStorage.getSelectedStorageBackend.mockReturnValue('basic_text')
    const box = (booted.options[0] as BootOptions).secretBox
    expect(box?.isAvailable()).toBe(process.platform !== 'linux')
  })

  it('opens the window where it was, when that is on a display, and remembers it', async () => {
    writeWindowState(join(home, 'window-state.json'), {
      bounds: { x: 50, y: 60, width: 1000, height: 700 },
      isMaximized: true,
    })
    startApp()
    await becomeReady()
    const [window] = current().windows
    expect(window?.options).toMatchObject({ x: 50, y: 60, width: 1000, height: 700 })
    expect(window?.listenerCount('close')).toBe(1)
  })

  it('ignores a saved position that is on no display now', async () => {
    writeWindowState(join(home, 'window-state.json'), {
      bounds: { x: 5000, y: 60, width: 1000, height: 700 },
      isMaximized: false,
    })
    startApp()
    await becomeReady()
    expect(current().windows[0]?.options).not.toHaveProperty('x')
  })

  it('says why and exits when the Host cannot boot', async () => {
    booted.fail = new Error('bridle.db was written by a newer Bridle')
    startApp()
    await becomeReady()
    await vi.waitFor(() => expect(current().app.exit).toHaveBeenCalledWith(1))
    expect(current().dialog.showErrorBox).toHaveBeenCalledWith(
      'Bridle could not start',
      'bridle.db was written by a newer Bridle',
    )
  })
})

describe('the menu', () => {
  it('is built from roles: edit, view and window everywhere, the app menu on macOS', () => {
    const roles = (platform: NodeJS.Platform) => appMenu(platform).map((item) => item.role)
    expect(roles('linux')).toEqual(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu'])
    expect(roles('win32')).toEqual(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu'])
    expect(roles('darwin')).toEqual(['appMenu', 'fileMenu', 'editMenu', 'viewMenu', 'windowMenu'])
  })
})
