import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
}

/**
 * Headers of every response of `bridle serve`, refusals included. Beside the CSP: no framing
 * for old browsers either, no MIME sniffing, no Referer, nothing cached (the token rotates per
 * run), a window of another origin keeps no handle on ours and ours none on it (COOP), no other
 * origin may embed our files even though the browser sends it our cookie (CORP), and no
 * powerful feature may be asked for (the browser's deny-by-default permission handler).
 */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=()',
  }
}

/**
 * Serves the built renderer from `root` with the given CSP. Only GET/HEAD, only files inside `root` (a path that
 * normalises outside it is a 404), unknown paths fall back to index.html for client routing.
 */
export async function serveStatic(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  csp: string,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...securityHeaders(csp), Allow: 'GET, HEAD' }).end()
    return
  }
  let pathname: string
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
  } catch {
    res.writeHead(400, securityHeaders(csp)).end()
    return
  }
  if (pathname.includes('\0')) {
    res.writeHead(404, securityHeaders(csp)).end()
    return
  }
  const relative = normalize(pathname).replace(/^([/\\])+/, '')
  let file = join(root, relative)
  if (file !== root && !file.startsWith(root + sep)) {
    res.writeHead(404, securityHeaders(csp)).end()
    return
  }
  let info = await stat(file).catch(() => undefined)
  if (!info?.isFile()) {
    if (extname(relative) !== '') {
      res.writeHead(404, securityHeaders(csp)).end()
      return
    }
    file = join(root, 'index.html')
    info = await stat(file).catch(() => undefined)
    if (!info?.isFile()) {
      res.writeHead(503, { ...securityHeaders(csp), 'Content-Type': 'text/plain; charset=utf-8' })
      res.end('The renderer is not built. Run `npm run build`, then start `bridle serve` again.\n')
      return
    }
  }
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    ...securityHeaders(csp),
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  createReadStream(file).pipe(res)
}
