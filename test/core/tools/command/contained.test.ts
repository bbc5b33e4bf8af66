/**
 * Full-auto without a sandbox: a command runs unasked only when the judge proves it stays inside
 * the project. The corpus below holds every way out that the unsandboxed judge once missed; each
 * goes through the real bash tool's assessment and the real approval policy in full-auto:
 * - with the sandbox off: put to the user (asked once, the reason shown), and refused with that
 *   reason when nobody can be asked;
 * - with the sandbox on (`required`: it never runs bare): run by the mode, unasked, as before.
 * The plainly contained commands run unasked in both.
 */
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ApprovalPolicy } from '../../../../main/core/tools/approvals.js'
import type { ApprovalRequest } from '../../../../main/core/tools/approvals.js'
import { bashTool } from '../../../../main/core/tools/builtin/bash.js'
import type { BashSandbox } from '../../../../main/core/tools/builtin/bash-sandbox.js'
import { uncontainedReasons } from '../../../../main/core/tools/command/index.js'
import { useFixture } from './setup.js'

const f = useFixture()

/** `[command, words the reason must hold]`: every form of item 5 of the issue, and kin. */
const WAYS_OUT: readonly (readonly [string, string])[] = [
  [`python -c "open('/etc/x', 'w')"`, 'runs python code'],
  [`python3 -c "print(1)"`, 'runs python code'],
  [`perl -e 'open(F, ">/etc/x")'`, 'runs perl code'],
  [`node -e "require('fs').writeFileSync('/etc/x', '')"`, 'runs node code'],
  [`awk '{print > "/etc/x"}' f.txt`, 'awk program'],
  [`awk '{ print }' f.txt`, 'awk program'],
  ['sort -o /etc/x f.txt', '/etc/x'],
  ['sort --output=../x f.txt', 'outside the project'],
  ['sort -T /var/tmp f.txt', '/var/tmp'],
  ['sort --compress-program=sh f.txt', 'runs another program'],
  ['uniq f.txt /etc/x', '/etc/x'],
  [`sed 's/a/b/w /etc/x' f.txt`, 'the `w` flag'],
  [`sed -n 'w /etc/x' f.txt`, 'the `w` command'],
  [`sed '1e id' f.txt`, 'the `e` command'],
  [`sed 's/a/id/e' f.txt`, 'the `e` flag'],
  ['sed -f script.sed f.txt', 'in a file'],
  ['git diff --output=/etc/x', 'write elsewhere'],
  ['git log -p --output /etc/x', 'write elsewhere'],
  [`git -c alias.x='!touch /etc/x' x`, '`git -c`'],
  ['git -c core.fsmonitor="touch /etc/x" status', '`git -c`'],
  ['git --config-env=core.fsmonitor=X status', 'git --config-env'],
  ['git x', 'not one of the git commands'],
  ['git grep -O x', 'start another program'],
  ['echo /etc/x | xargs touch', '`xargs`'],
  ['ls | xargs -I{} cp {} out/', '`xargs`'],
  ['f() { cd "$1"; touch x; }; f /', 'in a folder only known when it runs'],
  ['g() { touch x; }; cd /tmp; g', 'in a folder only known when it runs'],
  [`alias ls='touch /etc/x'`, '`alias` is not among'],
  ['for d in / ; do cd $d; touch x; done', 'in a folder only known when it runs'],
  ['BASH_ENV=/tmp/x bash -c true', 'sets BASH_ENV'],
  ['PATH=/tmp/evil:$PATH ls', 'sets PATH'],
  ['export PATH=/tmp/evil; ls', '`export` is not among'],
  ['ln /etc/passwd hl', 'links /etc/passwd'],
  ['ln ~/.ssh/id_rsa x', '.ssh/id_rsa'],
  ['ln -s ~/.bashrc rc', '.bashrc'],
  ['ln -s ../../x y', 'symbolic link with `..`'],
  ['cp -a ~/dir .', 'copies links or trees from'],
  ['X=/root; touch $X/f', 'sets the variable X'],
  ['touch $X/f', 'a path only known when it runs'],
  ['echo hi > "$OUT"', 'a path only known when it runs'],
  ['./build.sh', 'program file ./build.sh'],
  ['bash ./build.sh', 'another shell'],
  ['sh < script.txt', 'another shell'],
  ['npm test', "the project's own code"],
  ['make', "the project's own code"],
  ['pytest -q', "the project's own code"],
  ['nohup ls', 'through `nohup`'],
  ['env X=1 ls', 'sets the variable X'],
  ['printf -v PATH /tmp; ls', '`printf -v`'],
  ['rg --pre ./x pattern', '`rg --pre`'],
  ["eval 'touch $X'", 'a path only known when it runs'],
  ['tar xf a.tar', '`tar` is not among'],
]

/** Lines the judge refuses outright (writes outside the project): never asked, never run. */
const REFUSED = ['sed -i s/a/b/ /etc/x', 'f() { cd /; touch x; }; f', 'cp f.txt ~/x']

/** Commands that stay inside the project, provably: they run unasked in full-auto. */
const CONTAINED = [
  'ls',
  'ls -la src',
  'cat f.txt',
  'grep -r x .',
  'rg -n x src',
  'git status',
  'git diff',
  'git log --oneline -5',
  'git add . && git commit -m "x"',
  'echo hi > out.txt',
  'echo hi >> logs/out.txt 2>&1',
  'mkdir -p a/b && touch a/b/c',
  'cd src && ls',
  'cat src/x > out.txt',
  'sort f.txt -o sorted.txt',
  'LC_ALL=C sort f.txt | uniq -c | head',
  'uniq f.txt out.txt',
  "sed -n '1,20p' f.txt",
  "sed -i 's/a/b/g; /^#/d' f.txt",
  'find . -name "*.o" -delete',
  'find src -type f | wc -l',
  'cp ~/notes.txt .',
  'ln -s f.txt link.txt',
  'rm -rf build',
  'timeout 5 sleep 1',
  "bash -c 'ls && echo ok > out.txt'",
  'trap "" INT; exec -a marked sleep 1',
  'wc -l < f.txt > count.txt',
]

describe('the proof (uncontainedReasons) on the corpus', () => {
  const reasons = (line: string) => uncontainedReasons(f.parse(line), f.ctx).join(' | ')

  it.each(WAYS_OUT)('%s: not provably contained (%s)', (line, words) => {
    const why = reasons(line)
    expect(why).toContain('without a sandbox, Bridle cannot prove')
    expect(why).toContain(words)
  })

  it.each(CONTAINED)('%s: proven to stay inside the project', (line) => {
    expect(reasons(line)).toBe('')
  })

  it('a line that cannot be parsed is not proven either', () => {
    expect(reasons('echo $(')).toMatch(/cannot prove the command stays inside the project/)
  })
})

/** The real bash tool's assessment and the real policy, in full-auto, for one line. */
async function decide(command: string, sandbox: BashSandbox, withChannel: boolean) {
  const asked: ApprovalRequest[] = []
  const policy = new ApprovalPolicy(
    'full-auto',
    [],
    withChannel
      ? (request) => {
          asked.push(request)
          return Promise.resolve({ decision: 'deny' as const, reason: 'no' })
        }
      : undefined,
  )
  const tool = bashTool({ env: { HOME: f.home, PATH: '/usr/bin:/bin' }, sandbox })
  const outcome = await policy.decide(
    tool,
    { command },
    'c1',
    new AbortController().signal,
    undefined,
    { projectDir: f.project },
  )
  return { outcome, asked }
}

const OFF: BashSandbox = { mode: 'off', hide: [] }
const ON: BashSandbox = { mode: 'required', hide: [] }

describe('full-auto with the sandbox off', () => {
  it.each(WAYS_OUT)('%s: asked, with the reason', async (line) => {
    const { outcome, asked } = await decide(line, OFF, true)
    expect(asked).toHaveLength(1)
    expect(asked[0]?.warnings?.join(' ')).toContain('without a sandbox, Bridle cannot prove')
    expect(outcome).toMatchObject({ allowed: false, code: 'APPROVAL_DENIED' })
  })

  it.each(WAYS_OUT)('%s: nobody to ask: refused, saying why', async (line) => {
    const { outcome } = await decide(line, OFF, false)
    expect(outcome).toMatchObject({ allowed: false, code: 'NO_APPROVAL_CHANNEL' })
    const message = outcome.allowed ? '' : outcome.message
    expect(message).toContain('without a sandbox, Bridle cannot prove')
    expect(message).toContain('turn the sandbox on')
  })

  it.each(REFUSED)('%s: refused by the judge, as before', async (line) => {
    const { outcome, asked } = await decide(line, OFF, true)
    expect(outcome).toMatchObject({ allowed: false, code: 'GUARD_DENIED' })
    expect(asked).toEqual([])
  })

  it.each(CONTAINED)('%s: runs unasked', async (line) => {
    const { outcome, asked } = await decide(line, OFF, true)
    expect(asked).toEqual([])
    expect(outcome).toMatchObject({ allowed: true, how: 'policy' })
  })

  it('a standing grant the user kept still covers a command the judge cannot prove', async () => {
    const policy = new ApprovalPolicy('full-auto', [
      { tool: 'bash', pattern: 'npm test', effect: 'allow' },
    ])
    const tool = bashTool({ env: { HOME: f.home }, sandbox: OFF })
    const signal = new AbortController().signal
    const ctx = { projectDir: f.project }
    const granted = await policy.decide(tool, { command: 'npm test' }, 'c1', signal, undefined, ctx)
    expect(granted).toMatchObject({ allowed: true, how: 'rule' })
    const other = await policy.decide(tool, { command: 'npm ci' }, 'c2', signal, undefined, ctx)
    expect(other).toMatchObject({ allowed: false, code: 'NO_APPROVAL_CHANNEL' })
  })
})

describe('a link already in the project that leads out of it (read from disk)', () => {
  beforeAll(() => {
    symlinkSync(f.home, join(f.project, 'outlink'))
  })

  it('a write through it is asked without a sandbox, and runs unasked with one', async () => {
    const off = await decide('echo x >> outlink/notes.txt', OFF, true)
    expect(off.asked).toHaveLength(1)
    expect(off.asked[0]?.warnings?.join(' ')).toContain(
      `which leads out of the project to ${f.home} through a link already there`,
    )
    expect((await decide('cd outlink && touch x', OFF, true)).asked).toHaveLength(1)
    const on = await decide('echo x >> outlink/notes.txt', ON, true)
    expect(on.outcome).toMatchObject({ allowed: true, how: 'policy' })
  })

  it('reading through it, or writing beside it, still runs unasked', async () => {
    for (const line of ['cat outlink/notes.txt', 'echo x > notlink.txt']) {
      const { outcome, asked } = await decide(line, OFF, true)
      expect(asked, line).toEqual([])
      expect(outcome, line).toMatchObject({ allowed: true, how: 'policy' })
    }
  })
})

describe('full-auto with the sandbox on', () => {
  it.each(WAYS_OUT)('%s: contained by the sandbox, runs unasked', async (line) => {
    const { outcome, asked } = await decide(line, ON, true)
    expect(asked).toEqual([])
    expect(outcome).toMatchObject({ allowed: true, how: 'policy' })
  })

  it.each(CONTAINED)('%s: runs unasked', async (line) => {
    const { outcome } = await decide(line, ON, true)
    expect(outcome).toMatchObject({ allowed: true, how: 'policy' })
  })
})

describe('credentials without a sandbox', () => {
  /** The policy's answer in full-auto with nobody to ask, for `command` run in `projectDir`. */
  async function headless(command: string, sandbox: BashSandbox, projectDir = f.project) {
    const policy = new ApprovalPolicy('full-auto', [])
    const tool = bashTool({ env: { HOME: f.home, PATH: '/usr/bin:/bin' }, sandbox })
    const signal = new AbortController().signal
    return policy.decide(tool, { command }, 'c1', signal, undefined, { projectDir })
  }

  it.each([
    ['cat ~/.ssh/id_rsa', '.ssh/id_rsa, a credential'],
    ['base64 < ~/.aws/credentials', '.aws/credentials, a credential'],
    ['grep -r BEGIN ~', 'which holds your credentials'],
  ])('%s from a project: not run unasked (%s)', async (command, words) => {
    const outcome = await headless(command, OFF)
    expect(outcome).toMatchObject({ allowed: false, code: 'NO_APPROVAL_CHANNEL' })
    expect(outcome.allowed ? '' : outcome.message).toContain(words)
  })

  it.each(['cat .ssh/id_rsa', 'grep -r BEGIN .', 'head .aws/credentials'])(
    '%s with the home folder as the project: not run unasked',
    async (command) => {
      const outcome = await headless(command, OFF, f.home)
      const message = outcome.allowed ? '' : outcome.message
      expect(outcome, message).toMatchObject({ allowed: false, code: 'NO_APPROVAL_CHANNEL' })
      expect(message).toMatch(/credential/)
    },
  )

  it('in the sandbox, which hides them, the same reads run unasked', async () => {
    expect(await headless('cat ~/.ssh/id_rsa', ON)).toMatchObject({ allowed: true })
    expect(await headless('grep -r BEGIN .', ON, f.home)).toMatchObject({ allowed: true })
  })

  it('a project file of the same name is no credential', async () => {
    expect(await headless('cat .ssh/config', OFF)).toMatchObject({ allowed: true })
  })
})
