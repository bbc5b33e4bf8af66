/**
 * Protected paths that run on this machine, locked for programs with real bwrap: a script tries
 * to write each (existing ones, missing ones it would create, nested repositories, submodules, a
 * user's own pattern), every write fails, nothing is left behind once the stand-ins are released,
 * and `git add`/`git commit`, `.env` and CI workflows keep working.
 */
import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { commandLaunch } from '../../../../main/core/tools/builtin/bash-sandbox.js'
import { lockPlan } from '../../../../main/core/tools/sandbox/locks.js'
import {
  ATTACKS,
  REPAIRED_AFTER,
  ATTACK_SCRIPT,
  STAND_IN_PATHS,
  USER_PATTERNS,
  attackArgs,
  lockedHashes,
  makeProtectedProject,
} from '../../../fixtures/protected-project.js'
import { hashTree, sandboxStatus, scratch, writeTree } from './helpers.js'

const PATH = process.env.PATH ?? '/usr/bin:/bin'

/** A protected project (`makeProtectedProject`) in a fresh folder with a sentinel beside it. */
function project() {
  const base = scratch()
  const dir = join(base, 'project')
  mkdirSync(dir)
  makeProtectedProject(dir)
  writeTree(base, { 'outside/keep.txt': 'sentinel\n' })
  return { base, dir }
}

const status = await sandboxStatus()

/**
 * Runs `command` as the bash tool does (`commandLaunch`, the sandbox required, the user's
 * patterns), then releases the launch's stand-ins.
 */
async function runLocked(dir: string, command: string) {
  let note: string | undefined
  const launch = await commandLaunch(
    { mode: 'required', hide: [], protectedPaths: USER_PATTERNS },
    { projectDir: dir, cwd: dir, shell: '/bin/sh', command, grant: undefined },
  )
  expect(launch.sandboxed).toBe(true)
  try {
    const ran = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(launch.file, launch.args, {
        env: { PATH, HOME: dir, ...launch.env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      child.once('error', reject)
      child.once('close', (code) => resolve({ code, output }))
    })
    note = launch.release()
    return { ...ran, note }
  } finally {
    launch.release()
  }
}

describe.skipIf(!status.available)('protected paths locked for programs', () => {
  it('refuses every write to what runs on this machine, existing or missing, and leaves nothing behind', async () => {
    const { base, dir } = project()
    writeFileSync(join(base, 'w.sh'), ATTACK_SCRIPT)
    const before = lockedHashes(dir)
    const outside = hashTree(join(base, 'outside'))
    const ran = await runLocked(dir, `sh ../w.sh ${attackArgs()}`)
    const wrote = ran.output.split('\n').filter((line) => line.startsWith('WROTE'))
    expect(wrote, ran.output).toEqual(REPAIRED_AFTER.map((attack) => `WROTE: ${attack}`))
    const refused = ATTACKS.length - REPAIRED_AFTER.length
    expect(ran.output.match(/^refused: /gm), ran.output).toHaveLength(refused)
    // The HEADs it broke were put back when it ended, and the result says so.
    expect(ran.note).toContain('.git/HEAD, .git/modules/x/HEAD')
    // Byte for byte the same, and no stand-in (empty `.husky`, `.mcp.json`, ...) stayed behind.
    expect(lockedHashes(dir)).toEqual(before)
    expect(hashTree(join(base, 'outside'))).toEqual(outside)
    for (const path of STAND_IN_PATHS) {
      expect({ path, exists: existsSync(join(dir, path)) }).toEqual({ path, exists: false })
    }
  })

  it('still lets git add and commit, and programs change .env and CI workflows', async () => {
    const { dir } = project()
    const ran = await runLocked(
      dir,
      [
        'set -e',
        'echo changed > src/app.txt',
        'echo TOKEN=2 > .env',
        'echo "on: pull_request" > .github/workflows/ci.yml',
        'git add src .env .github',
        'git -c user.name=t -c user.email=t@example.com commit -qm "from the sandbox"',
        'git log --format=%s',
        // A branch command writes HEAD: it works, and the new HEAD stays.
        'git checkout -q -b feature',
      ].join('\n'),
    )
    expect(ran.output).toBe('from the sandbox\n')
    expect(ran.code).toBe(0)
    expect(ran.note).toBeUndefined()
    expect(readFileSync(join(dir, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/feature\n')
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe('TOKEN=2\n')
    expect(readFileSync(join(dir, '.github/workflows/ci.yml'), 'utf8')).toBe('on: pull_request\n')
  })

  it('leaves git on the host working while a command runs (the commondir stand-in reads ".")', async () => {
    const { dir } = project()
    const running = runLocked(dir, 'sleep 1')
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(readFileSync(join(dir, '.git/commondir'), 'utf8')).toBe('.\n')
    // It would die with "failed to read .git/commondir" on an empty one.
    const seen = execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })
    expect(seen).toContain('?? src/')
    expect((await running).code).toBe(0)
    expect(existsSync(join(dir, '.git/commondir'))).toBe(false)
  })

  it('keeps a stand-in two sandboxes share until the last one ends', async () => {
    const { dir } = project()
    const first = runLocked(dir, 'sleep 0.3')
    await new Promise((resolve) => setTimeout(resolve, 100))
    // Started while the first one's stand-ins stand; attacks after the first one has ended.
    const second = runLocked(
      dir,
      'sleep 1.2; mkdir -p .husky && echo evil > .husky/pre-commit && echo WROTE; echo done',
    )
    expect((await first).code).toBe(0)
    expect(existsSync(join(dir, '.husky'))).toBe(true)
    const { output } = await second
    expect(output).toContain('Read-only file system')
    expect(output).not.toContain('WROTE')
    expect(existsSync(join(dir, '.husky'))).toBe(false)
  })

  it('lets git init, add and commit in a project that is no repository yet', async () => {
    const dir = join(scratch(), 'fresh')
    writeTree(dir, { 'a.txt': 'a\n' })
    const ran = await runLocked(
      dir,
      'git init -q && git add . && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s',
    )
    expect(ran.output).toBe('first\n')
  })
})

const isRoot = process.getuid?.() === 0
if (isRoot)
  console.warn('[locks] the read-only git folder test is skipped: root may write anywhere')

describe.skipIf(!status.available || isRoot)('a git folder this user cannot write', () => {
  it('gets no stand-in, so the command still starts (bwrap could not make its mount point)', async () => {
    const dir = join(scratch(), 'readonly-git')
    mkdirSync(dir)
    execFileSync('git', ['init', '-q', dir])
    rmSync(join(dir, '.git', 'hooks'), { recursive: true })
    chmodSync(join(dir, '.git'), 0o555)
    try {
      const ran = await runLocked(dir, 'echo started')
      expect(ran.output).toBe('started\n')
    } finally {
      chmodSync(join(dir, '.git'), 0o755)
    }
  })
})

describe('lockPlan', () => {
  it('names what is locked, what is kept from being created, and what is pinned', () => {
    const { dir } = project()
    const plan = lockPlan(dir, USER_PATTERNS)
    const rel = (paths: readonly string[]) => paths.map((p) => p.slice(dir.length + 1)).sort()
    expect(rel(plan.readOnly)).toEqual(
      [
        '.envrc',
        '.git/config',
        '.git/info',
        '.git/modules/x/config',
        '.git/modules/y/config',
        '.git/modules/y/hooks',
        '.vscode/tasks.json',
        'lib/.git/config',
        'lib/.git/hooks',
        'lib/.git/info',
        'scripts/deploy.sh',
        'sub/.git/config',
        'sub/.git/info',
        'wt/.git',
      ].sort(),
    )
    // HEAD is guarded, not locked: branch commands write it; a broken one is put back.
    expect(rel([...plan.heads.keys()])).toEqual(
      [
        '.git/HEAD',
        '.git/modules/x/HEAD',
        '.git/modules/y/HEAD',
        'lib/.git/HEAD',
        'sub/.git/HEAD',
      ].sort(),
    )
    expect(rel(plan.absent.map((a) => a.path))).toContain('.git/hooks')
    expect(rel(plan.absent.map((a) => a.path))).toContain('tools')
    expect(rel(plan.pinned)).toContain('.git/refs')
    // Runs elsewhere or is data: not locked.
    for (const path of ['.env', '.github/workflows/ci.yml']) {
      expect(rel([...plan.readOnly, ...plan.absent.map((a) => a.path)])).not.toContain(path)
    }
  })

  it('walks node_modules last, so its thousands of entries do not use up the budget', () => {
    const dir = join(scratch(), 'mono')
    const modules = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`node_modules/m${i}/index.js`, '']),
    )
    writeTree(dir, { ...modules, 'a/b/c/.envrc': 'x\n', 'a/b/c/.husky/pre-commit': 'x\n' })
    const rel = lockPlan(dir, [], 20).readOnly.map((p) => p.slice(dir.length + 1))
    expect(rel.sort()).toEqual(['a/b/c/.envrc', 'a/b/c/.husky'])
  })

  it('stops its walk after the budget, keeping the top level locked', () => {
    const { dir } = project()
    const plan = lockPlan(dir, [], 1)
    const rel = plan.readOnly.map((p) => p.slice(dir.length + 1))
    expect(rel).toContain('.envrc')
    expect(rel).not.toContain('lib/.git/config')
  })
})
