import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { globTool } from '../../../../main/core/tools/builtin/glob.js'
import { grepTool } from '../../../../main/core/tools/builtin/grep.js'
import type { Tool, ToolOutput } from '../../../../main/core/tools/types.js'
import { walkProject } from '../../../../main/core/tools/builtin/walk.js'

const hasRipgrep = spawnSync('rg', ['--version']).status === 0
if (!hasRipgrep) {
  console.warn('ripgrep (rg) is not on PATH: the ripgrep half of the grep tests is skipped')
}

let folders: string[] = []

afterEach(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
  folders = []
})

function tempFolder(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-search-')))
  folders.push(folder)
  return folder
}

/** A temp project holding `files` (path -> content); returns its real path. */
function project(files: Record<string, string | Buffer>): string {
  const root = tempFolder()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

function call(
  tool: Tool,
  projectDir: string,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolOutput> {
  return tool.run(tool.schema.parse(args), { projectDir, signal, beforeWrite: () => {} })
}

async function output(tool: Tool, projectDir: string, args: Record<string, unknown>) {
  return (await call(tool, projectDir, args)).output
}

const jsGrep = grepTool({ ripgrepPath: null })
const backends: [string, Tool][] = [['js', jsGrep]]
if (hasRipgrep) backends.push(['ripgrep', grepTool({ ripgrepPath: 'rg' })])

/** A tree with ignore rules at two levels, `.git`, binary, CRLF, BOM and long lines. */
function searchProject(): string {
  const root = project({
    '.gitignore': '*.log\n!keep.log\nbuild/\n',
    '.git/info/exclude': 'excluded.txt\n',
    '.git/HEAD': 'needle in git\n',
    'a.txt': 'alpha needle\nbeta\ngamma Needle\ndelta\nepsilon\nzeta needle\n',
    'src/main.ts': [
      'import x',
      '',
      'const needle = 1',
      'one',
      'two',
      'three',
      'four',
      'needle()',
      'five',
      'return NEEDLE',
    ].join('\n'),
    'src/util/helpers.ts': 'export const needle = "x"\n',
    'src/util/helpers.test.ts': 'test(needle)\n',
    'docs/Guide.md': '# Guide\nthe NEEDLE is here\n',
    'crlf.txt': 'needle one\r\nneedle two\r\n',
    'bom.txt': '\uFEFFneedle first\n',
    'long.txt': `${'x'.repeat(600)} needle\n`,
    'bin.dat': Buffer.from('needle\0binary\n'),
    'late-bin.txt': Buffer.from(`needle\n${'x'.repeat(100)}\0\n`),
    'unicode.txt': 'ünïcödé needle\n',
    'app.log': 'needle\n',
    'keep.log': 'needle kept\n',
    'build/out.js': 'needle built\n',
    'pkg/.gitignore': 'secret.txt\n!debug.log\n',
    'pkg/secret.txt': 'needle secret\n',
    'pkg/debug.log': 'needle debug\n',
    'pkg/ok.txt': 'needle ok\n',
    'excluded.txt': 'needle excluded\n',
  })
  writeFileSync(join(root, 'huge.txt'), `needle\n${'y'.repeat(5 * 1024 * 1024)}`)
  return root
}

describe('walkProject', () => {
  it('visits in path order and stops at maxFiles', async () => {
    const root = project({ 'b.txt': '', 'a/z.txt': '', 'a.txt': '', 'B.txt': '', 'c/d.txt': '' })
    const seen: string[] = []
    const signal = new AbortController().signal
    const all = await walkProject({ root, signal }, (file) => seen.push(file.path) > 0)
    expect(all.isTruncated).toBe(false)
    expect(seen).toEqual(['B.txt', 'a/z.txt', 'a.txt', 'b.txt', 'c/d.txt'])
    seen.length = 0
    const capped = await walkProject(
      { root, signal, maxFiles: 2 },
      (file) => seen.push(file.path) > 0,
    )
    expect(capped.isTruncated).toBe(true)
    expect(seen).toEqual(['B.txt', 'a/z.txt'])
  })
})

describe('glob', () => {
  it('matches names at any depth, anchored paths and ** under a path', async () => {
    const root = project({
      'src/a.ts': '',
      'src/b.js': '',
      'src/lib/c.ts': '',
      'src/lib/deep/d.ts': '',
      'README.md': '',
      'docs/x.md': '',
    })
    const glob = globTool()
    expect(await output(glob, root, { pattern: 'src/**/*.ts' })).toBe(
      'src/a.ts\nsrc/lib/c.ts\nsrc/lib/deep/d.ts',
    )
    expect(await output(glob, root, { pattern: 'src/*.ts' })).toBe('src/a.ts')
    expect(await output(glob, root, { pattern: '*.md' })).toBe('README.md\ndocs/x.md')
    expect(await output(glob, root, { pattern: '**/*.{ts,js}', path: 'src/lib' })).toBe(
      'src/lib/c.ts\nsrc/lib/deep/d.ts',
    )
    expect(await output(glob, root, { pattern: 'src/[ab].*' })).toBe('src/a.ts\nsrc/b.js')
    expect(await output(glob, root, { pattern: '*.rs' })).toBe(
      'No files match *.rs under the project folder',
    )
  })

  it('caps the list and says how many are not shown', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 1005; i++) files[`f/${String(i).padStart(4, '0')}.txt`] = ''
    const lines = (await output(globTool(), project(files), { pattern: '*.txt' })).split('\n')
    expect(lines).toHaveLength(1001)
    expect(lines[0]).toBe('f/0000.txt')
    expect(lines[1000]).toMatch(/^\[5 more not shown/)
  })

  it('honours .gitignore at every level, .git/info/exclude, and skips .git', async () => {
    const root = project({
      '.gitignore': '*.log\n!keep.log\nbuild/\n',
      '.git/info/exclude': 'excluded.txt\n',
      '.git/config': '',
      'a.log': '',
      'keep.log': '',
      'build/out.js': '',
      'excluded.txt': '',
      'pkg/.gitignore': 'secret.txt\n/local/\n!debug.log\n',
      'pkg/secret.txt': '',
      'pkg/debug.log': '',
      'pkg/local/x.txt': '',
      'pkg/other/local/y.txt': '',
      'pkg/ok.txt': '',
      'other/secret.txt': '',
    })
    expect(await output(globTool(), root, { pattern: '**' })).toBe(
      [
        '.gitignore',
        'keep.log',
        'other/secret.txt',
        'pkg/.gitignore',
        'pkg/debug.log',
        'pkg/ok.txt',
        'pkg/other/local/y.txt',
      ].join('\n'),
    )
  })

  it('searches a folder named explicitly even when it is ignored', async () => {
    const root = project({ '.gitignore': 'build/\n', 'build/out.js': '', 'src/a.js': '' })
    expect(await output(globTool(), root, { pattern: '*.js', path: 'build' })).toBe('build/out.js')
  })

  it('refuses paths outside the project and a bad glob', async () => {
    const root = project({ 'a.txt': '' })
    await expect(call(globTool(), root, { pattern: '*', path: '..' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_PROJECT',
    })
    await expect(call(globTool(), root, { pattern: 'src/{a,b' })).rejects.toMatchObject({
      code: 'INVALID_GLOB',
    })
    await expect(call(globTool(), root, { pattern: '*', path: 'missing' })).rejects.toMatchObject({
      code: 'PATH_NOT_FOUND',
    })
  })

  it('stops on an aborted signal', async () => {
    const root = project({ 'a/b.txt': '' })
    const controller = new AbortController()
    const running = call(globTool(), root, { pattern: '**' }, controller.signal)
    controller.abort()
    await expect(running).rejects.toMatchObject({ name: 'AbortError' })
  })
})

describe.each(backends)('grep through %s', (name, grep) => {
  it('lists matching lines, files and counts', async () => {
    const root = searchProject()
    const result = await call(grep, root, { pattern: 'needle', path: 'src' })
    expect(result.metadata?.backend).toBe(name)
    expect(result.output).toBe(
      [
        'src/main.ts:3:const needle = 1',
        'src/main.ts:8:needle()',
        'src/util/helpers.test.ts:1:test(needle)',
        'src/util/helpers.ts:1:export const needle = "x"',
      ].join('\n'),
    )
    expect(await output(grep, root, { pattern: 'needle', path: 'src', outputMode: 'files' })).toBe(
      'src/main.ts\nsrc/util/helpers.test.ts\nsrc/util/helpers.ts',
    )
    expect(
      await output(grep, root, { pattern: 'needle', ignoreCase: true, outputMode: 'count' }),
    ).toContain('a.txt:3\n')
  })

  it('shows context lines and separates groups', async () => {
    const root = searchProject()
    expect(await output(grep, root, { pattern: 'needle', path: 'src/main.ts', context: 1 })).toBe(
      [
        'src/main.ts-2-',
        'src/main.ts:3:const needle = 1',
        'src/main.ts-4-one',
        '--',
        'src/main.ts-7-four',
        'src/main.ts:8:needle()',
        'src/main.ts-9-five',
      ].join('\n'),
    )
  })

  it('filters by glob, including a negated one', async () => {
    const root = searchProject()
    expect(await output(grep, root, { pattern: 'needle', glob: '*.test.ts' })).toBe(
      'src/util/helpers.test.ts:1:test(needle)',
    )
    const withoutSrc = await output(grep, root, { pattern: 'needle', glob: '!src' })
    expect(withoutSrc).toContain('a.txt:1:alpha needle')
    expect(withoutSrc).not.toContain('src/')
  })

  it('respects .gitignore and skips .git, binary and oversized files', async () => {
    const root = searchProject()
    const files = await output(grep, root, { pattern: 'needle', outputMode: 'files' })
    expect(files.split('\n')).toEqual([
      'a.txt',
      'bom.txt',
      'crlf.txt',
      'keep.log',
      'long.txt',
      'pkg/debug.log',
      'pkg/ok.txt',
      'src/main.ts',
      'src/util/helpers.test.ts',
      'src/util/helpers.ts',
      'unicode.txt',
    ])
    // A glob naming ignored files does not bring them back (ripgrep's -g alone would).
    expect(await output(grep, root, { pattern: 'needle', glob: '*.log' })).toBe(
      'keep.log:1:needle kept\npkg/debug.log:1:needle debug',
    )
  })

  it('reports an invalid regular expression as INVALID_PATTERN', async () => {
    const root = searchProject()
    for (const pattern of ['a(', '[z-a]', '(?i)needle', 'needle\\n']) {
      await expect(call(grep, root, { pattern })).rejects.toMatchObject({
        code: 'INVALID_PATTERN',
      })
    }
  })

  it('says so when nothing matches', async () => {
    const root = searchProject()
    expect(await output(grep, root, { pattern: 'absent', glob: '*.ts' })).toBe(
      'No matches for /absent/ in the project folder (files matching *.ts)',
    )
  })

  it('never searches through a symlink out of the project', async () => {
    const outside = tempFolder()
    writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE_MARKER\n')
    const root = project({ 'inside.txt': 'inside\n' })
    symlinkSync(outside, join(root, 'ext'))
    symlinkSync(join(outside, 'secret.txt'), join(root, 'ext.txt'))
    expect(await output(grep, root, { pattern: 'OUTSIDE_MARKER' })).toMatch(/^No matches/)
    expect(await output(globTool(), root, { pattern: '**' })).toBe('inside.txt')
    for (const path of ['ext', 'ext.txt', '..', outside]) {
      await expect(call(grep, root, { pattern: 'x', path })).rejects.toMatchObject({
        code: 'PATH_OUTSIDE_PROJECT',
      })
    }
  })

  it('stops on an aborted signal', async () => {
    const root = searchProject()
    await expect(
      call(grep, root, { pattern: 'needle' }, AbortSignal.abort()),
    ).rejects.toMatchObject({ name: 'AbortError' })
    const controller = new AbortController()
    const running = call(grep, root, { pattern: 'needle' }, controller.signal)
    controller.abort()
    await expect(running).rejects.toMatchObject({ name: 'AbortError' })
  })
})

/** Queries whose output must not depend on the backend. */
const sameQueries: Record<string, unknown>[] = [
  { pattern: 'needle' },
  { pattern: 'needle', ignoreCase: true },
  { pattern: 'needle', context: 2 },
  { pattern: 'needle', context: 1, maxResults: 4 },
  { pattern: 'needle', outputMode: 'files' },
  { pattern: 'needle', outputMode: 'files', maxResults: 2 },
  { pattern: 'needle', outputMode: 'count', ignoreCase: true },
  { pattern: 'needle', outputMode: 'count', maxResults: 3 },
  { pattern: 'needle', maxResults: 3 },
  { pattern: 'needle', glob: '*.ts' },
  { pattern: 'needle', glob: '!src' },
  { pattern: 'needle', glob: 'src/**/*.{ts,md}' },
  { pattern: 'needle', glob: '*.log' },
  { pattern: 'needle', path: 'src', glob: 'util/*.ts' },
  { pattern: 'needle', path: 'build' },
  { pattern: 'needle', path: 'a.txt', context: 10 },
  { pattern: '^needle' },
  { pattern: 'two$' },
  { pattern: '\\bNeedle\\b' },
  { pattern: '(?<=alpha )needle' },
  { pattern: 'ü\\w+' },
  { pattern: 'x{3}\\s+needle' },
  { pattern: 'absent' },
]

describe.runIf(hasRipgrep)('grep backends', () => {
  it('give the same output for the same query', async () => {
    const root = searchProject()
    const rg = grepTool()
    for (const query of sameQueries) {
      const viaRipgrep = await call(rg, root, query)
      const viaJs = await call(jsGrep, root, query)
      expect({ query, output: viaRipgrep.output }).toEqual({ query, output: viaJs.output })
    }
    expect((await call(rg, root, { pattern: 'needle' })).metadata?.backend).toBe('ripgrep')
  })

  it('kills ripgrep when the signal aborts mid-search', async () => {
    const folder = tempFolder()
    const pidFile = join(folder, 'pid')
    const fake = join(folder, 'fake-rg')
    writeFileSync(fake, `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 30\n`)
    chmodSync(fake, 0o755)
    const root = project({ 'a.txt': 'needle\n' })
    const controller = new AbortController()
    const running = call(grepTool({ ripgrepPath: fake }), root, { pattern: 'x' }, controller.signal)
    const started = Date.now()
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '') {
      if (Date.now() - started > 10_000) throw new Error('the fake ripgrep did not start')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    controller.abort()
    await expect(running).rejects.toMatchObject({ name: 'AbortError' })
    const pid = Number(readFileSync(pidFile, 'utf8'))
    expect(() => process.kill(pid, 0)).toThrow()
  })
})
