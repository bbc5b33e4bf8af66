import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { readOutputTool } from '../../../main/core/tools/pipeline.js'
import { jsonPrefixLength, OutputSpill } from '../../../main/core/tools/spill.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function spillIn(cap?: number): { spill: OutputSpill; dir: string } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-spill-')))
  cleanups.push(() => {
    rmSync(home, { recursive: true, force: true })
  })
  const dir = join(home, 'outputs')
  return { spill: new OutputSpill(dir, cap), dir }
}

/** The bytes a string costs in a log line or a request body. */
const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2
/** The preview: what comes before the cut marker. */
const previewOf = (output: string) => output.slice(0, output.lastIndexOf('\n[… output cut at '))

describe('OutputSpill.cap', () => {
  it('counts JSON bytes: 200 KB of quotes and backslashes is cut so the preview fits', () => {
    const { spill } = spillIn()
    const text = '"\\'.repeat(100_000)
    const capped = spill.cap('s', 'c1', text)
    const preview = previewOf(capped.output)
    expect(jsonBytes(preview)).toBeLessThanOrEqual(50 * 1024)
    expect(jsonBytes(preview)).toBeGreaterThan(50 * 1024 - 2)
    expect(preview.length).toBe(25_600)
    expect(capped.output).toContain(
      'output cut at 25600 of 200000 bytes. The full output is saved as s/c1.txt; read more with read_output {"ref":"s/c1.txt","offset":25600}',
    )
    expect(jsonBytes(capped.output)).toBeLessThan(50 * 1024 + 300)
    expect(spill.read(capped.outputRef ?? '', 0, 300_000)).toBe(text)
  })

  it('leaves output that fits as it is, measured as JSON', () => {
    const { spill } = spillIn(4096)
    expect(spill.cap('s', 'c', 'x'.repeat(4096))).toEqual({ output: 'x'.repeat(4096) })
    expect(spill.cap('s', 'c', '"'.repeat(2049)).outputRef).toBe('s/c.txt')
  })

  it('never cuts emoji or CJK in the middle, whatever the cap', () => {
    const text = '中文😀ab'.repeat(3000)
    for (let cap = 4096; cap < 4096 + 12; cap++) {
      const { spill } = spillIn(cap)
      const preview = previewOf(spill.cap('s', 'c', text).output)
      expect(text.startsWith(preview)).toBe(true)
      expect(preview).toBe(Buffer.from(preview).toString('utf8'))
      expect(jsonBytes(preview)).toBeLessThanOrEqual(cap)
      expect(jsonBytes(preview)).toBeGreaterThan(cap - 4)
    }
  })

  it('jsonPrefixLength agrees with JSON.stringify, lone surrogates and controls included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.nat(200), (text, budget) => {
        const end = jsonPrefixLength(text, budget)
        expect(jsonBytes(text.slice(0, end))).toBeLessThanOrEqual(budget)
        if (end < text.length) {
          const next = text.codePointAt(end) ?? 0
          expect(jsonBytes(text.slice(0, end + (next > 0xffff ? 2 : 1)))).toBeGreaterThan(budget)
        }
      }),
    )
    expect(jsonPrefixLength('\0\u0001\n"\\\ud800', 100)).toBe(6)
    expect(jsonBytes('\0\u0001\n"\\\ud800')).toBe(6 + 6 + 2 + 2 + 2 + 6)
  })
})

describe('OutputSpill.keep', () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256)

  it('writes raw bytes as they are to <call>.bin (0600) and names the ref after the summary', () => {
    const { spill, dir } = spillIn()
    const kept = spill.keep('s/1', 'c1', { output: '[binary output (binary data) …]', raw: bytes })
    expect(kept.outputRef).toBe('s_1/c1.bin')
    expect(kept.output).toBe(
      '[binary output (binary data) …]\n[the exact 300 bytes are saved as s_1/c1.bin; read_output {"ref":"s_1/c1.bin","offset":0} shows them as a hex dump]',
    )
    const file = join(dir, 's_1', 'c1.bin')
    expect(readFileSync(file).equals(Buffer.from(bytes))).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 's_1')).mode & 0o777).toBe(0o700)
  })

  it('without raw bytes is cap; a failed write still gives a bounded answer', () => {
    const { spill } = spillIn(4096)
    expect(spill.keep('s', 'c', { output: 'short' })).toEqual({ output: 'short' })
    expect(spill.keep('s', 'c', { output: 'x'.repeat(5000) }).outputRef).toBe('s/c.txt')
    // The data folder is a file: the write fails (not /proc: Node's recursive mkdir spins there).
    const { dir } = spillIn()
    writeFileSync(dir, '')
    const broken = new OutputSpill(dir)
    const kept = broken.keep('s', 'c', { output: 'summary', raw: bytes })
    expect(kept.outputRef).toBeUndefined()
    expect(kept.output).toMatch(/^summary\n\[the exact 300 bytes could not be saved: /)
  })
})

describe('read_output of a binary spill', () => {
  it('shows a hex dump of the range, bounded by the cap, and where to read on', async () => {
    const { spill } = spillIn(4096)
    const raw = Buffer.concat([
      Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'),
      Buffer.alloc(10_000, 0x41),
    ])
    const ref = spill.keep('s', 'c', { output: 'summary', raw }).outputRef ?? ''
    const tool = readOutputTool(spill)
    const { output } = await tool.run(tool.schema.parse({ ref }), {
      projectDir: '/',
      signal: new AbortController().signal,
      beforeWrite: () => undefined,
    })
    const lines = output.split('\n')
    expect(lines[0]).toBe(
      '00000000  89 50 4e 47 0d 0a 1a 0a  41 41 41 41 41 41 41 41  |.PNG....AAAAAAAA|',
    )
    // (4096 - 300) / 96 lines of 16 bytes: 39 lines, 624 bytes.
    expect(lines.at(-1)).toBe(
      '[bytes 0 to 624 of 10008; read on with read_output {"ref":"s/c.bin","offset":624}]',
    )
    expect(jsonBytes(output)).toBeLessThanOrEqual(4096)
    expect(spill.read(ref, 10_000, 100)).toBe(
      '00002710  41 41 41 41 41 41 41 41                           |AAAAAAAA|\n[bytes 10000 to 10008 of 10008 (the end)]',
    )
    expect(spill.read(ref, 20_000)).toBe(
      '[offset 20000 is past the end: s/c.bin holds 10008 bytes]',
    )
  })
})
