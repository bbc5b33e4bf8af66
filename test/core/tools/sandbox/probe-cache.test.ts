/**
 * The probe remembered between runs (`cacheFile`): a later start skips the test sandbox only
 * while the binaries and the machine are unchanged, trusts no file others can write, never
 * remembers a failure, and a remembered sandbox that no longer starts is probed again and the
 * command's result says so. Each "run" is a fresh copy of the modules, as a new process has.
 */
import { appendFileSync, chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { BashSandbox } from '../../../../main/core/tools/builtin/bash-sandbox.js'
import { sandboxStatus, scratch } from './helpers.js'

const status = await sandboxStatus()
const realBwrap = status.available ? status.bwrap : ''

/** The probe and the bash tool as a new process loads them (nothing probed yet). */
async function freshRun() {
  vi.resetModules()
  const probe = await import('../../../../main/core/tools/sandbox/probe.js')
  const bash = await import('../../../../main/core/tools/builtin/bash.js')
  return { probeSandbox: probe.probeSandbox, bashTool: bash.bashTool }
}

/**
 * A bwrap that logs each start to `calls` and runs the real one, or, once `broken` exists,
 * fails the way bwrap does where user namespaces are refused.
 */
function countingBwrap(dir: string) {
  const path = join(dir, 'bwrap')
  const calls = join(dir, 'calls')
  const broken = join(dir, 'broken')
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo "$1" >> ${calls}`,
      `if [ -e ${broken} ] && [ "$1" != --version ]; then`,
      '  echo "bwrap: setting up uid map: Permission denied" >&2',
      '  exit 1',
      'fi',
      `exec ${realBwrap} "$@"`,
      '',
    ].join('\n'),
  )
  chmodSync(path, 0o755)
  return {
    path,
    broken,
    starts: () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').length - 1 : 0),
  }
}

describe('the probe remembered between runs', () => {
  it('never remembers a failure', async () => {
    const dir = scratch()
    const fake = join(dir, 'bwrap')
    writeFileSync(fake, '#!/bin/sh\necho "usage: something else" >&2\nexit 2\n')
    chmodSync(fake, 0o755)
    const cacheFile = join(dir, 'cache', 'sandbox-probe.json')
    const { probeSandbox } = await freshRun()
    expect((await probeSandbox({ bwrap: fake, cacheFile })).available).toBe(false)
    expect(existsSync(cacheFile)).toBe(false)
  })
})

describe.skipIf(!status.available)(
  'the probe remembered between runs, with a working bwrap',
  () => {
    it('skips the test sandbox in a later run, until the binary changes', async () => {
      const dir = scratch()
      const bwrap = countingBwrap(dir)
      const cacheFile = join(dir, 'cache', 'sandbox-probe.json')

      const first = await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      expect(first).toMatchObject({ available: true, bwrap: bwrap.path })
      expect(first.available && first.isCached).toBeUndefined()
      expect(bwrap.starts()).toBe(2) // --version, then the test sandbox
      expect(statSync(cacheFile).mode & 0o777).toBe(0o600)
      expect(statSync(join(dir, 'cache')).mode & 0o777).toBe(0o700)

      const later = await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      expect(later).toEqual({ ...first, isCached: true })
      expect(bwrap.starts()).toBe(2)

      appendFileSync(bwrap.path, '# changed\n')
      const changed = await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      expect(changed.available && changed.isCached).toBeUndefined()
      expect(bwrap.starts()).toBe(4)
    })

    it('trusts no file that others can write', async () => {
      const dir = scratch()
      const bwrap = countingBwrap(dir)
      const cacheFile = join(dir, 'cache', 'sandbox-probe.json')
      await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      chmodSync(cacheFile, 0o666)
      const later = await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      expect(later.available && later.isCached).toBeUndefined()
      expect(bwrap.starts()).toBe(4)
    })

    it('probes again when a remembered sandbox fails to start, and the result says so', async () => {
      const dir = scratch()
      const project = scratch()
      const bwrap = countingBwrap(dir)
      const cacheFile = join(dir, 'cache', 'sandbox-probe.json')
      await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      writeFileSync(bwrap.broken, '')

      const { bashTool, probeSandbox } = await freshRun()
      const sandbox: BashSandbox = {
        mode: 'auto',
        hide: [],
        bwrap: bwrap.path,
        probeCache: cacheFile,
      }
      const tool = bashTool({ sandbox })
      const context = {
        projectDir: project,
        signal: new AbortController().signal,
        beforeWrite: () => undefined,
      }
      const failed = await tool.run(tool.schema.parse({ command: 'echo hi' }), context)
      expect(failed.metadata).toMatchObject({ exitCode: 1, sandboxed: true })
      expect(failed.output).toContain(
        '[the sandbox that worked in an earlier run did not start; tested again: bubblewrap could not create a sandbox ("bwrap: setting up uid map: Permission denied")',
      )
      expect(failed.output).toContain(
        'The command did not run; commands run without a sandbox from now on',
      )
      // The new answer holds for this run and the next: nothing remembered says it works.
      expect((await probeSandbox({ bwrap: bwrap.path, cacheFile })).available).toBe(false)
      const next = await tool.run(tool.schema.parse({ command: 'echo hi' }), context)
      expect(next).toMatchObject({ output: 'hi\n', metadata: { exitCode: 0, sandboxed: false } })
      const later = await (await freshRun()).probeSandbox({ bwrap: bwrap.path, cacheFile })
      expect(later.available).toBe(false)
    })
  },
)
