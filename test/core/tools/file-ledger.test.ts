import { createHash } from 'node:crypto'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bashTool } from '../../../main/core/tools/builtin/bash.js'
import { editTool } from '../../../main/core/tools/builtin/edit.js'
import { readTool } from '../../../main/core/tools/builtin/read.js'
import { writeTool } from '../../../main/core/tools/builtin/write.js'
import {
  FileLedgerMap,
  ledgerFromEvents,
  sha256File,
} from '../../../main/core/tools/file-ledger.js'
import { ToolError } from '../../../main/core/tools/types.js'
import type { Tool, ToolContext, ToolOutput } from '../../../main/core/tools/types.js'
import { fullAutoTools } from '../../fixtures/pipeline.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let project: string
let ledger: FileLedgerMap
/** Every ok result, as the pipeline would log it, to rebuild the ledger from. */
let events: { type: string; data: unknown }[]
let onBeforeWrite: (path: string) => void
let h: LoopHarness | undefined

beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-ledger-')))
  ledger = new FileLedgerMap()
  events = []
  onBeforeWrite = () => undefined
})

afterEach(async () => {
  await h?.close()
  h = undefined
  rmSync(project, { recursive: true, force: true })
})

/** A tool context with `files` as its ledger (null: none at all). */
const ctx = (files: FileLedgerMap | null = ledger): ToolContext => ({
  projectDir: project,
  signal: new AbortController().signal,
  beforeWrite: (path) => onBeforeWrite(path),
  ...(files ? { files } : {}),
})

async function run(
  tool: Tool,
  args: unknown,
  files: FileLedgerMap | null = ledger,
): Promise<ToolOutput> {
  const out = await tool.run(tool.schema.parse(args), ctx(files))
  events.push({
    type: 'tool/result',
    data: { callId: `c${events.length}`, ok: true, output: out.output, metadata: out.metadata },
  })
  return out
}

/** The code a call fails with (success fails the test). */
async function failure(
  tool: Tool,
  args: unknown,
  files: FileLedgerMap | null = ledger,
): Promise<string> {
  try {
    await run(tool, args, files)
  } catch (error) {
    if (error instanceof ToolError) return error.code
    throw error
  }
  throw new Error(`${tool.name} succeeded; a ToolError was expected`)
}

const put = (path: string, content: string) => {
  mkdirSync(join(project, path, '..'), { recursive: true })
  writeFileSync(join(project, path), content)
}
const text = (path: string) => readFileSync(join(project, path), 'utf8')
const sha = (content: string | Buffer) => createHash('sha256').update(content).digest('hex')

describe('the file ledger in write and edit', () => {
  it('lets the agent write a file it read, and records what it wrote', async () => {
    put('a.txt', 'one\n')
    const read = await run(readTool(), { path: 'a.txt' })
    expect(read.metadata).toMatchObject({ path: 'a.txt', sha256: sha('one\n') })
    const out = await run(writeTool(), { path: 'a.txt', content: 'two\n' })
    expect(out.metadata).toMatchObject({ path: 'a.txt', sha256: sha('two\n') })
    expect(ledger.seen(join(project, 'a.txt'))).toBe(sha('two\n'))
    expect(text('a.txt')).toBe('two\n')
  })

  it('refuses to overwrite a file never read, but creates new files', async () => {
    put('a.txt', 'theirs\n')
    expect(await failure(writeTool(), { path: 'a.txt', content: 'mine\n' })).toBe(
      'READ_BEFORE_WRITE',
    )
    expect(text('a.txt')).toBe('theirs\n')
    await run(writeTool(), { path: 'new/b.txt', content: 'b\n' })
    expect(text('new/b.txt')).toBe('b\n')
  })

  it('refuses write and edit after the user changed the file, keeping their change', async () => {
    put('a.txt', 'const a = 1\n')
    await run(readTool(), { path: 'a.txt' })
    writeFileSync(join(project, 'a.txt'), 'const a = 1 // the user\n')
    let wasSnapshotted = false
    onBeforeWrite = () => (wasSnapshotted = true)
    expect(await failure(writeTool(), { path: 'a.txt', content: 'const a = 2\n' })).toBe(
      'STALE_FILE',
    )
    expect(await failure(editTool(), { path: 'a.txt', oldText: 'a = 1', newText: 'a = 2' })).toBe(
      'STALE_FILE',
    )
    expect(text('a.txt')).toBe('const a = 1 // the user\n')
    expect(wasSnapshotted).toBe(false)
    // Read again, and the change goes through on the new content.
    await run(readTool(), { path: 'a.txt' })
    await run(editTool(), { path: 'a.txt', oldText: 'a = 1', newText: 'a = 2' })
    expect(text('a.txt')).toBe('const a = 2 // the user\n')
  })

  it('lets the agent change its own writes again, and edit a file it never read', async () => {
    await run(writeTool(), { path: 'made.txt', content: 'v1\n' })
    await run(writeTool(), { path: 'made.txt', content: 'v2\n' })
    await run(editTool(), { path: 'made.txt', oldText: 'v2', newText: 'v3' })
    await run(editTool(), { path: 'made.txt', oldText: 'v3', newText: 'v4' })
    expect(text('made.txt')).toBe('v4\n')
    put('other.txt', 'a\nb\nx = 1\n')
    const edited = await run(editTool(), { path: 'other.txt', oldText: 'x = 1', newText: 'x = 2' })
    // Where the snippet starts, for the diff's real line numbers.
    expect(edited.metadata).toMatchObject({ startLine: 3 })
    expect(ledger.seen(join(project, 'other.txt'))).toBe(sha('a\nb\nx = 2\n'))
  })

  it('counts a partial read, hashing the whole file', async () => {
    put('ten.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''))
    const out = await run(readTool(), { path: 'ten.txt', offset: 3, limit: 2 })
    expect(out.metadata).toMatchObject({ sha256: sha(text('ten.txt')), firstLine: 3, lastLine: 4 })
    await run(writeTool(), { path: 'ten.txt', content: 'short\n' })
    expect(text('ten.txt')).toBe('short\n')
  })

  it('counts only reads that succeed, as only those are logged with a hash', async () => {
    put('three.txt', 'a\nb\nc\n')
    expect(await failure(readTool(), { path: 'three.txt', offset: 9 })).toBe('OFFSET_PAST_END')
    expect(ledger.seen(join(project, 'three.txt'))).toBeUndefined()
    expect(await failure(writeTool(), { path: 'three.txt', content: 'x' })).toBe(
      'READ_BEFORE_WRITE',
    )
    put('empty.txt', '')
    const empty = await run(readTool(), { path: 'empty.txt' })
    expect(empty.metadata).toEqual({ path: 'empty.txt', totalLines: 0, sha256: sha('') })
    await run(writeTool(), { path: 'empty.txt', content: 'now full\n' })
  })

  it('hashes the whole of a file far longer than read scans', async () => {
    const line = `${'x'.repeat(99)}\n`
    const big = line.repeat(340_000) // 34 MB: past the 32 MB read counts lines in
    put('big.txt', big)
    const out = await run(readTool(), { path: 'big.txt', limit: 1 })
    expect(out.metadata).not.toHaveProperty('totalLines')
    expect(out.metadata).toMatchObject({ sha256: sha(big) })
    expect(await sha256File(realpathSync(project), join(realpathSync(project), 'big.txt'))).toBe(
      sha(big),
    )
    expect(
      await sha256File(realpathSync(project), join(realpathSync(project), 'missing.txt')),
    ).toBeNull()
  })

  it('hashes and counts files whose end falls on, just before or just after a read chunk', async () => {
    // read stops at a short read past the size stat gave: each size here ends the scan
    // differently (inside the first 64 KB chunk, on its edge, one byte into the next).
    for (const size of [1, 65_535, 65_536, 65_537, 131_072, 200_001]) {
      const text = `${'y'.repeat(size - 1)}\n`
      put('edge.txt', text)
      const out = await run(readTool(), { path: 'edge.txt', limit: 1 })
      expect(out.metadata).toMatchObject({ sha256: sha(text), totalLines: 1 })
    }
  })

  it("refuses an edit after the agent's own command changed the file", async () => {
    put('conf.ini', 'mode = slow\n')
    await run(readTool(), { path: 'conf.ini' })
    const bash = bashTool()
    await bash.run(bash.schema.parse({ command: 'echo "extra = 1" >> conf.ini' }), ctx())
    expect(await failure(editTool(), { path: 'conf.ini', oldText: 'slow', newText: 'fast' })).toBe(
      'STALE_FILE',
    )
    expect(text('conf.ini')).toBe('mode = slow\nextra = 1\n')
  })

  it('catches a change landing while the write is under way, right before the rename', async () => {
    put('a.txt', 'base\n')
    await run(readTool(), { path: 'a.txt' })
    // beforeWrite runs after the first check and before the temp file is renamed into place.
    onBeforeWrite = (path) => writeFileSync(path, 'the user, just now\n')
    expect(await failure(writeTool(), { path: 'a.txt', content: 'agent\n' })).toBe('STALE_FILE')
    expect(text('a.txt')).toBe('the user, just now\n')
    await run(readTool(), { path: 'a.txt' })
    onBeforeWrite = (path) => writeFileSync(path, 'the user, again\n')
    expect(await failure(editTool(), { path: 'a.txt', oldText: 'user', newText: 'agent' })).toBe(
      'STALE_FILE',
    )
    expect(text('a.txt')).toBe('the user, again\n')
    expect(readdirSync(project)).toEqual(['a.txt'])
  })

  it('recreates a file the user deleted after it was read, and says so', async () => {
    put('gone.txt', 'old\n')
    await run(readTool(), { path: 'gone.txt' })
    unlinkSync(join(project, 'gone.txt'))
    expect(await failure(editTool(), { path: 'gone.txt', oldText: 'old', newText: 'new' })).toBe(
      'NOT_FOUND',
    )
    const out = await run(writeTool(), { path: 'gone.txt', content: 'new\n' })
    expect(out.output).toBe(
      'Created gone.txt: wrote 1 line (4 bytes). It had been deleted since you last read it.',
    )
  })

  it('follows links: read through a link, written through its target, is one file', async () => {
    put('real.txt', 'real\n')
    symlinkSync('real.txt', join(project, 'link.txt'))
    const read = await run(readTool(), { path: 'link.txt' })
    expect(read.metadata).toMatchObject({ path: 'real.txt', sha256: sha('real\n') })
    await run(writeTool(), { path: 'real.txt', content: 'changed\n' })
    writeFileSync(join(project, 'link.txt'), 'the user via the link\n')
    expect(await failure(writeTool(), { path: 'link.txt', content: 'x\n' })).toBe('STALE_FILE')
  })

  it('checks nothing without a ledger, as before', async () => {
    put('a.txt', 'theirs\n')
    await run(writeTool(), { path: 'a.txt', content: 'mine\n' }, null)
    expect(text('a.txt')).toBe('mine\n')
  })
})

describe('ledgerFromEvents', () => {
  it('rebuilds the same ledger, so a resumed session gives the same verdicts', async () => {
    put('read.txt', 'r\n')
    put('edited.txt', 'e\n')
    put('unread.txt', 'u\n')
    await run(readTool(), { path: 'read.txt', offset: 1, limit: 1 })
    await run(readTool(), { path: 'edited.txt' })
    await run(editTool(), { path: 'edited.txt', oldText: 'e', newText: 'E' })
    await run(writeTool(), { path: 'made.txt', content: 'm\n' })
    const rebuilt = ledgerFromEvents(events, project)
    for (const name of ['read.txt', 'edited.txt', 'unread.txt', 'made.txt']) {
      const path = join(project, name)
      expect({ name, seen: rebuilt.seen(path) }).toEqual({ name, seen: ledger.seen(path) })
    }
    writeFileSync(join(project, 'edited.txt'), 'the user\n')
    for (const files of [ledger, rebuilt]) {
      expect(await failure(writeTool(), { path: 'unread.txt', content: 'x' }, files)).toBe(
        'READ_BEFORE_WRITE',
      )
      expect(await failure(writeTool(), { path: 'edited.txt', content: 'x' }, files)).toBe(
        'STALE_FILE',
      )
    }
    await run(writeTool(), { path: 'read.txt', content: 'R\n' }, rebuilt)
  })

  it('takes the last ok result per path and skips anything else', () => {
    const ok = (metadata: unknown) => ({ type: 'tool/result', data: { ok: true, metadata } })
    const rebuilt = ledgerFromEvents(
      [
        ok({ path: 'a.txt', sha256: 'one' }),
        ok({ path: 'a.txt', sha256: 'two' }),
        ok({ path: 'gone.txt', sha256: null }),
        ok({ path: 'no-hash.txt' }),
        ok({ path: 'odd.txt', sha256: 42 }),
        ok('not an object'),
        { type: 'tool/result', data: { ok: false, metadata: { path: 'err.txt', sha256: 'x' } } },
        { type: 'tool/call', data: { metadata: { path: 'call.txt', sha256: 'x' } } },
        { type: 'tool/result', data: null },
      ],
      project,
    )
    expect(rebuilt.seen(join(project, 'a.txt'))).toBe('two')
    expect(rebuilt.seen(join(project, 'gone.txt'))).toBeNull()
    for (const name of ['no-hash.txt', 'odd.txt', 'err.txt', 'call.txt']) {
      expect(rebuilt.seen(join(project, name))).toBeUndefined()
    }
  })

  it('reads the hashes the pipeline logged in a real session', async () => {
    h = await startHarness(
      [
        {
          steps: [
            { toolCall: { id: 'c1', name: 'read', args: JSON.stringify({ path: 'a.txt' }) } },
            { finish: 'tool_calls' },
          ],
        },
        {
          steps: [
            {
              toolCall: {
                id: 'c2',
                name: 'edit',
                args: JSON.stringify({ path: 'a.txt', oldText: 'a bug', newText: 'no bug' }),
              },
            },
            { finish: 'tool_calls' },
          ],
        },
        'fixed',
      ],
      { makeTools: (dirs) => fullAutoTools([readTool(), editTool()], dirs) },
    )
    h.agent.send({ requestId: 'r', text: 'fix it' })
    await h.agent.runUntilIdle()
    const rebuilt = ledgerFromEvents(h.session.slice(), h.projectDir)
    const file = join(realpathSync(h.projectDir), 'a.txt')
    expect(readFileSync(file, 'utf8')).toBe('there is no bug here\n')
    expect(rebuilt.seen(file)).toBe(sha('there is no bug here\n'))
  })
})
