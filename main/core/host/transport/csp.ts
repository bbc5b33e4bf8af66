/**
 * The Content Security Policies of the renderer, as data. Pure: no `electron` import, because the
 * serve command (main/cli) and the build config (electron.vite.config.ts) read it too, and
 * importing `electron` outside Electron tries to download its binary.
 *
 * The policy allows the app's own scripts and styles and nothing else: no inline script, no eval
 * (so an HTML injection through model output runs nothing), no remote image (so it cannot leak
 * data through an image URL), no plugins, no framing, no form posts, no `<base>` rewrite. React
 * sets styles through the CSSOM, which CSP does not govern, so `'unsafe-inline'` is not needed.
 */

type Directives = Readonly<Record<string, readonly string[]>>

const COMMON: Directives = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
}

function serialise(directives: Directives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ')
}

/**
 * The header of every `bridle://app` response in the desktop app. The renderer talks to main over
 * IPC only, so it may connect to nothing (`connect-src 'none'`).
 */
export const APP_CSP = serialise({
  ...COMMON,
  'connect-src': ["'none'"],
  'frame-ancestors': ["'none'"],
})

/**
 * The header of every `bridle serve` response. The page connects to its own bridge socket only:
 * `'self'` covers the same-origin `ws:` in current browsers, the explicit origin covers older ones.
 */
export function serveCsp(wsOrigin: string): string {
  return serialise({
    ...COMMON,
    'connect-src': ["'self'", wsOrigin],
    'frame-ancestors': ["'none'"],
  })
}

/**
 * The `<meta>` copy written into the built index.html, a fallback for a page opened some other way.
 * `frame-ancestors` is left out: browsers ignore it in a meta tag and log an error for it. Both
 * the header and the meta apply where both exist, so the stricter of each wins.
 */
export const META_CSP = serialise({ ...COMMON, 'connect-src': ["'self'"] })

/** The policy of a refusal (401/403): nothing may load or run, the page may not be framed. */
export const REFUSAL_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
