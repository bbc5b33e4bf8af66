import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  importPluginFile,
  Kernel,
  PluginFileError,
  pluginPath,
} from '../../../main/core/kernel/index.js'
import type { Emit } from '../../../main/core/kernel/index.js'

type Events = { 'log/appended': Emit<{ seq: number }> }

let dir = ''
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-plugin-file-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const write = (name: string, text: string): string => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

async function failure(path: string): Promise<PluginFileError> {
  try {
    await importPluginFile(path)
  } catch (error) {
    expect(error).toBeInstanceOf(PluginFileError)
    return error as PluginFileError
  }
  throw new Error('expected the import to fail')
}

describe('plugin files', () => {
  it('resolves a configured path against the data folder unless it is absolute', () => {
    expect(pluginPath('plugins/a.mjs', '/data')).toBe('/data/plugins/a.mjs')
    expect(pluginPath('/opt/b.mjs', '/data')).toBe('/opt/b.mjs')
  })

  it('imports a default-exported plugin that registers like any other, named after its file when it has no name', async () => {
    const path = write(
      'counter.mjs',
      `export default { setup(ctx) { ctx.on('log/appended', (p) => { globalThis.__seen = p.seq }) } }`,
    )
    const plugin = await importPluginFile<Events, object>(path)
    expect(plugin.name).toBe('counter')
    const kernel = new Kernel<Events>()
    await kernel.load(plugin)
    kernel.emit('log/appended', { seq: 5 })
    expect((globalThis as { __seen?: number }).__seen).toBe(5)
  })

  it('says in words what is wrong with a file: missing, throwing on import, no plugin exported', async () => {
    const missing = await failure(join(dir, 'nope.mjs'))
    expect(missing.message).toBe(
      `the plugin ${join(dir, 'nope.mjs')} cannot be read: there is no such file`,
    )
    const throwing = await failure(write('throws.mjs', `throw new Error('broken on purpose')`))
    expect(throwing.message).toContain('failed to load: broken on purpose')
    const empty = await failure(write('empty.mjs', `export const x = 1`))
    expect(empty.message).toContain('has no default export')
    const noSetup = await failure(write('nosetup.mjs', `export default { name: 'n' }`))
    expect(noSetup.message).toContain('exports no setup(ctx) function')
  })

  it('imports the file again once it changed', async () => {
    const path = write('versioned.mjs', `export default { name: 'one', setup() {} }`)
    expect((await importPluginFile(path)).name).toBe('one')
    writeFileSync(path, `export default { name: 'two', setup() {} }`)
    const later = new Date(Date.now() + 5000)
    utimesSync(path, later, later)
    expect((await importPluginFile(path)).name).toBe('two')
  })
})
