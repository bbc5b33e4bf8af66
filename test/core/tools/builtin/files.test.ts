import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { editTool } from '../../../../main/core/tools/builtin/edit.js'
import { listTool } from '../../../../main/core/tools/builtin/list.js'
import { presentTool } from '../../../../main/core/tools/builtin/present.js'
import { readTool } from '../../../../main/core/tools/builtin/read.js'
import { writeTool } from '../../../../main/core/tools/builtin/write.js'
import { ToolError } from '../../../../main/core/tools/types.js'
import type { Tool, ToolContext, ToolOutput } from '../../../../main/core/tools/types.js'
import { fullAutoTools } from '../../../fixtures/pipeline.js'
import { startHarness } from '../../loop/harness.js'
import type { LoopHarness } from '../../loop/harness.js'

let base: string
/** The project folder (a realpath, as the pipeline gives it). */
let project: string
/** A sentinel folder next to the project that no tool may touch. */
let outside: string
let beforeWrite: ReturnType<typeof vi.fn<(path: string) => void>>
let h: LoopHarness | undefined

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-files-')))
  project = join(base, 'project')
  outside = join(base, 'outside')
  mkdirSync(project)
  mkdirSync(join(outside, 'sub'), { recursive: true })
  writeFileSync(join(outside, 'secret.txt'), 'do not touch\n')
  writeFileSync(join(outside, 'sub', 'deep.txt'), 'deep\n')
  beforeWrite = vi.fn<(path: string) => void>()
})

afterEach(async () => {
  await h?.close()
  h = undefined
  rmSync(base, { recursive: true, force: true })
})

const ctx = (): ToolContext => ({
  projectDir: project,
  signal: new AbortController().signal,
  beforeWrite,
})

const run = (tool: Tool, args: unknown, context = ctx()): Promise<ToolOutput> =>
  tool.run(tool.schema.parse(args), context)

/** The ToolError a call fails with (a different failure fails the test). */
async function failure(tool: Tool, args: unknown): Promise<ToolError> {
  try {
    await run(tool, args)
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error(`${tool.name} succeeded; a ToolError was expected`)
}

const put = (path: string, content: string | Buffer) => {
  mkdirSync(join(project, path, '..'), { recursive: true })
  writeFileSync(join(project, path), content)
}
const text = (path: string) => readFileSync(join(project, path), 'utf8')

/** Every path and file content under a folder, to prove it stayed byte-identical. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name)
      const key = `${prefix}${name}`
      if (lstatSync(path).isDirectory()) {
        out[`${key}/`] = ''
        walk(path, `${key}/`)
      } else {
        out[key] = readFileSync(path).toString('base64')
      }
    }
  }
  walk(dir, '')
  return out
}

const numberedLines = (from: number, to: number, line = (n: number) => `line ${n}`) =>
  Array.from(
    { length: to - from + 1 },
    (_, i) => `${String(from + i).padStart(6)}\t${line(from + i)}`,
  )

describe('read', () => {
  it('shows a line range with numbers and says where to go on', async () => {
    put('ten.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''))
    const page = await run(readTool(), { path: 'ten.txt', offset: 3, limit: 4 })
    expect(page.output).toBe(
      [
        ...numberedLines(3, 6),
        '',
        '[ten.txt has 10 lines; showing 3-6; read again with offset=7 for more]',
      ].join('\n'),
    )
    const whole = await run(readTool(), { path: 'ten.txt' })
    expect(whole.output).toBe(numberedLines(1, 10).join('\n'))
    const tail = await run(readTool(), { path: 'ten.txt', offset: 9 })
    expect(tail.output).toBe(numberedLines(9, 10).join('\n'))
  })

  it('stops at 2000 lines by default, cuts overlong lines and hides CR of CRLF', async () => {
    put('long.txt', Array.from({ length: 2500 }, (_, i) => `line ${i + 1}`).join('\n'))
    const page = await run(readTool(), { path: 'long.txt' })
    expect(page.output.split('\n')).toHaveLength(2002)
    expect(page.output).toContain('  2000\tline 2000\n')
    expect(page.output).toContain(
      'long.txt has 2500 lines; showing 1-2000; read again with offset=2001',
    )

    put('heavy.txt', Array.from({ length: 100 }, () => 'y'.repeat(1000)).join('\n'))
    const heavy = await run(readTool(), { path: 'heavy.txt' })
    expect(Buffer.byteLength(heavy.output)).toBeLessThan(50 * 1024)
    expect(heavy.output).toMatch(
      /heavy\.txt has 100 lines; showing 1-(\d+) \(output limit of 48 KB\); read again with offset=\d+/,
    )

    put('wide.txt', `short\r\n${'é'.repeat(5000)}\r\nend\r\n`)
    const wide = await run(readTool(), { path: 'wide.txt' })
    const lines = wide.output.split('\n')
    expect(lines[0]).toBe('     1\tshort')
    expect(lines[1]).toBe(`     2\t${'é'.repeat(2000)} [… line cut at 2000 characters]`)
    expect(lines[2]).toBe('     3\tend')
  })

  it('refuses binary files, missing files, folders and offsets past the end', async () => {
    put('blob.bin', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]))
    const binary = await failure(readTool(), { path: 'blob.bin' })
    expect(binary.code).toBe('BINARY_FILE')
    expect(binary.message).toContain('blob.bin is a binary file (7 bytes)')

    const missing = await failure(readTool(), { path: 'nope/none.txt' })
    expect(missing.code).toBe('NOT_FOUND')
    expect(missing.message).toContain('nope/none.txt does not exist')
    expect(missing.message).not.toContain(project)

    mkdirSync(join(project, 'folder'))
    expect((await failure(readTool(), { path: 'folder' })).code).toBe('NOT_A_FILE')

    put('three.txt', 'a\nb\nc\n')
    const past = await failure(readTool(), { path: 'three.txt', offset: 9 })
    expect(past.code).toBe('OFFSET_PAST_END')
    expect(past.message).toContain('has 3 lines')

    put('empty.txt', '')
    expect((await run(readTool(), { path: 'empty.txt' })).output).toBe('(empty.txt is empty)')
  })
})

describe('write', () => {
  it('creates a file and its parent folders, announcing the path first', async () => {
    const folderExisted: boolean[] = []
    beforeWrite.mockImplementation(() => {
      folderExisted.push(existsSync(join(project, 'a')))
    })
    const out = await run(writeTool(), { path: 'a/b/new.txt', content: 'one\ntwo\n' })
    expect(text('a/b/new.txt')).toBe('one\ntwo\n')
    expect(out.output).toBe('Created a/b/new.txt: wrote 2 lines (8 bytes).')
    expect(beforeWrite).toHaveBeenCalledWith(join(project, 'a', 'b', 'new.txt'))
    expect(folderExisted).toEqual([false])
  })

  it('overwrites atomically, after beforeWrite saw the old content, keeping the mode', async () => {
    put('keep.sh', 'old\n')
    chmodSync(join(project, 'keep.sh'), 0o750)
    const seen: string[] = []
    beforeWrite.mockImplementation((path) => {
      seen.push(readFileSync(path, 'utf8'))
    })
    const out = await run(writeTool(), { path: './keep.sh', content: 'new\ncontent' })
    expect(seen).toEqual(['old\n'])
    expect(text('keep.sh')).toBe('new\ncontent')
    expect(statSync(join(project, 'keep.sh')).mode & 0o7777).toBe(0o750)
    expect(out.output).toBe('Overwrote keep.sh: wrote 2 lines (11 bytes).')
    expect(readdirSync(project)).toEqual(['keep.sh'])
  })

  it('refuses a folder as target, and parent folders that are files', async () => {
    mkdirSync(join(project, 'dir'))
    expect((await failure(writeTool(), { path: 'dir', content: 'x' })).code).toBe('NOT_A_FILE')
    put('file.txt', 'x')
    expect((await failure(writeTool(), { path: 'file.txt/inner', content: 'x' })).code).toBe(
      'NOT_A_FILE',
    )
  })

  it('writes through a dangling link that points inside the project', async () => {
    symlinkSync('made.txt', join(project, 'soon'))
    await run(writeTool(), { path: 'soon', content: 'via link' })
    expect(text('made.txt')).toBe('via link')
    expect(lstatSync(join(project, 'soon')).isSymbolicLink()).toBe(true)
  })

  it('describes itself and keys approvals by the relative path', () => {
    const tool = writeTool()
    const args = tool.schema.parse({ path: './src/../src/a.ts', content: 'a\nb\n' })
    expect(tool.describe?.(args)).toBe('write ./src/../src/a.ts (2 lines)')
    expect(tool.approvalKey?.(args)).toBe('src/a.ts')
    expect(tool.approvalKey?.(tool.schema.parse({ path: '../x', content: '' }))).toBeUndefined()
    expect(tool.approvalKey?.(tool.schema.parse({ path: '/etc/x', content: '' }))).toBeUndefined()
  })
})

describe('edit', () => {
  it('replaces one exact occurrence and shows the changed region', async () => {
    put('code.ts', 'const a = 1\nconst b = 2\nconst c = 3\n')
    const seen: string[] = []
    beforeWrite.mockImplementation((path) => {
      seen.push(readFileSync(path, 'utf8'))
    })
    const out = await run(editTool(), { path: 'code.ts', oldText: 'b = 2', newText: 'b = $& + 20' })
    expect(text('code.ts')).toBe('const a = 1\nconst b = $& + 20\nconst c = 3\n')
    expect(seen).toEqual(['const a = 1\nconst b = 2\nconst c = 3\n'])
    expect(out.output).toBe(
      [
        'Replaced 1 occurrence in code.ts.',
        '',
        '     1\tconst a = 1',
        '     2\tconst b = $& + 20',
        '     3\tconst c = 3',
      ].join('\n'),
    )
  })

  it('answers no match, pointing at a match that differs only in whitespace', async () => {
    put('code.py', 'def f():\n    if x:\n        return 1\n')
    const loose = await failure(editTool(), {
      path: 'code.py',
      oldText: 'if x:\n    return 1',
      newText: 'if y:\n    return 2',
    })
    expect(loose.code).toBe('EDIT_NO_MATCH')
    expect(loose.message).toContain('starts on line 2')
    expect(loose.message).toContain('     3\t        return 1')

    const none = await failure(editTool(), { path: 'code.py', oldText: 'nothing', newText: 'x' })
    expect(none.code).toBe('EDIT_NO_MATCH')
    expect(none.message).toContain('not found in code.py')
    expect(beforeWrite).not.toHaveBeenCalled()
  })

  it('refuses an ambiguous match naming the count and lines, unless replaceAll', async () => {
    put('twice.txt', 'foo()\nbar()\nfoo()\n')
    const ambiguous = await failure(editTool(), {
      path: 'twice.txt',
      oldText: 'foo()',
      newText: 'baz()',
    })
    expect(ambiguous.code).toBe('EDIT_AMBIGUOUS')
    expect(ambiguous.message).toContain('2 times')
    expect(ambiguous.message).toContain('lines 1, 3')
    expect(text('twice.txt')).toBe('foo()\nbar()\nfoo()\n')
    expect(beforeWrite).not.toHaveBeenCalled()

    const out = await run(editTool(), {
      path: 'twice.txt',
      oldText: 'foo()',
      newText: 'baz()',
      replaceAll: true,
    })
    expect(text('twice.txt')).toBe('baz()\nbar()\nbaz()\n')
    expect(out.output).toContain('Replaced 2 occurrences in twice.txt.')
    expect(out.metadata).toMatchObject({ replacements: 2 })
  })

  it('keeps CRLF line ends when the model writes \\n', async () => {
    put('win.txt', 'one\r\ntwo\r\nthree\r\n')
    await run(editTool(), { path: 'win.txt', oldText: 'one\ntwo', newText: 'uno\ndos\ntres' })
    expect(text('win.txt')).toBe('uno\r\ndos\r\ntres\r\nthree\r\n')
  })

  it('refuses no-op edits, empty oldText, and missing files', async () => {
    put('same.txt', 'x\n')
    expect((await failure(editTool(), { path: 'same.txt', oldText: 'x', newText: 'x' })).code).toBe(
      'EDIT_NO_CHANGE',
    )
    expect(
      editTool().schema.safeParse({ path: 'same.txt', oldText: '', newText: 'y' }).success,
    ).toBe(false)
    expect((await failure(editTool(), { path: 'gone.txt', oldText: 'a', newText: 'b' })).code).toBe(
      'NOT_FOUND',
    )
  })
})

describe('containment', () => {
  const escapes = () => [
    '../outside/secret.txt',
    'a/../../outside/secret.txt',
    join(outside, 'secret.txt'),
  ]

  it('refuses paths that leave the project, for every file tool, and touches nothing outside', async () => {
    mkdirSync(join(project, 'a'))
    symlinkSync(outside, join(project, 'link'))
    symlinkSync(join(outside, 'missing.txt'), join(project, 'dangling'))
    symlinkSync(join(outside, 'nodir'), join(project, 'dangling-dir'))
    const before = snapshot(outside)
    const attempts: [Tool, unknown][] = []
    for (const path of [...escapes(), 'link/secret.txt']) {
      attempts.push(
        [readTool(), { path }],
        [writeTool(), { path, content: 'pwned' }],
        [editTool(), { path, oldText: 'do not', newText: 'did' }],
        [presentTool(), { paths: ['a', path] }],
      )
    }
    attempts.push(
      [listTool(), { path: '..' }],
      [listTool(), { path: 'link' }],
      [listTool(), { path: 'link/sub', depth: 2 }],
      [listTool(), { path: outside }],
      [writeTool(), { path: 'link/new.txt', content: 'pwned' }],
      [writeTool(), { path: 'link/sub/new/deeper.txt', content: 'pwned' }],
      [writeTool(), { path: 'dangling', content: 'pwned' }],
      [writeTool(), { path: 'dangling-dir/file.txt', content: 'pwned' }],
      [writeTool(), { path: '../created.txt', content: 'pwned' }],
    )
    for (const [tool, args] of attempts) {
      const error = await failure(tool, args)
      expect({ tool: tool.name, args, code: error.code }).toEqual({
        tool: tool.name,
        args,
        code: 'PATH_OUTSIDE_PROJECT',
      })
    }
    expect(snapshot(outside)).toEqual(before)
    expect(readdirSync(base).sort()).toEqual(['outside', 'project'])
    expect(existsSync(join(outside, 'missing.txt'))).toBe(false)
    expect(beforeWrite).not.toHaveBeenCalled()
  })
})

describe('list', () => {
  it('lists entries, marks folders, skips .git, and draws a tree to the given depth', async () => {
    put('b.txt', '')
    put('a/one.txt', '')
    put('a/inner/deep.txt', '')
    put('.git/HEAD', '')
    const flat = await run(listTool(), {})
    expect(flat.output).toBe(['a/', 'b.txt'].join('\n'))
    const tree = await run(listTool(), { path: '.', depth: 2 })
    expect(tree.output).toBe(['a/', '  inner/', '  one.txt', 'b.txt'].join('\n'))
    const deeper = await run(listTool(), { path: 'a', depth: 5 })
    expect(deeper.output).toBe(['inner/', '  deep.txt', 'one.txt'].join('\n'))
    expect(listTool().schema.safeParse({ depth: 6 }).success).toBe(false)
  })

  it('caps the entries with a marker, upper levels first', async () => {
    put('z-last.txt', '')
    mkdirSync(join(project, 'a-big'))
    for (let i = 0; i < 1005; i++) writeFileSync(join(project, 'a-big', `f${i}.txt`), '')
    const out = await run(listTool(), { depth: 2 })
    const lines = out.output.split('\n')
    expect(lines).toHaveLength(1001)
    expect(lines).toContain('z-last.txt')
    expect(lines.at(-1)).toContain('stopped at 1000 entries')
  })

  it('refuses files and missing folders', async () => {
    put('f.txt', '')
    expect((await failure(listTool(), { path: 'f.txt' })).code).toBe('NOT_A_FOLDER')
    expect((await failure(listTool(), { path: 'nope' })).code).toBe('NOT_FOUND')
    mkdirSync(join(project, 'empty'))
    expect((await run(listTool(), { path: 'empty' })).output).toBe('(empty is empty)')
  })
})

describe('present', () => {
  it('declares existing files as deliverables with project-relative paths', async () => {
    put('report.md', '# done')
    put('out/data.csv', 'a,b')
    const out = await run(presentTool(), {
      paths: ['report.md', join(project, 'out', 'data.csv'), './report.md'],
      note: 'The report and its data',
    })
    expect(out.deliverables).toEqual({
      paths: ['report.md', 'out/data.csv'],
      note: 'The report and its data',
    })
    expect(out.output).toContain('report.md, out/data.csv')
  })

  it('names the paths that do not exist', async () => {
    put('report.md', '# done')
    const error = await failure(presentTool(), { paths: ['report.md', 'missing.pdf'] })
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain('missing.pdf')
    expect(error.message).not.toContain('report.md')
    expect(presentTool().schema.safeParse({ paths: [] }).success).toBe(false)
  })
})

describe('through the pipeline', () => {
  it('edits a file on a scripted model call and logs an ok result', async () => {
    h = await startHarness(
      [
        {
          steps: [
            {
              toolCall: {
                id: 'c1',
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
    const results = h.session.slice().flatMap((e) => (e.type === 'tool/result' ? [e.data] : []))
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ callId: 'c1', ok: true })
    expect(results[0]?.ok === true && results[0].output).toContain(
      'Replaced 1 occurrence in a.txt.',
    )
    expect(readFileSync(join(h.projectDir, 'a.txt'), 'utf8')).toBe('there is no bug here\n')
  })
})
