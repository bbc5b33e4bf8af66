import { lstatSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../../../main/core/store/index.js'
import { freshStore, row, tempFolder, track } from './helpers.js'

describe('backupTo', () => {
  it('writes a copy that opens as a valid store with the same rows', () => {
    const store = freshStore()
    store.createSession({
      id: 'root',
      parentId: null,
      forkSeq: null,
      projectDir: '/p',
      title: 'T',
      createdAt: 1,
    })
    store.write(() =>
      store.appendEvents('root', [
        row('root', 0),
        row('root', 1, {
          type: 'user/message',
          data: '{"content":"back me up"}',
        }),
      ]),
    )
    store.createSession({
      id: 'fork',
      parentId: 'root',
      forkSeq: 1,
      projectDir: '/p',
      title: null,
      createdAt: 4,
    })
    store.lockSession('root')

    const target = join(tempFolder(), 'copy.db')
    store.backupTo(target)
    expect(lstatSync(target).mode & 0o777).toBe(0o600)

    const copy = track(openStore(target))
    expect(copy.listTree()).toEqual(store.listTree())
    expect(copy.readEvents('root')).toEqual(store.readEvents('root'))
    expect(copy.readEvents('fork')).toEqual(store.readEvents('fork'))
    expect(copy.search('back', { limit: 5 })).toEqual(store.search('back', { limit: 5 }))
    // The locks belong to the live file's processes, not to the copy.
    copy.lockSession('root')
  })

  it('never overwrites an existing file', () => {
    const store = freshStore()
    const target = join(tempFolder(), 'taken.db')
    writeFileSync(target, 'keep me')
    expect(() => store.backupTo(target)).toThrow(/EEXIST/)
  })
})
