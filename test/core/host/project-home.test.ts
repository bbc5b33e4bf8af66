/**
 * `project/open` on the home folder, or a folder that holds it (`/`): the host does not open it
 * until the user confirmed the warning it returns (`allowHome`), and does not list it as a recent
 * project meanwhile. Uses this machine's own home folder by path only: nothing in it is read.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { MethodName, ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'

let base: string
let host: Host

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-project-home-')))
  host = await boot({ home: join(base, 'data'), version: '0.0.0', versions: {} })
})

afterEach(async () => {
  await host.close()
  rmSync(base, { recursive: true, force: true })
})

async function ok<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await dispatchCall(host, method, params, { transport: 'in-process' })
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

it('warns before opening the home folder or a folder that holds it, and opens on allowHome', async () => {
  const home = realpathSync(homedir())
  for (const path of [home, dirname(home), '/']) {
    const refused = await ok('project/open', { path })
    expect(refused.project, path).toBeNull()
    expect(refused.homeWarning?.path, path).toBe(path)
    expect(refused.homeWarning?.message, path).toContain('is your home folder or holds it')
  }
  expect((await ok('project/recent', {})).projects).toEqual([])
  // An ordinary folder opens as before, with no warning.
  expect(await ok('project/open', { path: base })).toEqual({
    project: expect.objectContaining({ path: base }) as unknown,
  })
  const opened = await ok('project/open', { path: home, allowHome: true })
  expect(opened.project?.path).toBe(home)
  expect(opened.homeWarning).toBeUndefined()
})
