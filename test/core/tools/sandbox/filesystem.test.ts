/**
 * The sandbox's file system, with real bwrap: the project is the one writable place, everything
 * else is unchanged whatever the command tries (a hashed sentinel tree outside the project), and
 * no capability survives to undo that, even when the tests run as root.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashTree, marker, runSandboxed, sandboxStatus, scratch, writeTree } from './helpers.js'

const status = await sandboxStatus()
const bwrap = status.available ? status.bwrap : ''

/** A base folder holding `project/` (empty) and `outside/` (sentinels), plus their hashes. */
function layout() {
  const base = scratch()
  const projectDir = join(base, 'project')
  const outside = join(base, 'outside')
  mkdirSync(projectDir)
  writeTree(outside, { 'a.txt': 'sentinel a', 'deep/b.txt': 'sentinel b', 'home/.profile': 'p' })
  return { base, projectDir, outside, before: hashTree(base) }
}

describe.skipIf(!status.available)('sandbox file system', () => {
  it('lets the command write in the project, and nowhere outside it', async () => {
    const { base, projectDir, outside } = layout()
    const ran = await runSandboxed(
      'echo made > new.txt && mkdir sub && echo ok > sub/f && cat new.txt',
      {
        bwrap,
        projectDir,
      },
    )
    expect(ran.output).toBe('made\n')
    expect(readFileSync(join(projectDir, 'sub/f'), 'utf8')).toBe('ok\n')

    const before = hashTree(outside)
    const attempts = [
      'touch ../x',
      'cd .. && touch x',
      `echo evil > ${outside}/a.txt`,
      `echo evil >> ${outside}/deep/b.txt`,
      `rm -f ${outside}/a.txt`,
      `mv ${outside}/deep ${outside}/moved`,
      `echo evil > /proc/self/root${outside}/a.txt`,
      `echo evil > /proc/1/root${outside}/a.txt`,
      'echo evil > /etc/bridle-sandbox-test',
      `ln -s ${outside} escape && echo evil > escape/a.txt`,
      'ln -s ../.. up && touch up/x',
      `ln ${outside}/a.txt hard && echo evil > hard`,
    ]
    for (const attempt of attempts) {
      const ran = await runSandboxed(attempt, { bwrap, projectDir })
      expect(ran.code, attempt).not.toBe(0)
    }
    expect(hashTree(outside)).toEqual(before)
    expect(existsSync(join(base, 'x'))).toBe(false)
    expect(existsSync('/etc/bridle-sandbox-test')).toBe(false)
  })

  it('follows a symlink the project already holds, but cannot write through it', async () => {
    const { projectDir, outside } = layout()
    symlinkSync(outside, join(projectDir, 'link'))
    const before = hashTree(outside)
    const ran = await runSandboxed('cat link/a.txt; echo evil > link/a.txt; touch link/new', {
      bwrap,
      projectDir,
    })
    expect(ran.output).toContain('sentinel a')
    expect(ran.output).toContain('Read-only file system')
    expect(hashTree(outside)).toEqual(before)
  })

  it('survives rm -rf ../* and rm -rf "$HOME" (the project itself may be emptied)', async () => {
    const { base, projectDir, outside } = layout()
    const home = join(outside, 'home')
    writeFileSync(join(projectDir, 'mine.txt'), 'project file')
    const before = hashTree(outside)
    const ran = await runSandboxed('rm -rf ../*; rm -rf "$HOME"; rm -rf ~/; ls -A', {
      bwrap,
      projectDir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
    })
    expect(ran.output).toContain('Read-only file system')
    expect(hashTree(outside)).toEqual(before)
    // The project is writable, so its content is gone; the folder, a mount point, stays.
    expect(existsSync(projectDir)).toBe(true)
    expect(existsSync(join(projectDir, 'mine.txt'))).toBe(false)
    expect(existsSync(base)).toBe(true)
  })

  it('leaves no capability: remount, chmod, chown, umount and mknod all fail', async () => {
    const { projectDir, outside } = layout()
    const before = hashTree(outside)
    const ran = await runSandboxed(
      [
        'grep -E "^Cap(Eff|Prm|Bnd|Amb):" /proc/self/status',
        'mount -o remount,rw / && echo REMOUNTED',
        `mount -o remount,rw ${outside} && echo REMOUNTED`,
        `chmod 777 ${outside}/a.txt && echo CHMODDED`,
        `chown 12345 ${outside}/a.txt && echo CHOWNED`,
        'umount /tmp && echo UNMOUNTED',
        'mknod dev c 1 3 && echo MKNODDED',
        `unshare -Urm sh -c "mount -o remount,rw ${outside} && echo > ${outside}/a.txt" && echo UNSHARED`,
      ].join('; '),
      { bwrap, projectDir },
    )
    for (const line of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) {
      expect(ran.output).toMatch(new RegExp(`^${line}:\\s*0+$`, 'm'))
    }
    for (const word of ['REMOUNTED', 'CHMODDED', 'CHOWNED', 'UNMOUNTED', 'MKNODDED', 'UNSHARED']) {
      expect(ran.output).not.toContain(word)
    }
    expect(hashTree(outside)).toEqual(before)
  })

  it('gives the command a private /tmp, and TMPDIR points at it', async () => {
    const projectDir = layout().projectDir
    const mine = marker('tmp')
    const hostFile = join(tmpdir(), `${mine}-host`)
    writeFileSync(hostFile, 'host')
    try {
      const ran = await runSandboxed(
        `echo inside > /tmp/${mine}; echo "TMPDIR=$TMPDIR"; ls -A /tmp; test -e ${hostFile} && echo SEES-HOST`,
        {
          bwrap,
          projectDir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: '/var/somewhere-else' },
        },
      )
      expect(ran.output).toBe(`TMPDIR=/tmp\n${mine}\n`)
      expect(existsSync(`/tmp/${mine}`)).toBe(false)
      expect(existsSync(join(tmpdir(), mine))).toBe(false)
    } finally {
      rmSync(hostFile)
    }
  })

  it('works for a project under the host /tmp, inside the private one', async () => {
    const projectDir = join(scratch(tmpdir()), 'project')
    mkdirSync(projectDir)
    const ran = await runSandboxed('echo ok > f && pwd && ls /tmp', { bwrap, projectDir })
    expect(ran.code).toBe(0)
    expect(ran.output.split('\n')[0]).toBe(projectDir)
    expect(readFileSync(join(projectDir, 'f'), 'utf8')).toBe('ok\n')
  })
})
