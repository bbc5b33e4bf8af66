/**
 * Keeps the page on the app when a link is clicked. Model output is rendered as markdown with
 * links, and a click on one must never replace the app with another site: a link to another
 * origin is cancelled, and only an http(s) one is opened, in a new browsing context without an
 * opener (the OS browser in Electron, whose window-open handler takes it; a new tab in a browser).
 * Any other scheme (`file:`, `javascript:`, custom app schemes) opens nothing at all.
 *
 * This is the page's own guarantee, needed in a browser, where nothing outside the page can
 * veto a navigation; in Electron, main refuses navigation and new windows as well.
 */
export function confineLinks(doc: Document, openExternal: (url: string) => void): () => void {
  const onClick = (event: MouseEvent) => {
    const anchor = linkOf(event)
    if (!anchor) return
    const target = safeUrl(anchor.href, doc.baseURI)
    if (target && target.origin === new URL(doc.baseURI).origin) return
    event.preventDefault()
    if (target && (target.protocol === 'https:' || target.protocol === 'http:')) {
      openExternal(target.href)
    }
  }
  doc.addEventListener('click', onClick, true)
  doc.addEventListener('auxclick', onClick, true)
  return () => {
    doc.removeEventListener('click', onClick, true)
    doc.removeEventListener('auxclick', onClick, true)
  }
}

function linkOf(event: MouseEvent): HTMLAnchorElement | SVGAElement | undefined {
  for (const node of event.composedPath()) {
    if (node instanceof HTMLAnchorElement && node.hasAttribute('href')) return node
    if (node instanceof SVGAElement && node.href.baseVal !== '') return node
  }
  return undefined
}

function safeUrl(href: string | SVGAnimatedString, base: string): URL | undefined {
  try {
    return new URL(typeof href === 'string' ? href : href.baseVal, base)
  } catch {
    return undefined
  }
}
