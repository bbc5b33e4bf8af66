import { describe, expect, it, vi } from 'vitest'
import { APP_CSP, META_CSP, REFUSAL_CSP, serveCsp } from '../../main/core/host/transport/csp.js'

vi.mock('electron', () => ({ net: {}, protocol: {} }))

const { resolveAppPath } = await import('../../main/electron/protocol.js')

const root = '/opt/bridle/out/renderer'

describe('the bridle:// path resolver', () => {
  it('serves files inside the renderer folder', () => {
    expect(resolveAppPath(root, 'bridle://app/index.html')).toBe(`${root}/index.html`)
    expect(resolveAppPath(root, 'bridle://app/assets/index-1.js')).toBe(`${root}/assets/index-1.js`)
    expect(resolveAppPath(root, 'bridle://app/')).toBe(root)
  })

  it('never resolves outside the folder, however the path is encoded', () => {
    for (const url of [
      'bridle://app/../../etc/passwd',
      'bridle://app/%2e%2e/%2e%2e/etc/passwd',
      'bridle://app/..%2f..%2f..%2fetc%2fpasswd',
      'bridle://app/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret',
      'bridle://app/..\\..\\etc\\passwd',
      'bridle://app//etc/passwd',
    ]) {
      const file = resolveAppPath(root, url)
      expect(file === undefined || file.startsWith(`${root}/`), `${url} -> ${String(file)}`).toBe(
        true,
      )
    }
  })

  it('refuses another host, another scheme, NUL and malformed escapes', () => {
    for (const url of [
      'bridle://app/%00index.html',
      'bridle://app/%E0%A4%A',
      'bridle://evil/index.html',
      'bridle://app.evil/index.html',
      'file:///etc/passwd',
    ]) {
      expect(resolveAppPath(root, url), url).toBeUndefined()
    }
  })
})

describe('the content security policies', () => {
  const directives = (csp: string) =>
    new Map(
      csp.split(';').map((part) => {
        const [name = '', ...sources] = part.trim().split(/\s+/)
        return [name, sources.join(' ')] as const
      }),
    )

  it('allow no remote script, no inline script, no eval, anywhere', () => {
    for (const csp of [APP_CSP, META_CSP, serveCsp('ws://127.0.0.1:7420'), REFUSAL_CSP]) {
      expect(csp).not.toMatch(/unsafe-|\*|https?:|blob:/)
      expect(directives(csp).get('default-src')).toBe("'none'")
      expect(directives(csp).get('base-uri')).toBe("'none'")
      expect(directives(csp).get('form-action')).toBe("'none'")
    }
  })

  it('let the app connect to nothing, the served page to its own bridge only', () => {
    expect(directives(APP_CSP).get('connect-src')).toBe("'none'")
    expect(directives(serveCsp('ws://127.0.0.1:7420')).get('connect-src')).toBe(
      "'self' ws://127.0.0.1:7420",
    )
  })

  it('forbid framing in headers; the meta copy leaves out what a meta cannot carry', () => {
    expect(directives(APP_CSP).get('frame-ancestors')).toBe("'none'")
    expect(directives(serveCsp('ws://x')).get('frame-ancestors')).toBe("'none'")
    expect(directives(META_CSP).has('frame-ancestors')).toBe(false)
  })
})
