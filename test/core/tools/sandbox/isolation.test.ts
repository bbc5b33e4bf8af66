/**
 * What a sandboxed command cannot reach besides files: the network (unless allowed) and the
 * harness's own environment. And what it still can do: build and test a small project.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { toolEnvironment } from '../../../../main/core/tools/builtin/env.js'
import { sandboxCommand } from '../../../../main/core/tools/sandbox/bwrap.js'
import { runParent } from './child.js'
import { runSandboxed, sandboxStatus, scratch, writeTree } from './helpers.js'

const status = await sandboxStatus()
const bwrap = status.available ? status.bwrap : ''
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** An HTTP server on 127.0.0.1 answering `token`; resolves with its port. */
async function serve(token: string): Promise<number> {
  const server = createServer((_req, res) => res.end(token))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve())))
  return (server.address() as AddressInfo).port
}

/** bash's /dev/tcp: an HTTP GET without curl or Node. */
const get = (port: number) =>
  `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`

describe.skipIf(!status.available)('sandbox isolation', () => {
  it('cuts the network off, and shares it when allowed', async () => {
    const token = `served-${randomBytes(6).toString('hex')}`
    const port = await serve(token)
    const projectDir = scratch()
    const cut = await runSandboxed(`${get(port)}; tail -n +3 /proc/net/dev | cut -d: -f1`, {
      bwrap,
      projectDir,
    })
    expect(cut.output).not.toContain(token)
    expect(cut.output).toContain('Connection refused')
    expect(cut.output.trim().split('\n').at(-1)?.trim()).toBe('lo') // the only interface
    const node = await runSandboxed(
      `node -e "fetch('http://127.0.0.1:${port}').then(r => r.text()).then(console.log, e => console.log('failed', e.cause?.code))"`,
      { bwrap, projectDir, env: { PATH } },
    )
    expect(node.output).toBe('failed ECONNREFUSED\n')

    const shared = await runSandboxed(get(port), { bwrap, projectDir, network: true })
    expect(shared.output).toContain(token)
  })

  it('hides the harness environment: environ of every process, ps e, env', async () => {
    const key = `sk-test-${randomBytes(12).toString('hex')}`
    // The harness's own environment, as a Node parent holds it; LC_NOTE carries the key under
    // an allowlisted name, which only the secrets filter drops.
    const parentEnv = { PATH, HOME: scratch(), FAKE_KEY: key, LC_NOTE: `copied ${key}` }
    const env = toolEnvironment(parentEnv, { secrets: [key] })
    const projectDir = scratch()
    const snoop =
      "env; tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/*/environ | tr '\\0' '\\n'; ps eww -A; echo END"

    // Control: without the sandbox, the same command does read the parent's key.
    const bare = await runParent({ file: '/bin/bash', args: ['-c', snoop], env }, parentEnv)
    expect(bare).toContain(`FAKE_KEY=${key}`)

    const { file, args } = sandboxCommand({
      bwrap,
      projectDir,
      cwd: projectDir,
      shell: '/bin/bash',
      command: snoop,
      network: false,
      hide: [],
      readOnly: [],
    })
    const inside = await runParent({ file, args, env }, parentEnv)
    expect(inside).toContain('END')
    expect(inside).toContain('BRIDLE=1')
    expect(inside).not.toContain(key)
  })

  it('builds and tests a small project: node --test', async () => {
    const projectDir = scratch()
    writeTree(projectDir, {
      'sum.mjs': 'export const sum = (a, b) => a + b\n',
      'sum.test.mjs': [
        "import { test } from 'node:test'",
        "import assert from 'node:assert'",
        "import { writeFileSync } from 'node:fs'",
        "import { tmpdir } from 'node:os'",
        "import { sum } from './sum.mjs'",
        "test('sum', () => {",
        '  assert.equal(sum(2, 3), 5)',
        "  writeFileSync(tmpdir() + '/scratch', 'x')",
        '})',
        '',
      ].join('\n'),
    })
    const ran = await runSandboxed('node --test --test-reporter=tap', {
      bwrap,
      projectDir,
      env: { PATH, HOME: scratch() },
    })
    expect(ran.output).toMatch(/# pass 1\n# fail 0/)
    expect(ran.code).toBe(0)
  })

  const hasMake = commandExists('make') && commandExists('cc')
  if (!hasMake) console.warn('make test skipped: make or cc is not installed')
  it.skipIf(!hasMake)('builds and tests a small project: make with a C compiler', async () => {
    const projectDir = scratch()
    writeTree(projectDir, {
      'hello.c': '#include <stdio.h>\nint main(void) { puts("hello from make"); return 0; }\n',
      Makefile: 'hello: hello.c\n\tcc -o hello hello.c\n\ntest: hello\n\t./hello > out.txt\n',
    })
    const ran = await runSandboxed('make test', { bwrap, projectDir, env: { PATH } })
    expect(ran.code, ran.output).toBe(0)
    expect(readFileSync(join(projectDir, 'out.txt'), 'utf8')).toBe('hello from make\n')
  })
})

function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
