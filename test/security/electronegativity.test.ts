import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { electronVersion, judge, loadRunner, scan } from './electronegativity.js'

/**
 * Proves the gate guards: the same runner and verdict as `npm run test:security`, on small apps
 * written here, one insecure, one like ours, one that does not parse.
 */

const INSECURE_MAIN = `
const { app, BrowserWindow } = require('electron')
app.whenReady().then(() => {
  const win = new BrowserWindow({
    webPreferences: { nodeIntegration: true, contextIsolation: false, webSecurity: false },
  })
  win.loadURL('http://example.com/')
})
`

const HARDENED_MAIN = `
const { app, BrowserWindow, session, shell } = require('electron')
app.whenReady().then(() => {
  session.defaultSession.setPermissionRequestHandler((_c, _p, decide) => decide(false))
  const win = new BrowserWindow({
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      disableBlinkFeatures: 'Auxclick',
    },
  })
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.loadURL('bridle://app/index.html')
})
`

const HARDENED_HTML = `<!doctype html><html><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'">
</head><body></body></html>`

let dir: string
const run = loadRunner()

/** Writes a small app into its own folder and returns the folder. */
function app(name: string, files: Record<string, string>): string {
  const root = join(dir, name)
  mkdirSync(root, { recursive: true })
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, file), text)
  return root
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-eng-'))
  vi.spyOn(console, 'log').mockImplementation(() => undefined)
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  vi.restoreAllMocks()
})

describe('the electronegativity gate', () => {
  it('fails an app without isolation, web security or navigation limits', async () => {
    const result = await scan(run, app('insecure', { 'main.js': INSECURE_MAIN }), '45.5.0')
    const { failures } = judge([result])
    const ids = failures.join('\n')
    expect(ids).toContain('HIGH/FIRM CONTEXT_ISOLATION_JS_CHECK')
    expect(ids).toContain('HIGH/CERTAIN LIMIT_NAVIGATION_GLOBAL_CHECK')
    // MEDIUM with firm confidence fails too: webSecurity: false is MEDIUM to the tool.
    expect(ids).toContain('MEDIUM/CERTAIN WEB_SECURITY_JS_CHECK')
  })

  it('passes an app hardened like ours', async () => {
    const root = app('hardened', { 'main.js': HARDENED_MAIN, 'index.html': HARDENED_HTML })
    const { failures, lines } = judge([await scan(run, root, '45.5.0')])
    expect(failures).toEqual([])
    // It did read the files: the CSP it found is listed for review.
    expect(lines.join('\n')).toContain('CSP_GLOBAL_CHECK index.html')
  })

  it('fails a file it cannot parse rather than skipping it', async () => {
    const root = app('broken', {
      // What an ESM bundle looks like when a shim and a module both declare `require`.
      'main.js': `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\nvar require = createRequire(import.meta.url)\n`,
    })
    const { failures } = judge([await scan(run, root, '45.5.0')])
    expect(failures.join('\n')).toMatch(/parse ERROR .*main\.js/)
  })

  it('reads the pinned Electron version from package.json', () => {
    const pkg = join(dir, 'package.json')
    writeFileSync(pkg, JSON.stringify({ devDependencies: { electron: '45.5.0' } }))
    expect(electronVersion(pkg)).toBe('45.5.0')
    writeFileSync(pkg, JSON.stringify({ devDependencies: {} }))
    expect(() => electronVersion(pkg)).toThrow('no pinned electron version')
  })
})
