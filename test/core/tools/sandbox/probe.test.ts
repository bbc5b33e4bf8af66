/**
 * The probe, against the real bwrap and against bwraps that fail the ways users' machines do:
 * missing, not bubblewrap, user namespaces refused (a real bwrap nested in a sandbox that
 * forbids them), hanging.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { probeSandbox } from '../../../../main/core/tools/sandbox/probe.js'
import { sandboxStatus, scratch } from './helpers.js'

const status = await sandboxStatus()

/** An executable shell script at `<dir>/<name>`; returns its path. */
function script(dir: string, name: string, body: string): string {
  const path = join(dir, name)
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
  return path
}

describe('probeSandbox', () => {
  it('explains a bwrap path that does not exist, and how to fix it', async () => {
    const result = await probeSandbox({ bwrap: '/nonexistent/bin/bwrap' })
    expect(result).toEqual({
      available: false,
      why: '/nonexistent/bin/bwrap does not exist; install the bubblewrap package, e.g. apt install bubblewrap',
    })
    const onPath = await probeSandbox({ bwrap: 'bridle-no-such-bwrap' })
    expect(!onPath.available && onPath.why).toMatch(
      /not found on PATH; install the bubblewrap package/,
    )
  })

  it('explains a program that is not bubblewrap', async () => {
    const fake = script(scratch(), 'bwrap', 'echo "usage: something else" >&2; exit 2')
    const result = await probeSandbox({ bwrap: fake })
    expect(!result.available && result.why).toBe(
      `${fake} is not bubblewrap (bwrap --version said "usage: something else"); install the bubblewrap package, e.g. apt install bubblewrap`,
    )
  })
})

describe.skipIf(!status.available)('probeSandbox with a working bwrap', () => {
  it('reports it available, with its path and version, once per process', () => {
    expect(status).toMatchObject({ available: true, bwrap: expect.stringMatching(/^\/.*bwrap$/) })
    expect(status.available && status.version).toMatch(/^\d+\.\d+/)
    expect(probeSandbox()).toBe(probeSandbox())
  })

  it('names setpriv, which starts bwrap already bound to die with its parent, when it works', async () => {
    const found = await probeSandbox({ bwrap: status.available ? status.bwrap : 'bwrap' })
    const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path))
    if (setpriv === undefined) {
      console.log('setpriv (util-linux) is not installed here: only its absence is checked')
      expect(found.available && found.setpriv).toBeUndefined()
      return
    }
    expect(found.available && found.setpriv).toMatch(/\/setpriv$/)
  })

  it('quotes bwrap and names the usual cause when user namespaces are refused', async () => {
    const real = status.available ? status.bwrap : ''
    // The real bwrap, run inside a sandbox where creating a user namespace is forbidden.
    const nested = script(
      scratch(),
      'bwrap',
      `exec ${real} --unshare-user --disable-userns --ro-bind / / --dev /dev --proc /proc -- ${real} "$@"`,
    )
    const result = await probeSandbox({ bwrap: nested })
    if (result.available) throw new Error('expected the nested bwrap to be refused')
    expect(result.why).toMatch(/^bubblewrap could not create a sandbox \("bwrap: [^"]+"\): /)
    expect(result.why).toContain('kernel.unprivileged_userns_clone')
    expect(result.why).toContain('apparmor_restrict_unprivileged_userns')
  })

  it('gives up on a bwrap that hangs, and says so', async () => {
    const real = status.available ? status.bwrap : ''
    const hanging = script(
      scratch(),
      'bwrap',
      `if [ "$1" = --version ]; then exec ${real} --version; fi\nexec sleep 30`,
    )
    const started = Date.now()
    const result = await probeSandbox({ bwrap: hanging, timeoutMs: 300 })
    expect(Date.now() - started).toBeLessThan(2000)
    expect(!result.available && result.why).toBe(
      `${hanging} did not finish a test sandbox within 0.3 s; check that bwrap --ro-bind / / true returns at once in a terminal`,
    )
  })
})
