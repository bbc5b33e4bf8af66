/**
 * The serve cookie is not bound to its port: Chromium sends it to every port of 127.0.0.1. This
 * file performs the attack for real: `bridle serve` runs as a child process, Chromium opens it
 * (and gets the cookie), then visits a server on another port, which receives the cookie and
 * tries to take over the bridge to change the settings and run a command through an MCP
 * restart: from its own page (no secret, a guessed one, one of another serve, the captured cookie
 * value) and from Node (the captured cookie replayed with the serve's own Origin, another Origin
 * or none, even with the page's real secret under a foreign Origin). Every attempt is refused;
 * the settings file and a sentinel tree outside the project are hashed before and after; the
 * real page keeps working.
 */
import { createHash } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createServer, request } from 'node:http'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'
import WebSocket from 'ws'
import { PAGE_SECRET_PROTOCOL_PREFIX } from '../../protocol/contract'
import { callFromPage, pageProtocols } from './page-bridge'
import { startServeProcess } from './serve-process'
import type { ServeProcess } from './serve-process'

let serve: ServeProcess
/** Started by the test that attacks; closed after all. */
let other: Attacker | undefined
/** A HOME-like folder outside any project; the attack's command would write `pwned` into it. */
let sentinel: string
let marker: string

/** What the attacker sends once a socket opens: add a server that writes the marker, start it. */
function attackCalls(): object[] {
  const write = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`
  return [
    {
      id: 1,
      method: 'settings/update',
      params: {
        config: { mcpServers: { evil: { command: process.execPath, args: ['-e', write] } } },
      },
    },
    { id: 2, method: 'mcp/restart', params: { projectDir: sentinel, name: 'evil' } },
  ]
}

/** The server on another port: records the headers it gets and serves the attack page. */
interface Attacker {
  readonly origin: string
  readonly seen: IncomingHttpHeaders[]
  /** Resolves with what the attack page reported. */
  readonly report: Promise<Record<string, string>>
  close(): Promise<void>
}

/** The attack page's script: each try opens the bridge and, if it opens, sends the calls. */
function attackScript(bridgeUrl: string, tries: Record<string, string[]>, calls: object[]): string {
  return `
const tries = ${JSON.stringify(tries)}
const calls = ${JSON.stringify(calls)}
const attempt = (protocols) => new Promise((resolve) => {
  let ws
  try { ws = new WebSocket(${JSON.stringify(bridgeUrl)}, protocols) } catch (e) { resolve('threw: ' + e.name); return }
  ws.onopen = () => { for (const call of calls) ws.send(JSON.stringify(call)); setTimeout(() => resolve('open'), 1500) }
  ws.onerror = () => resolve('refused')
})
const results = {}
for (const [name, protocols] of Object.entries(tries)) results[name] = await attempt(protocols)
results.readPage = await fetch(${JSON.stringify(bridgeUrl.replace(/^ws/, 'http').replace(/\/bridge$/, '/'))}, { credentials: 'include' })
  .then((r) => r.text().then(() => 'read'), (e) => 'blocked: ' + e.name)
await fetch('/report', { method: 'POST', body: JSON.stringify(results) })
`
}

async function startAttacker(
  serveOrigin: string,
  tries: Record<string, string[]>,
): Promise<Attacker> {
  const seen: IncomingHttpHeaders[] = []
  let reported: (value: Record<string, string>) => void = () => undefined
  const report = new Promise<Record<string, string>>((resolve) => (reported = resolve))
  const bridgeUrl = `${serveOrigin.replace('http', 'ws')}/bridge`
  const server: Server = createServer((req, res) => {
    seen.push(req.headers)
    if (req.url === '/report') {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        reported(JSON.parse(body) as Record<string, string>)
        res.writeHead(204).end()
      })
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/html' })
    res.end(
      `<!doctype html><title>elsewhere</title><script type="module">${attackScript(bridgeUrl, tries, attackCalls())}</script>`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    report,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** sha256 of every file under `dir`, by relative path. */
function hashTree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = join(prefix, entry.name)
    if (entry.isDirectory()) Object.assign(out, hashTree(dir, rel))
    else
      out[rel] = createHash('sha256')
        .update(readFileSync(join(dir, rel)))
        .digest('hex')
  }
  return out
}

const settingsFile = () => join(serve.home, 'config.json')
const snapshot = () => ({
  settings: createHash('sha256').update(readFileSync(settingsFile())).digest('hex'),
  sentinel: hashTree(sentinel),
})

/** Replays from Node: 'open' (after sending the attack calls) or the refusal's HTTP status. */
function replay(
  headers: Record<string, string>,
  protocols: string[] = [],
): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}/bridge`, protocols, { headers })
    ws.once('open', () => {
      for (const call of attackCalls()) ws.send(JSON.stringify(call))
      setTimeout(() => {
        ws.close()
        resolve('open')
      }, 1500)
    })
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.once('error', reject)
  })
}

/** A plain GET from Node with the given headers: status, headers, body. */
function get(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
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

/** A page secret issued by another serve process (admitted there with its token): real, not ours. */
async function secretOfAnotherServe(): Promise<string> {
  const elsewhere = await startServeProcess()
  try {
    const location = await new Promise<string>((resolve, reject) => {
      request(`${elsewhere.origin}/?token=${elsewhere.token}`, (res) => {
        res.resume()
        resolve(String(res.headers.location))
      })
        .on('error', reject)
        .end()
    })
    return location.split('=')[1] ?? ''
  } finally {
    await elsewhere.stop()
  }
}

test.beforeAll(async () => {
  sentinel = mkdtempSync(join(tmpdir(), 'bridle-e2e-sentinel-home-'))
  mkdirSync(join(sentinel, '.ssh'))
  writeFileSync(join(sentinel, '.ssh', 'id_ed25519'), 'not a real key\n')
  writeFileSync(join(sentinel, '.bashrc'), 'export PS1=sentinel\n')
  marker = join(sentinel, 'pwned')
  serve = await startServeProcess([], {}, {})
})

test.afterAll(async () => {
  await other?.close()
  await serve.stop()
  rmSync(sentinel, { recursive: true, force: true })
})

test('a server on another port gets the cookie but cannot use the bridge with it', async ({
  browser,
}) => {
  test.setTimeout(60_000)
  const before = snapshot()
  const context = await browser.newContext()
  const app = await context.newPage()
  await app.goto(serve.url)
  await expect(app.getByRole('main', { name: 'Chat' })).toBeVisible()
  // The page secret left the address bar; the page holds it.
  expect(app.url()).toBe(`${serve.origin}/`)
  const [ownProtocol = ''] = await pageProtocols(app)
  const ownSecret = ownProtocol.slice(PAGE_SECRET_PROTOCOL_PREFIX.length)
  expect(ownSecret).toMatch(/^[\w-]{43}$/)

  const foreign = await secretOfAnotherServe()
  expect(foreign).toMatch(/^[\w-]{43}$/)

  const cookies = await context.cookies(serve.origin)
  const cookieValue = cookies[0]?.value ?? ''
  const guess = (secret: string) => [PAGE_SECRET_PROTOCOL_PREFIX + secret]
  const attacker = await startAttacker(serve.origin, {
    noSecret: [],
    guessed: guess('A'.repeat(43)),
    foreignServe: guess(foreign),
    cookieValue: guess(cookieValue),
  })
  other = attacker
  const attackPage = await context.newPage()
  await attackPage.goto(`${attacker.origin}/`)
  const fromPage = await attacker.report

  // (a) The browser did send our cookie to the other port.
  const captured = attacker.seen[0]?.cookie ?? ''
  expect(captured).toContain(`${cookies[0]?.name ?? '?'}=${cookieValue}`)
  const cookie = captured
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith('bridle_token_'))
  expect(cookie).toBeDefined()

  // (b) Its page: every socket refused, our page unreadable (no CORS header lets it).
  expect(fromPage).toEqual({
    noSecret: 'refused',
    guessed: 'refused',
    foreignServe: 'refused',
    cookieValue: 'refused',
    readPage: 'blocked: TypeError',
  })

  // From Node with the captured cookie: the cookie buys the files, which hold no secret...
  const html = await get('/', { Cookie: cookie ?? '', Origin: attacker.origin })
  expect(html.status).toBe(200)
  expect(html.body).not.toContain(ownSecret)
  expect(Object.keys(html.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  // ...and trading the cookie value as the token buys no admission (no fresh page secret).
  const traded = await get(`/?token=${cookieValue}`, { Cookie: cookie ?? '' })
  expect(traded.status).toBe(401)
  expect(traded.headers.location).toBeUndefined()
  // The socket: own Origin forged, no Origin, another Origin, guessed or foreign secrets.
  const withCookie = { Cookie: cookie ?? '' }
  expect(await replay({ ...withCookie, Origin: serve.origin })).toBe(401)
  expect(await replay(withCookie)).toBe(401)
  expect(await replay({ ...withCookie, Origin: attacker.origin })).toBe(403)
  expect(await replay({ ...withCookie, Origin: serve.origin }, guess('A'.repeat(43)))).toBe(401)
  expect(await replay({ ...withCookie, Origin: serve.origin }, guess(foreign))).toBe(401)
  expect(await replay({ ...withCookie, Origin: serve.origin }, guess(cookieValue))).toBe(401)
  // Even the page's real secret is refused under another Origin, or with no Origin.
  expect(await replay({ ...withCookie, Origin: attacker.origin }, guess(ownSecret))).toBe(403)
  expect(await replay(withCookie, guess(ownSecret))).toBe(401)

  // Nothing changed: no settings written, no command ran, the sentinel tree is as it was.
  expect(existsSync(marker)).toBe(false)
  expect(snapshot()).toEqual(before)
  expect(readFileSync(settingsFile(), 'utf8')).not.toContain('evil')

  // The real page still works: a call over its own socket and a reload that reconnects.
  const info = (await callFromPage(app, serve.origin, 'settings/get', {})) as { ok: boolean }
  expect(info.ok).toBe(true)
  await app.reload()
  await expect(app.getByRole('main', { name: 'Chat' })).toBeVisible()
  expect(((await callFromPage(app, serve.origin, 'app/info', {})) as { ok: boolean }).ok).toBe(true)
  await context.close()
})

test('a tab opened without the token gets the files but no bridge, and says what to open', async ({
  browser,
}) => {
  const context = await browser.newContext()
  const admitted = await context.newPage()
  await admitted.goto(serve.url)
  await expect(admitted.getByRole('main', { name: 'Chat' })).toBeVisible()
  // Same browser, same cookie, a new tab on the bare address: no page secret in this tab.
  const bare = await context.newPage()
  await bare.goto(`${serve.origin}/`)
  await expect(bare.getByText('open the full address that `bridle serve` printed')).toBeVisible()
  await context.close()
})
