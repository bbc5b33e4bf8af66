/**
 * The home folder's credentials and start-up files (`home-files.ts`) as the file tools and the
 * sandbox see them, in a temporary folder set as HOME: only at the home folder's level, through
 * links too, and a repository's own `.npmrc` stays project data.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { assessRead, assessFileChange } from '../../../main/core/tools/builtin/file-helpers.js'
import { containsHome, homeFileOf } from '../../../main/core/tools/home-files.js'
import { defaultHiddenPaths } from '../../../main/core/tools/sandbox/hidden-paths.js'
import { lockPlan } from '../../../main/core/tools/sandbox/locks.js'
import { writeTree } from '../../fixtures/host-state.js'

let base: string
let home: string
const savedHome = process.env['HOME']

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-home-files-')))
  home = join(base, 'home')
  writeTree(home, {
    '.ssh/id_rsa': 'key\n',
    '.bashrc': '# rc\n',
    'repo/.npmrc': 'registry=https://example.invalid\n',
    'repo/.bashrc': '# a dotfiles repository\n',
  })
  symlinkSync('.ssh', join(home, 'keys'))
  process.env['HOME'] = home
})

afterEach(() => {
  process.env['HOME'] = savedHome
  rmSync(base, { recursive: true, force: true })
})

it('names credentials and start-up files only at the home level', () => {
  expect(homeFileOf(join(home, '.ssh/id_rsa'))?.kind).toBe('credential')
  expect(homeFileOf(join(home, '.aws/credentials'))?.kind).toBe('credential')
  expect(homeFileOf(join(home, '.bashrc'))?.kind).toBe('startup')
  expect(homeFileOf(join(home, 'repo/.npmrc'))).toBeUndefined()
  expect(homeFileOf(join(home, 'repo/.bashrc'))).toBeUndefined()
  expect(containsHome(home)).toBe(true)
  expect(containsHome(base)).toBe(true)
  expect(containsHome(join(home, 'repo'))).toBe(false)
  // The sandbox hides the same list.
  expect(defaultHiddenPaths(home)).toContain(join(home, '.ssh'))
})

it('asks before a read of a credential, also through a link, not in a repository', async () => {
  expect(assessRead(home, '.ssh/id_rsa')).toMatchObject({ level: 'confirm', grantable: false })
  expect(assessRead(home, 'keys/id_rsa').level).toBe('confirm')
  expect(assessRead(base, 'home/.ssh').level).toBe('confirm')
  expect(assessRead(home, '.bashrc').level).toBe('normal')
  expect(assessRead(join(home, 'repo'), '.npmrc').level).toBe('normal')
  expect((await assessFileChange(home, '.ssh/authorized_keys')).level).toBe('confirm')
  expect((await assessFileChange(home, 'keys/authorized_keys')).level).toBe('confirm')
  expect((await assessFileChange(home, '.profile')).level).toBe('confirm')
  expect((await assessFileChange(join(home, 'repo'), '.bashrc')).level).toBe('normal')
})

it('locks the start-up files of a home project for commands, existing or missing', () => {
  mkdirSync(join(home, '.config'))
  const plan = lockPlan(home)
  expect(plan.readOnly).toContain(join(home, '.bashrc'))
  const absent = plan.absent.map((a) => a.path)
  expect(absent).toContain(join(home, '.zshrc'))
  expect(absent).toContain(join(home, '.config/fish'))
  const repo = lockPlan(join(home, 'repo'))
  expect(repo.readOnly).not.toContain(join(home, 'repo/.bashrc'))
})
