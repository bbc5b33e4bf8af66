import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LIST_CACHE_MS, ProjectFileLister } from '../../../main/core/host/sessions/file-list.js'

let home: string
let project: string

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-files-')))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(() => rmSync(home, { recursive: true, force: true }))

const write = (path: string, text = 'x') => {
  mkdirSync(join(project, path, '..'), { recursive: true })
  writeFileSync(join(project, path), text)
}

describe('project/files', () => {
  it('lists project files without .git, node_modules, ignored paths or links out of the folder', async () => {
    write('README.md')
    write('src/main.ts')
    write('.git/config')
    write('node_modules/pkg/index.js')
    write('dist/out.js')
    write('.gitignore', 'dist/\n')
    mkdirSync(join(home, 'outside'))
    writeFileSync(join(home, 'outside', 'secret.txt'), 'secret')
    symlinkSync(join(home, 'outside'), join(project, 'escape'))
    symlinkSync(join(home, 'outside', 'secret.txt'), join(project, 'secret-link.txt'))

    const listing = await new ProjectFileLister().list(project)
    expect(listing).toEqual({ paths: ['.gitignore', 'README.md', 'src/main.ts'], isComplete: true })
  })

  it('reuses a listing briefly, then walks the folder again', async () => {
    write('a.txt')
    let now = 1000
    const lister = new ProjectFileLister(() => now)
    expect((await lister.list(project)).paths).toEqual(['a.txt'])
    write('b.txt')
    expect((await lister.list(project)).paths).toEqual(['a.txt'])
    now += LIST_CACHE_MS
    expect((await lister.list(project)).paths).toEqual(['a.txt', 'b.txt'])
  })
})
