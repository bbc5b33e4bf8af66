/**
 * The browser globals that page-side code of the e2e tests uses, typed narrowly: these tests
 * compile with the Node tsconfig, which has no DOM lib (and must not, or main/ could use it).
 * Code passed to `page.evaluate` is serialised, so each callback casts `globalThis` itself:
 * `const w = globalThis as unknown as PageGlobals`.
 */
export interface ProbeElement {
  id: string
  href: string
  textContent: string | null
  innerHTML: string
  method: string
  action: string
  append(...nodes: ProbeElement[]): void
  remove(): void
  submit(): void
}

export interface PageGlobals {
  readonly document: {
    readonly body: ProbeElement
    createElement(tag: string): ProbeElement
    getElementById(id: string): ProbeElement | null
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { effectiveDirective: string; blockedURI: string }) => void,
    ): void
  }
  readonly opener: unknown
  readonly location: { href: string }
  open(url: string, target?: string, features?: string): unknown
  /** A string timer: compiled as page script when it fires, so the CSP's eval rule applies. */
  setTimeout(code: string, ms: number): number
  /** Set by injected code if it ever runs. */
  __ran?: string
  /** CSP violations seen by the page, recorded by an init script. */
  __violations?: string[]
}
