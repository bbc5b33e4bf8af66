import { EventEmitter } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserWindow } from 'electron'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  readWindowState,
  rememberWindowState,
  visibleState,
  windowStatePath,
  writeWindowState,
} from '../../main/electron/window-state.js'
import type { WindowState } from '../../main/electron/window-state.js'

let home: string
let file: string

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-window-'))
  file = windowStatePath(home)
})

afterEach(() => {
  rmSync(home, { recursive: true, force: true })
  vi.restoreAllMocks()
})

const saved: WindowState = {
  bounds: { x: 100, y: 80, width: 1200, height: 800 },
  isMaximized: false,
}
const laptop = { x: 0, y: 0, width: 1440, height: 900 }
const rightMonitor = { x: 1440, y: 0, width: 2560, height: 1440 }

describe('window state', () => {
  it('is written atomically as JSON in the data folder and read back', () => {
    writeWindowState(file, saved)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(saved)
    expect(readWindowState(file)).toEqual(saved)
    // No temp file is left beside it.
    expect(readdirSync(home)).toEqual(['window-state.json'])
  })

  it('is ignored when missing, corrupt or not ours', () => {
    expect(readWindowState(file)).toBeUndefined()
    writeFileSync(file, '{"bounds": {"x": 1')
    expect(readWindowState(file)).toBeUndefined()
    writeFileSync(file, JSON.stringify({ bounds: { x: 0, y: 0, width: 5, height: 5 } }))
    expect(readWindowState(file)).toBeUndefined()
  })

  it('is restored only when the window would be visible on a display', () => {
    expect(visibleState(saved, [laptop])).toEqual(saved)
    const onRight = { ...saved, bounds: { x: 2000, y: 100, width: 1200, height: 800 } }
    expect(visibleState(onRight, [laptop, rightMonitor])).toEqual(onRight)
    // The right monitor was unplugged: the defaults apply.
    expect(visibleState(onRight, [laptop])).toBeUndefined()
    // A sliver on screen is not enough to grab the window.
    const sliver = { ...saved, bounds: { x: 1430, y: 100, width: 1200, height: 800 } }
    expect(visibleState(sliver, [laptop])).toBeUndefined()
    expect(visibleState(undefined, [laptop])).toBeUndefined()
  })

  it('is saved when the window closes: normal bounds and maximised', () => {
    const window = Object.assign(new EventEmitter(), {
      getNormalBounds: () => ({ x: 10.4, y: 20, width: 1000, height: 700.6 }),
      isMaximized: () => true,
    })
    rememberWindowState(window as unknown as BrowserWindow, file)
    window.emit('close')
    expect(readWindowState(file)).toEqual({
      bounds: { x: 10, y: 20, width: 1000, height: 701 },
      isMaximized: true,
    })
  })

  it('does not stop the window closing when it cannot be saved', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const window = Object.assign(new EventEmitter(), {
      getNormalBounds: () => saved.bounds,
      isMaximized: () => false,
    })
    rememberWindowState(window as unknown as BrowserWindow, join(home, 'missing', 'state.json'))
    expect(() => window.emit('close')).not.toThrow()
    expect(error).toHaveBeenCalled()
  })
})
