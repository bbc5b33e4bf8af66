import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { recallTool } from '../../../main/core/compaction/recall.js'
import { originOf } from '../../../main/core/compaction/branches.js'
import { forkSession, Session } from '../../../main/core/log/index.js'
import type { Store } from '../../../main/core/store/index.js'
import { appendTurn, tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'

// recall with `branches`: a conversation of three branches in a real SQLite store, searched
// through the store's full-text index.

let home: TempHome
let store: Store

beforeEach(() => {
  home = tempHome()
  store = home.open()
})

afterEach(async () => {
  await home.cleanup()
})

const ctx = { projectDir: '/p', signal: new AbortController().signal, beforeWrite: () => undefined }

/** main: teal, then large; fork A (after teal): round; fork B (after teal): pine. */
function tree() {
  const main = Session.create(store, { projectDir: '/p', title: 'main line' })
  appendTurn(main, 'the colour is teal', [{ reply: 'teal noted' }])
  const forkAt = main.length
  appendTurn(main, 'the size is large', [{ reply: 'large noted' }])
  main.close()
  const a = forkSession(store, main.id, forkAt, { title: 'branch A' })
  const b = forkSession(store, main.id, forkAt, { title: 'branch B' })
  const sessionA = Session.open(store, a)
  appendTurn(sessionA, 'the shape is round', [{ reply: 'round noted' }])
  const sessionB = Session.open(store, b)
  appendTurn(sessionB, 'the smell is pine', [{ reply: 'pine noted' }])
  sessionB.close()
  return { main: main.id, a: sessionA, b, forkAt }
}

describe('recall across branches', () => {
  it("finds what a sibling branch and the parent's later turns said, naming the branch", async () => {
    const { main, a, b, forkAt } = tree()
    const recall = recallTool(() => a, store)
    const pine = await recall.run(recall.schema.parse({ query: 'pine', branches: true }), ctx)
    expect(pine.output).toContain('the smell is pine')
    expect(pine.output).toContain(
      `another branch: "branch B" (session ${b}, forked at seq ${forkAt})`,
    )
    const large = await recall.run(recall.schema.parse({ query: 'large', branches: true }), ctx)
    expect(large.output).toContain('the size is large')
    expect(large.output).toContain(`"main line" (session ${main})`)
    // Its own history is not "another branch": teal is what this branch already holds.
    const teal = await recall.run(recall.schema.parse({ query: 'teal', branches: true }), ctx)
    expect(teal.output).toContain('No event of this or another branch matches "teal"')
    // Without `branches`, recall keeps to this branch's compacted history.
    const alone = await recall.run(recall.schema.parse({ query: 'pine' }), ctx)
    expect(alone.output).toBe('Nothing is compacted in this conversation yet.')
    expect(() => recall.run(recall.schema.parse({ fromSeq: 0, branches: true }), ctx)).toThrow(
      'needs a query',
    )
  })

  it('says which branch wrote an inherited event', () => {
    const { main, a, forkAt } = tree()
    const origin = originOf(store, a.id)
    expect(origin(forkAt)).toBe('')
    expect(origin(forkAt - 1)).toBe(` (from the earlier branch "main line" (session ${main}))`)
  })
})
