/**
 * The bounded reader at its edges, on real files: each limit holds at its value and refuses one
 * past it, naming the line; lines and UTF-8 characters that straddle a read chunk come out whole;
 * an export that changes between detection and import is refused with nothing written.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileLines } from '../../../main/core/import/bounded-read.js'
import type { ImportLimits } from '../../../main/core/import/bounded-read.js'
import {
  importRead,
  ImportRefused,
  readImport,
  readImportFile,
} from '../../../main/core/import/index.js'
import { exportSession } from '../../../main/core/log/export.js'
import type { Store } from '../../../main/core/store/index.js'
import { tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'import')
const codex = readFileSync(join(fixtures, 'codex-rollout.jsonl'), 'utf8')
const codexLines = codex.trimEnd().split('\n')

let home: TempHome
let store: Store
let dir: string

beforeEach(() => {
  home = tempHome()
  store = home.open()
  dir = mkdtempSync(join(tmpdir(), 'bridle-bounded-read-'))
})

afterEach(async () => {
  await home.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

const roomy: ImportLimits = { maxFileBytes: 1 << 30, maxLineBytes: 1 << 20, maxRecords: 1 << 20 }

describe('the import limits, at their edges', () => {
  it('a line of exactly maxLineBytes is read; one byte more is refused naming its line', () => {
    const longest = Math.max(...codexLines.map((line) => Buffer.byteLength(line)))
    const limits = { ...roomy, maxLineBytes: longest }
    expect(readImport(Buffer.from(codex), limits).format).toBe('codex')
    const padded = [...codexLines.slice(0, 2), ' '.repeat(longest + 1), ...codexLines.slice(2)]
    let error: unknown
    try {
      readImport(Buffer.from(padded.join('\n')), limits)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ImportRefused)
    expect((error as ImportRefused).line).toBe(3)
    expect((error as Error).message).toMatch(/^line 3 of the file is longer than/)
  })

  it('exactly maxRecords records are read; one more is refused', () => {
    const limits = { ...roomy, maxRecords: codexLines.length }
    expect(readImport(Buffer.from(`${codex}\n\n`), limits).format).toBe('codex') // empty lines are not records
    expect(() => readImport(Buffer.from(`${codex}{}\n`), limits)).toThrow(
      new RegExp(`has more than ${codexLines.length} records \\(line ${codexLines.length + 1}\\)`),
    )
  })

  it('a file over maxFileBytes is refused on fstat, with its size', () => {
    const file = join(dir, 'rollout.jsonl')
    writeFileSync(file, codex)
    const limits = { ...roomy, maxFileBytes: Buffer.byteLength(codex) - 1 }
    expect(() => readImportFile(file, limits)).toThrow(/holds [\d,]+ bytes, more than/)
    expect(readImportFile(file, { ...roomy, maxFileBytes: Buffer.byteLength(codex) }).format).toBe(
      'codex',
    )
  })

  it('a Zstandard file is refused by its magic, read from the file', () => {
    const file = join(dir, 'log.jsonl.zst')
    writeFileSync(file, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 1, 2]))
    expect(() => readImportFile(file)).toThrow(/zstd -d/)
  })
})

describe('reading in chunks', () => {
  it('lines and multi-byte characters across the 1 MiB read boundary come out whole', () => {
    const file = join(dir, 'lines.txt')
    // A first line ending 1 byte short of 1 MiB, then a line whose "€" (3 bytes) straddles it.
    const first = 'a'.repeat(1024 * 1024 - 2)
    const second = `€${'b'.repeat(3 * 1024 * 1024)}€`
    const text = `${first}\n${second}\n\nlast`
    writeFileSync(file, text)
    const read = [...fileLines(file)]
    expect(read.map((l) => l.line)).toEqual([1, 2, 3, 4])
    expect(read.map((l) => l.text)).toEqual(text.split('\n'))
  })
})

describe('a Bridle export read from its file', () => {
  function exportFile(): string {
    const read = readImport(Buffer.from(codex))
    const { sessionId } = importRead(store, read, { projectDir: dir, file: 'x.jsonl' })
    const file = join(dir, 'export.jsonl')
    writeFileSync(file, `${exportSession(store, sessionId).join('\n')}\n`)
    return file
  }

  it('is detected, then imported line by line from the file', () => {
    const file = exportFile()
    const read = readImportFile(file)
    expect(read.format).toBe('bridle')
    const before = store.listTree().length
    importRead(store, read, { projectDir: dir, file: 'export.jsonl' })
    expect(store.listTree().length).toBe(before + 1)
  })

  it('changed between detection and import: refused, nothing written', () => {
    const file = exportFile()
    const read = readImportFile(file)
    appendFileSync(file, '{"seq": 999}\n')
    const before = store.listTree().map((s) => s.id)
    expect(() => importRead(store, read, { projectDir: dir, file: 'export.jsonl' })).toThrow(
      /changed while it was being imported; import it again/,
    )
    expect(store.listTree().map((s) => s.id)).toEqual(before)
  })
})
