import { stat } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { net, protocol } from 'electron'
import { APP_CSP } from '../core/host/transport/csp.js'

export { APP_CSP } from '../core/host/transport/csp.js'

/** The app's own origin. The renderer is served from here, so checks can compare origins. */
export const APP_SCHEME = 'bridle'
export const APP_ORIGIN = `${APP_SCHEME}://app`

/**
 * Must run before `app.whenReady()`. Standard and secure so the page gets a real origin and a
 * secure context; never `bypassCSP`, so the policy below always applies.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ])
}

/**
 * The file a `bridle://app/<path>` URL names inside `rendererDir`; 'index' for a route without a
 * file extension (client routing); undefined for anything else: another host, a path that is
 * malformed or normalises outside the folder (`..`, `%2e%2e`, encoded slashes, backslashes), NUL.
 */
export function resolveAppPath(rendererDir: string, requestUrl: string): string | undefined {
  let url: URL
  let pathname: string
  try {
    url = new URL(requestUrl)
    pathname = decodeURIComponent(url.pathname)
  } catch {
    return undefined
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== 'app' || pathname.includes('\0')) {
    return undefined
  }
  const relative = normalize(pathname).replace(/^([/\\])+/, '')
  const file = join(rendererDir, relative)
  if (file !== rendererDir && !file.startsWith(rendererDir + sep)) return undefined
  return file
}

function notFound(): Response {
  return new Response(null, { status: 404, headers: { 'Content-Security-Policy': APP_CSP } })
}

/**
 * Serves `bridle://app/<path>` from the built renderer folder, every response with the app's CSP.
 * A path outside the folder is a 404; unknown routes fall back to index.html.
 */
export function serveAppScheme(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    let file = resolveAppPath(rendererDir, request.url)
    if (file === undefined) return notFound()
    const info = await stat(file).catch(() => undefined)
    if (!info?.isFile()) {
      if (extname(file.slice(rendererDir.length)) !== '') return notFound()
      file = join(rendererDir, 'index.html')
    }
    const response = await net.fetch(pathToFileURL(file).toString())
    const headers = new Headers(response.headers)
    headers.set('Content-Security-Policy', APP_CSP)
    headers.set('X-Content-Type-Options', 'nosniff')
    return new Response(response.body, { status: response.status, headers })
  })
}
