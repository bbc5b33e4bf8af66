import { stat } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { net, protocol } from 'electron'

/** The app's own origin. The renderer is served from here, so checks can compare origins. */
export const APP_SCHEME = 'bridle'
export const APP_ORIGIN = `${APP_SCHEME}://app`

/** The window may load only its own scripts and styles, and talk to nobody. */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Must run before `app.whenReady()`. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ])
}

/**
 * Serves `bridle://app/<path>` from the built renderer folder. A path that normalises outside
 * the folder is a 404; unknown routes fall back to index.html.
 */
export function serveAppScheme(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url)
    if (url.host !== 'app') return new Response(null, { status: 404 })
    const relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '')
    let file = join(rendererDir, relative)
    if (file !== rendererDir && !file.startsWith(rendererDir + sep)) {
      return new Response(null, { status: 404 })
    }
    const info = await stat(file).catch(() => undefined)
    if (!info?.isFile()) {
      if (extname(relative) !== '') return new Response(null, { status: 404 })
      file = join(rendererDir, 'index.html')
    }
    const response = await net.fetch(pathToFileURL(file).toString())
    const headers = new Headers(response.headers)
    headers.set('Content-Security-Policy', APP_CSP)
    headers.set('X-Content-Type-Options', 'nosniff')
    return new Response(response.body, { status: response.status, headers })
  })
}
