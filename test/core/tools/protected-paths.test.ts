import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bashJudge } from '../../../main/core/tools/builtin/bash-judge.js'
import { editTool } from '../../../main/core/tools/builtin/edit.js'
import { writeTool } from '../../../main/core/tools/builtin/write.js'
import {
  PROTECTED_PATTERNS,
  foldPath,
  lockTarget,
  protectedPathReason,
} from '../../../main/core/tools/protected-paths.js'

let base: string
let project: string

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-protected-')))
  project = join(base, 'project')
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true })
  writeFileSync(join(project, '.git', 'config'), '[core]\n')
})

afterEach(() => {
  rmSync(base, { recursive: true, force: true })
})

const reasonOf = (path: string) => protectedPathReason(project, join(project, path))

const HOOK = "a git hook: it runs on the user's next commit"
const GIT_SETTINGS = "git's settings: they can make git run programs"
const CI = 'a CI workflow that runs on the next push'

describe('protectedPathReason', () => {
  it('names why each protected path matters, and leaves ordinary paths alone', () => {
    const table: [string, string | undefined][] = [
      ['.git/hooks/pre-commit', HOOK],
      ['.git/config', GIT_SETTINGS],
      ['.git/HEAD', expect.stringContaining("git's own data") as string],
      ['.git/info/exclude', expect.stringContaining("git's own data") as string],
      ['.git/modules/lib/hooks/post-checkout', HOOK],
      ['vendor/lib/.git/config', GIT_SETTINGS],
      ['vendor/lib/.git', expect.stringContaining("git's own data") as string],
      ['.envrc', 'an environment file direnv loads and runs'],
      ['services/api/.envrc', 'an environment file direnv loads and runs'],
      ['.env', 'environment secrets'],
      ['.env.local', 'environment secrets'],
      ['apps/web/.env.production', 'environment secrets'],
      ['.github/workflows/ci.yml', CI],
      ['.gitlab-ci.yml', CI],
      ['.circleci/config.yml', CI],
      ['.travis.yml', CI],
      ['azure-pipelines.yml', CI],
      ['.buildkite/pipeline.yml', CI],
      ['.husky/pre-commit', HOOK],
      ['.pre-commit-config.yaml', 'a pre-commit hook configuration'],
      ['.vscode/tasks.json', 'an editor task the editor may run'],
      ['.vscode/launch.json', 'an editor task the editor may run'],
      ['.vscode/settings.json', expect.stringContaining('editor settings') as string],
      ['.idea/runConfigurations/App.xml', expect.stringContaining('run configuration') as string],
      ['.devcontainer/devcontainer.json', expect.stringContaining('dev container') as string],
      ['.bridle/settings.json', "Bridle's own settings"],
      ['.mcp.json', "Bridle's own settings"],
      // Not protected: near misses by name.
      ['.gitignore', undefined],
      ['src/.gitignore', undefined],
      ['.gitattributes', undefined],
      ['docs/env.md', undefined],
      ['environment.ts', undefined],
      ['src/.environment', undefined],
      ['.github/ISSUE_TEMPLATE/x.md', undefined],
      ['.github/dependabot.yml', undefined],
      ['.vscode/extensions.json', undefined],
      ['hooks/pre-commit', undefined],
      ['src/git/config', undefined],
      ['README.md', undefined],
    ]
    for (const [path, reason] of table) {
      expect({ path, reason: reasonOf(path) }).toEqual({ path, reason })
    }
  })

  it('is case-insensitive and folds the spellings Windows and macOS treat as the same', () => {
    for (const path of [
      '.GIT/Hooks/pre-commit',
      '.Git/hooks/x',
      '.git./hooks/x',
      '.git::$INDEX_ALLOCATION/hooks/x',
      'GIT~1/hooks/x',
      '.g\u200cit/hooks/x',
    ]) {
      expect({ path, reason: reasonOf(path) }).toEqual({ path, reason: HOOK })
    }
    expect(reasonOf('.ENV')).toBe('environment secrets')
    expect(reasonOf('.GitHub/Workflows/CI.yml')).toBe(CI)
    expect(reasonOf('.VSCode/Tasks.JSON')).toBe('an editor task the editor may run')
  })

  it('normalizes ./, .. and trailing slashes, and accepts relative paths', () => {
    expect(protectedPathReason(project, `${project}/./a/../.git/hooks/`)).toBe(HOOK)
    expect(protectedPathReason(project, './.git/config')).toBe(GIT_SETTINGS)
    expect(protectedPathReason(project, 'src/../.git/hooks/pre-push')).toBe(HOOK)
    expect(protectedPathReason(project, `${project}/`)).toBeUndefined()
  })

  it('follows links inside the project into .git, even dangling ones', () => {
    symlinkSync('.git/hooks', join(project, 'tools'))
    symlinkSync('.git', join(project, 'meta'))
    symlinkSync('.git/hooks/post-merge', join(project, 'soon'))
    expect(reasonOf('tools/pre-commit')).toBe(HOOK)
    expect(reasonOf('meta/config')).toBe(GIT_SETTINGS)
    expect(reasonOf('soon')).toBe(HOOK)
  })

  it('treats the .git file of a worktree or submodule as protected', () => {
    mkdirSync(join(project, 'sub'))
    writeFileSync(join(project, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n')
    expect(reasonOf('sub/.git')).toContain("git's own data")
  })

  it('says nothing about paths outside the project, and never throws', () => {
    expect(protectedPathReason(project, join(base, 'elsewhere', '.git', 'config'))).toBeUndefined()
    expect(protectedPathReason(join(base, 'no-such-project'), '.git/config')).toBe(GIT_SETTINGS)
  })

  it('lists every pattern with a reason a person can read', () => {
    expect(PROTECTED_PATTERNS.map((p) => p.pattern)).toContain('.github/workflows/**')
    for (const { reason } of PROTECTED_PATTERNS) expect(reason).toMatch(/^[a-zA-Z'][^.]*$/)
  })
})

describe('one list: runs here or elsewhere', () => {
  it('locks for programs what runs on this machine, not CI or data', () => {
    const runsHere = (pattern: string) => PROTECTED_PATTERNS.find((p) => p.pattern === pattern)
    for (const pattern of ['.git/**/hooks/**', '.envrc', '.husky/**', '.mcp.json', '.bridle/**']) {
      expect({ pattern, runsHere: runsHere(pattern)?.runsHere }).toEqual({
        pattern,
        runsHere: true,
      })
    }
    for (const pattern of ['.env', '.env.*', '.github/workflows/**', '.gitlab-ci.yml', '.git/**']) {
      expect({ pattern, runsHere: runsHere(pattern)?.runsHere }).toEqual({
        pattern,
        runsHere: false,
      })
    }
  })

  it("adds the user's own patterns, in the same syntax and folding", () => {
    const mine = ['scripts/deploy.sh', 'tools/**', '*.service']
    const reason = (path: string) => protectedPathReason(project, path, mine)
    expect(reason('scripts/deploy.sh')).toContain('config.json')
    expect(reason('SCRIPTS/Deploy.sh.')).toContain('config.json')
    expect(reason('apps/web/scripts/deploy.sh')).toContain('config.json')
    expect(reason('tools')).toContain('config.json')
    expect(reason('tools/a/b.sh')).toContain('config.json')
    expect(reason('units/app.service')).toContain('config.json')
    expect(reason('scripts/build.sh')).toBeUndefined()
    // Built-in reasons come first; without the list, the user's paths are ordinary.
    expect(reason('.envrc')).toBe('an environment file direnv loads and runs')
    expect(protectedPathReason(project, 'scripts/deploy.sh')).toBeUndefined()
  })

  it("makes the bash judge ask for a line that writes to one of the user's paths", async () => {
    const judge = (protectedPaths?: string[]) =>
      bashJudge(
        { HOME: base },
        { mode: 'off', hide: [], ...(protectedPaths ? { protectedPaths } : {}) },
      )
    const call = { command: 'echo evil > scripts/deploy.sh' }
    const mine = await judge(['scripts/deploy.sh']).assess(call, { projectDir: project })
    expect(mine.level).toBe('confirm')
    expect(mine.reasons.join()).toContain('config.json')
    expect((await judge().assess(call, { projectDir: project })).level).toBe('normal')
  })

  it('says where the sandbox mounts the lock of each pattern', () => {
    const shape = (pattern: string) => {
      const { root, isFolder } = lockTarget(pattern)
      return { root, isFolder }
    }
    expect(shape('.envrc')).toEqual({ root: '.envrc', isFolder: false })
    expect(shape('.husky/**')).toEqual({ root: '.husky', isFolder: true })
    expect(shape('.vscode/tasks.json')).toEqual({ root: '.vscode/tasks.json', isFolder: false })
    expect(shape('.run/*.run.xml')).toEqual({ root: '.run', isFolder: true })
    expect(shape('*.service')).toEqual({ root: '', isFolder: false })
    expect(lockTarget('.husky/**').matches(foldPath('packages/a/.Husky'))).toBe(true)
    expect(lockTarget('.husky/**').matches(foldPath('packages/a/husky'))).toBe(false)
    expect(lockTarget('*.service').matches(foldPath('units/app.service'))).toBe(true)
  })
})

describe('assess in write and edit', () => {
  const assess = async (path: string) => ({
    write: await writeTool().assess?.(writeTool().schema.parse({ path, content: 'x' }), {
      projectDir: project,
    }),
    edit: await editTool().assess?.(editTool().schema.parse({ path, oldText: 'a', newText: 'b' }), {
      projectDir: project,
    }),
  })

  it('asks for this very call on a protected path, with no standing grant', async () => {
    const both = await assess('.git/hooks/pre-commit')
    const expected = {
      level: 'confirm',
      reasons: [`.git/hooks/pre-commit is ${HOOK}`],
      grantable: false,
    }
    expect(both).toEqual({ write: expected, edit: expected })
    expect((await assess('./src/../.ENV')).write?.reasons).toEqual(['.ENV is environment secrets'])
    expect((await assess(join(project, '.git', 'config'))).edit?.reasons).toEqual([
      `.git/config is ${GIT_SETTINGS}`,
    ])
  })

  it('asks for every built-in path that runs on this machine, with no standing grant', async () => {
    const samples = [
      '.git/hooks/pre-commit',
      '.git/config',
      '.git/HEAD',
      '.git/modules/x/hooks/post-checkout',
      'sub/.git/hooks/pre-commit',
      '.husky/pre-commit',
      '.pre-commit-config.yaml',
      '.envrc',
      '.vscode/tasks.json',
      '.vscode/launch.json',
      '.vscode/settings.json',
      '.idea/runConfigurations/App.xml',
      '.idea/workspace.xml',
      '.run/App.run.xml',
      '.devcontainer/devcontainer.json',
      '.devcontainer.json',
      '.bridle/config.json',
      '.mcp.json',
    ]
    for (const path of samples) {
      const { write } = await assess(path)
      expect({ path, level: write?.level, grantable: write?.grantable }).toEqual({
        path,
        level: 'confirm',
        grantable: false,
      })
    }
  })

  it('names where a link leads', async () => {
    symlinkSync('.git/hooks', join(project, 'tools'))
    expect((await assess('tools/pre-commit')).write?.reasons).toEqual([
      `tools/pre-commit (which leads to .git/hooks/pre-commit) is ${HOOK}`,
    ])
  })

  it('is normal for ordinary paths and for paths outside the project', async () => {
    const normal = { level: 'normal', reasons: [] }
    for (const path of ['src/app.ts', '.gitignore', '../outside/.git/config', '/etc/passwd']) {
      expect({ path, ...(await assess(path)) }).toEqual({ path, write: normal, edit: normal })
    }
  })
})
