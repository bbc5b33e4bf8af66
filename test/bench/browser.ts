/**
 * What the browser benchmarks share: `bridle serve` on a prepared data folder, Debian's Chromium
 * without a frame-rate cap (so a frame's time is its work, not the display's 16.7 ms tick), and a
 * probe that moves a scroller once per animation frame and returns the frame times.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { Browser, Locator, Page } from 'playwright-core'
import { CHROMIUM_PATH } from '../../playwright.config.js'

const ROOT = join(import.meta.dirname, '..', '..')

/** Why the browser benchmarks cannot run here, or undefined when they can. */
export function browserBenchUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM_PATH))
    return `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`
  if (!existsSync(join(ROOT, 'out', 'renderer', 'index.html')))
    return 'no renderer build in out/ (npm run build)'
  return undefined
}

export interface Serve {
  readonly url: string
  stop(): void
}

/** Starts `bridle serve` on `home` with `project` open; resolves once it prints its address. */
export async function startServe(home: string, project: string): Promise<Serve> {
  const args = ['node_modules/tsx/dist/cli.mjs', 'main/cli/index.ts', 'serve', '--port', '0']
  const child = spawn(process.execPath, [...args, '--home', home, '--project', project], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /serving at (http:\/\/\S+)/.exec(output)
      if (match?.[1]) resolve(match[1])
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-frame-rate-limit',
      '--disable-gpu-vsync',
    ],
  })
}

/** How the probe moves the scroller each frame. */
export type ScrollMode =
  /** From the top to the end in `frames` even steps (a drag of the scroll bar). */
  | { readonly kind: 'sweep'; readonly frames: number }
  /**
   * `pixels` per frame (a wheel or trackpad flick, held): down from the top, or, negative, up
   * from the end. Each step moves from where the view is, as a wheel does, so a view kept in
   * place while rows are added above it is not undone by the next step.
   */
  | { readonly kind: 'wheel'; readonly frames: number; readonly pixels: number }
  /** To a random place each frame. */
  | { readonly kind: 'jump'; readonly frames: number }

/**
 * Frame times (ms) while the element matching `selector` scrolls as `mode` says, one move per
 * animation frame. The first frame's time is left out: it includes the probe's own start.
 */
export async function scrollFrameTimes(
  page: Page,
  selector: string,
  mode: ScrollMode,
): Promise<number[]> {
  const probe = `(async ({ selector, mode }) => {
    const el = document.querySelector(selector)
    // A drag and jumps hold the scroll bar, as a user's hand would (the chat draws plain rows
    // only while the user moves the view).
    const isHeld = mode.kind !== 'wheel'
    if (isHeld) el.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }))
    const times = []
    let moved = 0
    let last = performance.now()
    for (let i = 0; i <= mode.frames; i++) {
      const before = el.scrollTop
      const max = el.scrollHeight - el.clientHeight
      const start = mode.pixels < 0 ? max : 0
      el.scrollTop =
        mode.kind === 'sweep' ? (max * i) / mode.frames
        : mode.kind === 'wheel' ? (i === 0 ? start : el.scrollTop + mode.pixels)
        : Math.random() * max
      await new Promise((resolve) => requestAnimationFrame(resolve))
      if (el.scrollTop !== before) moved++
      const now = performance.now()
      if (i > 0) times.push(now - last)
      last = now
    }
    if (isHeld) window.dispatchEvent(new PointerEvent('pointerup'))
    return { times, moved }
  })(${JSON.stringify({ selector, mode })})`
  const { times, moved } = await page.evaluate<{ times: number[]; moved: number }>(probe)
  // A frame in which the view did not move has nothing to draw, and Chromium then paces frames
  // at the display's tick: timing those would measure the tick, not the app.
  if (moved < mode.frames / 2) {
    throw new Error(
      `${selector} moved in only ${moved} of ${mode.frames} frames (${mode.kind}): ` +
        'something held the view in place, so its frame times would not be scrolling',
    )
  }
  return times
}

/**
 * A fresh data folder and project that `write` fills, `bridle serve` on them, and a 1600x1000
 * page of the app for `body`; everything is stopped and removed afterwards.
 */
export async function withBenchApp<T>(
  name: string,
  write: (home: string, project: string) => void,
  body: (page: Page) => Promise<T>,
): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), `bridle-bench-${name}-`))
  // The real path: serve opens the project by it, and the sidebar lists its sessions by it.
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-bench-project-')))
  try {
    write(home, project)
    const serve = await startServe(home, project)
    const browser = await launchBrowser()
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } })
      await page.goto(serve.url)
      return await body(page)
    } finally {
      await browser.close()
      serve.stop()
    }
  } finally {
    rmSync(home, { recursive: true, force: true })
    rmSync(project, { recursive: true, force: true })
  }
}

/**
 * The session's row in the sidebar, once the app has started and listed it. The tree names a
 * session by its summary's title, which a session written straight into the log may not have
 * yet: then it is "Untitled session".
 */
export async function findSession(page: Page, title: string): Promise<Locator> {
  const row = page.getByRole('treeitem', { name: new RegExp(`^(${title}|Untitled session)`) })
  await row.first().waitFor({ timeout: 20_000 })
  return row.first()
}

/** The page's JS heap in MB after a full garbage collection (Chromium's own count, over CDP). */
export async function heapAfterGc(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page)
  try {
    await cdp.send('HeapProfiler.collectGarbage')
    const { usedSize } = await cdp.send('Runtime.getHeapUsage')
    return usedSize / 1024 / 1024
  } finally {
    await cdp.detach()
  }
}

/**
 * Scrolls the chat up until `firstText` (the history's first message) is shown, the way a user
 * holding the wheel would: each older page is read as the top nears. Returns the milliseconds
 * it took; throws past `timeoutMs`.
 */
export async function scrollChatToStart(
  page: Page,
  firstText: string,
  timeoutMs = 600_000,
): Promise<number> {
  const started = Date.now()
  const scroller = page.locator('.chat-scroll')
  await scroller.hover()
  // A wheel turned up lets go of the end; from then on the view stays where it is put.
  await page.mouse.wheel(0, -2000)
  const first = page.getByText(firstText, { exact: true })
  while ((await first.count()) === 0) {
    if (Date.now() - started > timeoutMs) throw new Error(`"${firstText}" not reached`)
    await scroller.evaluate((element: { scrollTop: number }) => {
      element.scrollTop = 0
      const frames = globalThis as unknown as { requestAnimationFrame(next: () => void): void }
      return new Promise<void>((resolve) => frames.requestAnimationFrame(resolve))
    })
  }
  return Date.now() - started
}

const JUMP_ATTEMPTS = 3
const JUMP_WAIT_MS = 10_000

/**
 * Back to the end of the chat with "Jump to latest" when it shows, else by scrolling to the end
 * (a view moved by the probe alone still follows the end, so it offers no jump); resolves once
 * a row holding `lastText` shows. If it does not show, the jump is made again, up to
 * JUMP_ATTEMPTS times, and each miss is said on the console with where the view stood: in one
 * whole-bench run of seven the row did not show within 30 s of a single jump, which lost that
 * run's figures and left no clue as to why.
 */
export async function jumpToLatest(page: Page, lastText: string): Promise<void> {
  const jump = page.getByRole('button', { name: 'Jump to latest ↓' })
  const last = page.locator('.chat-row').filter({ hasText: lastText }).last()
  const scroller = page.locator('.chat-scroll')
  for (let attempt = 1; ; attempt++) {
    if (await jump.isVisible()) await jump.click()
    else {
      await scroller.evaluate((element: { scrollTop: number; scrollHeight: number }) => {
        element.scrollTop = element.scrollHeight
      })
    }
    try {
      await last.waitFor({ timeout: JUMP_WAIT_MS })
      return
    } catch (error) {
      const where = await scroller.evaluate(
        (element: { scrollTop: number; scrollHeight: number; clientHeight: number }) =>
          `scrollTop ${Math.round(element.scrollTop)} of ${element.scrollHeight - element.clientHeight}`,
      )
      if (attempt >= JUMP_ATTEMPTS) {
        throw new Error(`jump to the latest message: "${lastText}" never showed (${where})`, {
          cause: error,
        })
      }
      console.log(
        `jump to the latest message: not shown after ${JUMP_WAIT_MS} ms (${where}); again`,
      )
    }
  }
}
