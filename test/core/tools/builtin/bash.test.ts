import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { bashTool } from '../../../../main/core/tools/builtin/bash.js'
import type { BashToolOptions } from '../../../../main/core/tools/builtin/bash.js'
import { toolEnvironment } from '../../../../main/core/tools/builtin/env.js'
import { ApprovalPolicy } from '../../../../main/core/tools/approvals.js'
import { createToolPipeline, readOutputTool } from '../../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../../main/core/tools/spill.js'
import type { ToolOutput } from '../../../../main/core/tools/types.js'
import { startHarness } from '../../loop/harness.js'
import type { LoopHarness } from '../../loop/harness.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A fresh project folder, removed after the test. */
function project(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-bash-')))
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/** Runs the tool as the pipeline would: arguments parsed by its schema, a real folder. */
function run(
  projectDir: string,
  args: Record<string, unknown>,
  opts: BashToolOptions & { signal?: AbortSignal } = {},
): Promise<ToolOutput> {
  const tool = bashTool(opts)
  return tool.run(tool.schema.parse(args), {
    projectDir,
    signal: opts.signal ?? new AbortController().signal,
    beforeWrite: () => undefined,
  })
}

/**
 * Processes of group `pgid` that still run (zombies excluded: init here reaps orphans only after
 * a second or two, and a zombie runs nothing).
 */
function liveMembers(pgid: number): number[] {
  const live: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we looked
    }
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (group === String(pgid) && state !== 'Z' && state !== 'X') live.push(Number(entry))
  }
  return live
}

/** Polls until the group has no running process, up to `ms`; returns what is left. */
async function groupGoneWithin(pgid: number, ms = 2000): Promise<number[]> {
  const deadline = Date.now() + ms
  for (;;) {
    const live = liveMembers(pgid)
    if (live.length === 0 || Date.now() > deadline) return live
    await delay(20)
  }
}

/** The shell writes `$$` (its pid, which leads the group) to this file first. */
async function pidFrom(file: string): Promise<number> {
  const deadline = Date.now() + 5000
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '')
    if (text.endsWith('\n')) return Number(text.trim())
    if (Date.now() > deadline) throw new Error(`no pid in ${file}`)
    await delay(10)
  }
}

describe('bash', () => {
  it('returns the output; exit code 0 adds no marker unless there is no output', async () => {
    const dir = project()
    const echoed = await run(dir, { command: 'echo hello' })
    expect(echoed.output).toBe('hello\n')
    expect(echoed.metadata).toEqual({ exitCode: 0, sandboxed: false })
    expect((await run(dir, { command: 'true' })).output).toBe('[exit code 0]')
  })

  it('reports a non-zero exit as a normal result, with stderr interleaved in order', async () => {
    const dir = project()
    const failed = await run(dir, { command: 'echo partial; exit 3' })
    expect(failed.output).toBe('partial\n[exit code 3]')
    expect(failed.metadata).toEqual({ exitCode: 3, sandboxed: false })
    const mixed = await run(dir, {
      command: 'echo one; sleep 0.05; echo two >&2; sleep 0.05; printf three >&2',
    })
    expect(mixed.output).toBe('one\ntwo\nthree')
  })

  it('runs in the project folder or in workdir, and refuses a workdir outside it', async () => {
    const dir = project()
    mkdirSync(join(dir, 'sub'))
    expect((await run(dir, { command: 'pwd' })).output).toBe(`${dir}\n`)
    expect((await run(dir, { command: 'pwd', workdir: 'sub' })).output).toBe(`${dir}/sub\n`)
    await expect(run(dir, { command: 'pwd', workdir: '../' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_PROJECT',
    })
    await expect(run(dir, { command: 'pwd', workdir: 'missing' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
    await expect(
      run(dir, { command: 'true' }, { shell: join(dir, 'no-such-shell') }),
    ).rejects.toMatchObject({ code: 'SPAWN_FAILED' })
  })

  it('times out: kills the group and says so, even when the command traps SIGTERM', async () => {
    const dir = project()
    const started = Date.now()
    const slept = await run(dir, { command: 'echo $$ > pid; sleep 30', timeoutSeconds: 1 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(slept.output).toMatch(/\[timed out after 1 s; [^\]]*\]$/)
    expect(slept.metadata).toMatchObject({ timedOut: true })
    expect(await groupGoneWithin(await pidFrom(join(dir, 'pid')))).toEqual([])

    // Exiting 0 from the trap does not turn a timeout into a success.
    const trapped = await run(dir, {
      command: "trap 'exit 0' TERM; sleep 30 & wait",
      timeoutSeconds: 0.5,
    })
    expect(trapped.metadata).toMatchObject({ timedOut: true })
    expect(() => bashTool().schema.parse({ command: 'true', timeoutSeconds: 601 })).toThrow()
  })

  it.each([
    ['a plain sleep', 'sleep 30'],
    ['a child that ignores SIGTERM', `bash -c 'trap "" TERM; sleep 30'`],
    ['a background grandchild', 'sleep 30 & sleep 30'],
  ])(
    'cancel during %s settles within 2 s and leaves no process of the group',
    async (_, command) => {
      const dir = project()
      const controller = new AbortController()
      const pending = run(dir, { command: `echo $$ > pid; ${command}` }, controller)
      const pgid = await pidFrom(join(dir, 'pid'))
      await delay(100) // let the command reach its sleep
      const cancelledAt = Date.now()
      controller.abort()
      await expect(pending).rejects.toMatchObject({ code: 'ABORTED' })
      expect(Date.now() - cancelledAt).toBeLessThan(2000)
      expect(await groupGoneWithin(pgid)).toEqual([])
    },
  )

  it('does not hang when the shell exits but a background child keeps the output open', async () => {
    const dir = project()
    const started = Date.now()
    const result = await run(dir, { command: 'echo $$ > pid; sleep 30 & echo started' })
    expect(Date.now() - started).toBeLessThan(2000)
    expect(result.output).toContain('started\n')
    expect(result.output).toContain('background processes kept its output open')
    expect(await groupGoneWithin(await pidFrom(join(dir, 'pid')))).toEqual([])
  })

  it('gives commands an allowlisted environment without credentials', async () => {
    const dir = project()
    // The canaries live only in the tool's base env: the shell could read this process's own
    // environ through /proc/$PPID, which is why the app must not keep keys in its env either.
    expect(JSON.stringify(process.env)).not.toContain('canary-')
    const env = {
      PATH: process.env.PATH,
      HOME: '/home/someone',
      LC_ALL: 'C.UTF-8',
      OPENAI_API_KEY: 'canary-123',
      MY_SECRET: 'canary-456',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      GITHUB_TOKEN: 'canary-789',
    }
    const result = await run(
      dir,
      { command: "env; cat /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'" },
      { env },
    )
    expect(result.output).not.toContain('canary-')
    expect(result.output).not.toContain('SSH_AUTH_SOCK')
    for (const line of ['BRIDLE=1', 'NO_COLOR=1', 'PAGER=cat', 'GIT_PAGER=cat', 'TERM=dumb']) {
      expect(result.output).toContain(line)
    }
    expect(result.output).toContain('LC_ALL=C.UTF-8')
    expect(toolEnvironment({ TERM: 'xterm', HOME: '/h', EDITOR: 'vim' })).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      TERM: 'xterm',
      HOME: '/h',
      BRIDLE: '1',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      NO_COLOR: '1',
      GIT_TERMINAL_PROMPT: '0',
    })
  })

  it('returns a 5 MB output whole', async () => {
    const dir = project()
    const result = await run(dir, { command: "head -c 5000000 /dev/zero | tr '\\0' 'x'" })
    expect(result.output.length).toBe(5_000_000)
    expect(result.output).toBe('x'.repeat(5_000_000))
  })

  it('keeps the head and tail within maxBufferedBytes and says how much it dropped', async () => {
    const dir = project()
    const result = await run(
      dir,
      { command: "printf START; head -c 100000 /dev/zero | tr '\\0' m; printf END" },
      { maxBufferedBytes: 1000 },
    )
    expect(result.output.startsWith(`START${'m'.repeat(495)}\n[… 99008 bytes`)).toBe(true)
    expect(result.output.endsWith(`…]\n${'m'.repeat(497)}END`)).toBe(true)
    expect(result.metadata).toEqual({ exitCode: 0, sandboxed: false, droppedBytes: 99_008 })
  })

  it('decodes UTF-8 split across pipe reads and across the dropped middle', async () => {
    const dir = project()
    const command = "printf x; yes 'é€' | head -n 100000 | tr -d '\\n'"
    const whole = await run(dir, { command })
    expect(whole.output).toBe(`x${'é€'.repeat(100_000)}`)
    const bounded = await run(dir, { command }, { maxBufferedBytes: 1001 })
    expect(bounded.output).not.toContain('\uFFFD')
    expect(bounded.output).toMatch(/^x(é€)+é?\n\[… \d+ bytes[^\]]*\]\n€?(é€)+$/)
  })

  it('describes the exact command with control characters visible; offers grants on the parsed command', async () => {
    const dir = project()
    const tool = bashTool()
    const describe = (command: string) => tool.describe?.({ command })
    const ctx = { projectDir: dir }
    const options = async (command: string) => {
      const assessment = await tool.assess?.({ command }, ctx)
      return assessment?.level === 'normal' && assessment.grantable !== false
        ? tool.grants?.options({ command }, ctx)
        : undefined
    }
    expect(describe('echo hi\nrm -rf build\u202e #')).toBe('echo hi␊rm -rf build\\u{202e} #')
    const long = `printf '${'a'.repeat(500)}'`
    expect(describe(long)).toBe(long)
    expect('approvalKey' in tool).toBe(false)
    expect(await options('npm test -- --watch')).toEqual(['npm test *', 'npm test -- --watch'])
    expect(await options('  git status  ')).toEqual(['git status *', 'git status'])
    expect(await options('ls')).toEqual(['ls *', 'ls'])
    expect(await options('npm test && npm run lint')).toEqual([
      'npm test *\nnpm run *',
      'npm test\nnpm run lint',
    ])
    // A recursive delete, a line with a word only known at run time, an assignment: no grant.
    expect(await options('rm -rf build')).toBeUndefined()
    expect(await options('echo $(cat ~/.ssh/id_rsa)')).toBeUndefined()
    expect(await options('FOO=1 npm test')).toBeUndefined()
    expect(tool.kind).toBe('execute')
    expect(tool.isConcurrencySafe?.({ command: 'ls' })).toBe(false)
  })
})

describe('bash through the pipeline', () => {
  let h: LoopHarness | undefined
  let spill: OutputSpill | undefined

  const start = async (command: string, script: 'answer' | 'none') => {
    h = await startHarness(
      [
        {
          steps: [
            { toolCall: { id: 'c1', name: 'bash', args: JSON.stringify({ command }) } },
            { finish: 'tool_calls' },
          ],
        },
        ...(script === 'answer' ? ['ok'] : []),
      ],
      {
        makeTools: ({ projectDir, homeDir }) => {
          const registry = new ToolRegistry()
          spill = new OutputSpill(join(homeDir, 'outputs'))
          registry.register(bashTool())
          registry.register(readOutputTool(spill))
          return createToolPipeline({
            registry,
            approvals: new ApprovalPolicy('full-auto'),
            spill,
            projectDir,
          })
        },
      },
    )
    cleanups.push(async () => {
      await h?.close()
      h = undefined
    })
    return h
  }

  const results = (harness: LoopHarness) =>
    harness.session.slice().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))

  it('shows the model at most ~50 KB of a 5 MB output and keeps all of it behind outputRef', async () => {
    const harness = await start("head -c 5000000 /dev/zero | tr '\\0' 'x'", 'answer')
    harness.agent.send({ requestId: 'r', text: 'go' })
    await harness.agent.runUntilIdle()
    const [result] = results(harness)
    if (!result?.ok) throw new Error('expected an ok result')
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(51 * 1024)
    expect(result.output).toContain('output cut at 51200 of 5000000 bytes')
    expect(result.outputRef).toBeDefined()
    const full = spill?.read(result.outputRef ?? '', 0, 6_000_000)
    expect(full?.length).toBe(5_000_000)
    expect(full).toBe('x'.repeat(5_000_000))
  })

  it('shows binary output as a summary and keeps its exact bytes behind outputRef', async () => {
    const harness = await start('head -c 200000 /dev/urandom', 'answer')
    harness.agent.send({ requestId: 'r', text: 'go' })
    await harness.agent.runUntilIdle()
    const [result] = results(harness)
    if (!result?.ok) throw new Error('expected an ok result')
    expect(Buffer.byteLength(result.output)).toBeLessThan(1024)
    expect(result.output).toContain('saved as')
    expect(result.outputRef).toMatch(/c1\.bin$/)
    expect(spill?.read(result.outputRef ?? '', 0, 32)).toMatch(/^00000000 {2}[0-9a-f]{2} /)
  })

  it('a cancel while bash runs records ABORTED and leaves no process of the group', async () => {
    const harness = await start('echo $$ > pid; sleep 30', 'none')
    let cancelledAt = 0
    let pgid = 0
    harness.session.subscribe((event) => {
      if (event.type !== 'tool/call') return
      void pidFrom(join(harness.projectDir, 'pid')).then((pid) => {
        pgid = pid
        cancelledAt = Date.now()
        harness.agent.cancel()
      })
    })
    harness.agent.send({ requestId: 'r', text: 'go' })
    const [outcome] = await harness.agent.runUntilIdle()
    expect(Date.now() - cancelledAt).toBeLessThan(2000)
    expect(outcome?.reason).toBe('cancelled')
    const [result] = results(harness)
    expect(result?.ok === false && result.error.code).toBe('ABORTED')
    expect(pgid).toBeGreaterThan(0)
    expect(await groupGoneWithin(pgid)).toEqual([])
  })
})

describe('toolEnvironment with secrets', () => {
  const base = {
    PATH: '/usr/bin',
    HOME: '/home/someone',
    LANG: 'C.UTF-8',
    LC_NOTE: 'sk-live-0123456789', // an allowlisted name carrying a key
    TMPDIR: '/tmp/sk-live-0123456789-cache', // the key inside a longer value
  }

  it('drops any allowlisted variable whose value contains a secret, and keeps the rest', () => {
    expect(toolEnvironment(base, { secrets: ['sk-live-0123456789'] })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/someone',
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      BRIDLE: '1',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      NO_COLOR: '1',
      GIT_TERMINAL_PROMPT: '0',
    })
  })

  it('ignores secrets shorter than 8 characters, which would match innocent values', () => {
    const env = toolEnvironment(base, { secrets: ['C.UTF-8', 'usr', ''] })
    expect(env.LANG).toBe('C.UTF-8')
    expect(env.PATH).toBe('/usr/bin')
    expect(toolEnvironment(base, { secrets: [] })).toEqual(toolEnvironment(base))
  })
})
