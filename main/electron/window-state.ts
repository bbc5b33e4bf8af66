import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserWindow, Rectangle } from 'electron'
import { z } from 'zod'
import { writeFileAtomic } from '../core/host/files.js'

/** Where the window was when it last closed: a small file in the data folder. */
export const WINDOW_STATE_FILE = 'window-state.json'

const Bounds = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().min(100).max(100_000),
  height: z.number().int().min(100).max(100_000),
})

export const WindowState = z.object({ bounds: Bounds, isMaximized: z.boolean() })
export type WindowState = z.infer<typeof WindowState>

/** How much of the window must lie on one display for it to count as visible there. */
const MIN_VISIBLE = { width: 120, height: 60 }

export function windowStatePath(home: string): string {
  return join(home, WINDOW_STATE_FILE)
}

/** The saved state, or undefined when there is none or it is not ours (then defaults apply). */
export function readWindowState(file: string): WindowState | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  try {
    const parsed = WindowState.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

function overlap(a: Rectangle, b: Rectangle): { width: number; height: number } {
  return {
    width: Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x),
    height: Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y),
  }
}

/**
 * The saved state if the window would be visible on one of today's displays, else undefined. A
 * monitor unplugged since the last run must not leave the window off screen where nobody can
 * reach it; the defaults (centred on the primary display) are better.
 */
export function visibleState(
  state: WindowState | undefined,
  workAreas: readonly Rectangle[],
): WindowState | undefined {
  if (!state) return undefined
  const isVisible = workAreas.some((area) => {
    const shared = overlap(state.bounds, area)
    return shared.width >= MIN_VISIBLE.width && shared.height >= MIN_VISIBLE.height
  })
  return isVisible ? state : undefined
}

/** Writes the state atomically: a crash mid-write leaves the old file, never half a file. */
export function writeWindowState(file: string, state: WindowState): void {
  writeFileAtomic(file, [`${JSON.stringify(state, null, 2)}\n`])
}

/**
 * Saves the window's normal (unmaximised) bounds and whether it is maximised when it closes.
 * A failed write is reported and ignored: losing the position must not stop the app quitting.
 */
export function rememberWindowState(window: BrowserWindow, file: string): void {
  window.on('close', () => {
    const { x, y, width, height } = window.getNormalBounds()
    const bounds = {
      x: Math.round(x),
      y: Math.round(y),
      width: Math.round(width),
      height: Math.round(height),
    }
    const parsed = WindowState.safeParse({ bounds, isMaximized: window.isMaximized() })
    if (!parsed.success) return
    try {
      writeWindowState(file, parsed.data)
    } catch (error) {
      console.error('[bridle] could not save the window position:', error)
    }
  })
}
