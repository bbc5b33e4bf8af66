/**
 * URL checks of the desktop shell, pure so they can be tested without Electron. URLs are compared
 * parsed, never with `startsWith` (`bridle://app.evil` must not pass for `bridle://app`).
 */

/** The schemes the app itself is served from: its own in a build, http(s) for the dev server. */
const APP_SCHEMES = new Set(['bridle:', 'http:', 'https:'])

/**
 * The origin of a page of the app, or undefined when `url` cannot be one. Node's `URL.origin` is
 * the string "null" for every non-special scheme (`bridle:`, `data:`, `file:`, `javascript:`),
 * so comparing `.origin` alone would make all of those "the same origin"; this builds the origin
 * from the scheme and host and refuses anything without a host.
 */
export function appOrigin(url: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if (!APP_SCHEMES.has(parsed.protocol) || parsed.host === '') return undefined
  return `${parsed.protocol}//${parsed.host}`
}

/** True when `url` is a page of the app: the same scheme, host and port as `appUrl`. */
export function isAppUrl(url: string, appUrl: string): boolean {
  const origin = appOrigin(url)
  return origin !== undefined && origin === appOrigin(appUrl)
}

/**
 * The URL to hand to the OS browser, or undefined. Only http(s): `file:` would open local files,
 * custom schemes would launch other apps with attacker-chosen arguments, `javascript:` and
 * `data:` mean nothing outside a page.
 */
export function externalWebUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined
  } catch {
    return undefined
  }
}
