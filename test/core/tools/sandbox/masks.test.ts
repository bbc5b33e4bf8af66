/**
 * Hidden paths (credential stores: empty, unreadable, not writable, not revealed by unmounting)
 * and read-only paths inside the project (`.git/hooks` and friends: not writable, not
 * sidestepped by renaming their folder, while the rest of the project and git keep working).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultHiddenPaths, sandboxCommand } from '../../../../main/core/tools/sandbox/bwrap.js'
import { hashTree, runSandboxed, sandboxStatus, scratch, writeTree } from './helpers.js'

const status = await sandboxStatus()
const bwrap = status.available ? status.bwrap : ''
const PATH = process.env.PATH ?? '/usr/bin:/bin'

/** A fake home with credentials in well-known places, and Bridle's data folder beside it. */
function fakeHome(base: string) {
  const home = join(base, 'home')
  const dataDir = join(base, 'bridle-data')
  writeTree(home, {
    '.ssh/id_ed25519': 'SECRET-ssh',
    '.aws/credentials': 'SECRET-aws',
    '.config/gh/hosts.yml': 'SECRET-gh',
    '.docker/config.json': 'SECRET-docker',
    '.docker/other.json': 'visible',
    '.netrc': 'SECRET-netrc',
    '.npmrc': 'SECRET-npm',
    '.profile': 'visible',
  })
  writeTree(dataDir, { 'log.sqlite': 'SECRET-log', 'keys.json': 'SECRET-keys' })
  return { home, dataDir, hide: defaultHiddenPaths(home, dataDir) }
}

describe('defaultHiddenPaths', () => {
  it('lists credential stores under the home folder, daemon sockets and the data folder', () => {
    const paths = defaultHiddenPaths('/home/u', '/home/u/.local/share/bridle')
    for (const path of ['.ssh', '.gnupg', '.aws', '.kube', '.netrc', '.docker/config.json']) {
      expect(paths).toContain(`/home/u/${path}`)
    }
    expect(paths).toContain('/run/user')
    expect(paths).toContain('/home/u/.local/share/bridle')
    expect(defaultHiddenPaths('/home/u')).not.toContain('/home/u/.local/share/bridle')
  })
})

describe.skipIf(!status.available)('hidden paths', () => {
  it('shows credential folders empty and files empty, and refuses writes and unmounts', async () => {
    const base = scratch()
    const { home, dataDir, hide } = fakeHome(base)
    const projectDir = join(base, 'project')
    mkdirSync(projectDir)
    const before = hashTree(base)
    const ran = await runSandboxed(
      [
        `grep -r SECRET ${home} ${dataDir}`,
        'ls -A ~/.ssh ~/.aws ~/.config/gh',
        'cat ~/.netrc ~/.npmrc ~/.docker/config.json ~/.docker/other.json',
        'echo evil > ~/.ssh/authorized_keys',
        'echo evil > ~/.netrc',
        'umount ~/.ssh',
        `unshare -rm sh -c 'umount -l ~/.ssh; cat ~/.ssh/id_ed25519'`,
        'echo END',
      ].join('; '),
      { bwrap, projectDir, hide, env: { PATH, HOME: home } },
    )
    expect(ran.output).not.toContain('SECRET')
    expect(ran.output).toContain('visible')
    expect(ran.output).toContain('END')
    expect(hashTree(base)).toEqual(before)
  })

  it('keeps a project inside a hidden folder visible and writable', async () => {
    const base = scratch()
    const { dataDir, hide } = fakeHome(base)
    const projectDir = join(dataDir, 'projects', 'p')
    writeTree(projectDir, { 'readme.txt': 'in project\n' })
    const ran = await runSandboxed(`cat readme.txt; echo new > new.txt; ls -A ${dataDir}`, {
      bwrap,
      projectDir,
      hide,
    })
    expect(ran.output).toBe('in project\nprojects\n')
    expect(readFileSync(join(projectDir, 'new.txt'), 'utf8')).toBe('new\n')
  })

  it('keeps hidden paths inside the project hidden (the home folder opened as a project)', async () => {
    const base = scratch()
    const { home, hide } = fakeHome(base)
    const ran = await runSandboxed('cat .ssh/* .netrc; echo ok > notes.txt && cat .profile', {
      bwrap,
      projectDir: home,
      hide,
    })
    expect(ran.output).not.toContain('SECRET')
    expect(ran.output).toContain('visible')
    expect(readFileSync(join(home, 'notes.txt'), 'utf8')).toBe('ok\n')
  })

  it('masks the real target of a hidden symlink', async () => {
    const base = scratch()
    writeTree(base, { 'vault/key': 'SECRET-vault' })
    const projectDir = join(base, 'project')
    mkdirSync(projectDir)
    execFileSync('ln', ['-s', join(base, 'vault'), join(base, 'ssh-link')])
    const ran = await runSandboxed(`cat ${base}/vault/key ${base}/ssh-link/key; echo END`, {
      bwrap,
      projectDir,
      hide: [join(base, 'ssh-link'), join(base, 'missing')],
    })
    expect(ran.output).not.toContain('SECRET')
    expect(ran.output).toContain('END')
  })
})

describe.skipIf(!status.available)('read-only paths inside the project', () => {
  /** A git repository with a hook, whose hooks, config and info are protected. */
  function repository() {
    const projectDir = join(scratch(), 'repo')
    mkdirSync(projectDir)
    execFileSync('git', ['init', '-q', projectDir])
    writeFileSync(join(projectDir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
    mkdirSync(join(projectDir, '.git/info'), { recursive: true })
    writeTree(projectDir, { 'src.txt': 'source' })
    const readOnly = ['hooks', 'config', 'info', 'missing'].map((p) => join(projectDir, '.git', p))
    return { projectDir, readOnly }
  }

  it('refuses writes to them and their replacement, while the rest stays writable', async () => {
    const { projectDir, readOnly } = repository()
    const git = join(projectDir, '.git')
    const protectedBefore = {
      hooks: hashTree(join(git, 'hooks')),
      info: hashTree(join(git, 'info')),
    }
    const config = readFileSync(join(git, 'config'), 'utf8')
    const attempts = [
      'echo evil > .git/hooks/pre-commit',
      'touch .git/hooks/post-checkout',
      'rm -rf .git/hooks',
      'mv .git/hooks .git/hooks-old',
      'echo evil >> .git/config',
      'rm -f .git/config',
      'git config core.hooksPath /tmp',
      'echo evil > .git/info/exclude',
      'mv .git .git-old',
      'rm -rf .git',
    ]
    for (const attempt of attempts) {
      const ran = await runSandboxed(attempt, { bwrap, projectDir, readOnly })
      expect(ran.code, `${attempt}: ${ran.output}`).not.toBe(0)
    }
    expect(hashTree(join(git, 'hooks'))).toEqual(protectedBefore.hooks)
    expect(hashTree(join(git, 'info'))).toEqual(protectedBefore.info)
    expect(readFileSync(join(git, 'config'), 'utf8')).toBe(config)

    const ran = await runSandboxed('echo changed > src.txt && touch .git/other', {
      bwrap,
      projectDir,
      readOnly,
    })
    expect(ran.code).toBe(0)
    expect(readFileSync(join(projectDir, 'src.txt'), 'utf8')).toBe('changed\n')
  })

  it('lets git add and commit with hooks and config read-only', async () => {
    const { projectDir, readOnly } = repository()
    const ran = await runSandboxed(
      'git add -A && git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s',
      { bwrap, projectDir, readOnly, env: { PATH, HOME: projectDir } },
    )
    expect(ran.output).toBe('first\n')
  })

  it('refuses arguments only a caller’s mistake could produce, in words', () => {
    const projectDir = scratch()
    const call = (over: Partial<Parameters<typeof sandboxCommand>[0]>) => () =>
      sandboxCommand({
        bwrap: '/usr/bin/bwrap',
        projectDir,
        cwd: projectDir,
        shell: '/bin/sh',
        command: 'true',
        network: false,
        hide: [],
        readOnly: [],
        ...over,
      })
    expect(call({ readOnly: ['/etc/passwd'] })).toThrow(
      `read-only path /etc/passwd is not inside the project folder ${projectDir}`,
    )
    expect(call({ hide: ['.ssh'] })).toThrow('hidden path .ssh must be absolute')
    expect(call({ projectDir: join(projectDir, 'gone') })).toThrow(
      `the project folder ${projectDir}/gone does not exist`,
    )
  })
})
