import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { binaryFormatOf } from '../../../../main/core/tools/builtin/binary-format.js'
import { bashTool } from '../../../../main/core/tools/builtin/bash.js'
import type { BashToolOptions } from '../../../../main/core/tools/builtin/bash.js'
import { BoundedOutput } from '../../../../main/core/tools/builtin/command-output.js'
import type { CommandOutput } from '../../../../main/core/tools/builtin/command-output.js'
import { terminalText } from '../../../../main/core/tools/builtin/terminal-text.js'
import { OutputSpill } from '../../../../main/core/tools/spill.js'

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-output-')))
  cleanups.push(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/** Runs the real bash tool on a real command, as the pipeline would. */
async function run(command: string, opts: BashToolOptions = {}): Promise<CommandOutput> {
  const tool = bashTool(opts)
  return tool.run(tool.schema.parse({ command }), {
    projectDir: folder(),
    signal: new AbortController().signal,
    beforeWrite: () => undefined,
  })
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
const PNG_PRINTF = String.raw`printf '\211PNG\r\n\032\n\0\0\0\rIHDR\0\0\0\1\0\0\0\1\10\6\0\0\0'`

describe('bash output: binary', () => {
  it('summarises 5 MB of random bytes; the spill keeps exactly the kept bytes', async () => {
    const result = await run('head -c 5000000 /dev/urandom')
    expect(Buffer.byteLength(result.output)).toBeLessThan(1024)
    expect(result.output).toMatch(
      /^\[binary output \(binary data\), not shown as text: 5000000 bytes;/,
    )
    expect(result.raw?.length).toBe(5_000_000)
    const hash = /sha256 of the kept bytes ([0-9a-f]{64})/.exec(result.output)?.[1]
    expect(hash).toBe(sha256(result.raw ?? new Uint8Array()))

    // What the pipeline does with it (OutputSpill.keep): the bytes as they are, in a .bin file.
    const home = folder()
    const spill = new OutputSpill(join(home, 'outputs'))
    const kept = spill.keep('s1', 'c1', result)
    expect(kept.outputRef).toBe('s1/c1.bin')
    expect(Buffer.byteLength(kept.output)).toBeLessThan(1024)
    expect(kept.output).toContain('saved as s1/c1.bin')
    const file = readFileSync(join(home, 'outputs', 's1', 'c1.bin'))
    expect(sha256(file)).toBe(hash)
  })

  it('summarises 1 MB of NULs in a few hundred bytes', async () => {
    const result = await run('head -c 1000000 /dev/zero')
    expect(Buffer.byteLength(JSON.stringify(result.output))).toBeLessThan(1024)
    expect(result.output).toContain('1000000 bytes')
    expect(Buffer.from(result.raw ?? []).equals(Buffer.alloc(1_000_000))).toBe(true)
  })

  it('names known formats by their magic number', async () => {
    const png = await run(PNG_PRINTF)
    expect(png.output).toMatch(/^\[binary output \(PNG image\), not shown as text: 29 bytes;/)
    expect(
      Buffer.from(png.raw ?? [])
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('\x89PNG')
    const gzip = await run('printf hello | gzip -c')
    expect(gzip.output).toContain('(gzip data)')
    const elf = await run('head -c 4096 /bin/sh')
    expect(elf.output).toContain('(ELF executable)')
  })

  it('a binary output past the memory bound says what it kept, and hashes that', async () => {
    const result = await run('head -c 100000 /dev/urandom', { maxBufferedBytes: 1000 })
    expect(result.output).toContain(
      '100000 bytes, of which the first 500 and the last 500 are kept (the 99000 between were dropped',
    )
    expect(result.raw?.length).toBe(1000)
    expect(result.output).toContain(sha256(result.raw ?? new Uint8Array()))
    expect(result.metadata).toEqual({ exitCode: 0, sandboxed: false, droppedBytes: 99_000 })
  })
})

describe('bash output: text', () => {
  it('removes colours, applies \\r redraws and shows a stray NUL as \\0', async () => {
    expect((await run(String.raw`printf '\033[31mred\033[0m'`)).output).toBe('red')
    expect((await run(String.raw`printf 'a\rb\n'`)).output).toBe('b\n')
    const nul = await run(String.raw`printf 'x\0y'`)
    expect(nul.output).toBe('x\\0y')
    expect(nul.raw).toBeUndefined()
  })

  it('keeps NUL-separated lists as text', async () => {
    const result = await run('cd "$(mktemp -d)" && touch a b c d e f g h i j && find . -print0')
    expect(result.raw).toBeUndefined()
    expect(result.output).toContain('./a\\0')
  })

  it('joins a character split across pipe reads even when the other stream writes between', async () => {
    const command = String.raw`printf '\xe2\x82'; sleep 0.1; printf 'err' >&2; sleep 0.1; printf '\xac!\n'`
    const result = await run(command)
    expect(result.output).toBe('err€!\n')
  })
})

describe('terminalText', () => {
  it('removes what only styles the line and shows what moves the cursor', () => {
    expect(terminalText('\x1b[1;32mok\x1b[m \x1b(Bdone')).toBe('ok done')
    expect(terminalText('\x1b]0;title\x07\x1b]8;;https://x.y\x1b\\link\x1b]8;;\x1b\\')).toBe('link')
    expect(terminalText('\x1b[?25lbusy\x1b[?25h')).toBe('busy')
    expect(terminalText('\x1b[2Jtop\x1b[1A')).toBe('\\x1b[2Jtop\\x1b[1A')
    expect(terminalText('lone \x1b')).toBe('lone \\x1b')
  })

  it('collapses \\r redraws per line, keeps \\r\\n lines, applies backspace', () => {
    expect(terminalText('10%\r50%\r100%\ndone\n')).toBe('100%\ndone\n')
    expect(terminalText('one\r\ntwo\r\n')).toBe('one\ntwo\n')
    expect(terminalText('50%\r\x1b[K\rfinished')).toBe('finished')
    expect(terminalText('last\r')).toBe('last')
    expect(terminalText('ab\bc _\bu')).toBe('ac u')
  })

  it('shows other controls as \\xNN, NUL as \\0; keeps tab, newline and other text as is', () => {
    expect(terminalText('a\x01b\x7fc\x85d\0e\tf\ng\v')).toBe('a\\x01b\\x7fc\\x85d\\0e\tf\ng\\x0b')
    const plain = 'plain text, émoji 😀 and 中文\n'
    expect(terminalText(plain)).toBe(plain)
  })
})

describe('binaryFormatOf', () => {
  const bytes = (text: string) => Buffer.from(text, 'latin1')
  const none = new Uint8Array()

  it('leans to text: stray controls and short outputs stay text', () => {
    expect(binaryFormatOf(bytes('x\0y'), none)).toBeUndefined()
    expect(binaryFormatOf(Buffer.from('naïve café 😀 '.repeat(100)), none)).toBeUndefined()
    expect(binaryFormatOf(bytes(`${'log line\n'.repeat(20)}\x01\x02\x03`), none)).toBeUndefined()
    // MZ and BZh are plain letters: alone they are not a format.
    expect(binaryFormatOf(bytes('MZ is a postcode area\n'), none)).toBeUndefined()
    expect(binaryFormatOf(bytes('BZh, said nobody\n'), none)).toBeUndefined()
  })

  it('finds binary by share of odd bytes, by NUL runs, and in the tail', () => {
    expect(binaryFormatOf(bytes('\x01\x02\x03\x04\x05\x06\x07\x0e\x0f\x10'), none)).toBe(
      'binary data',
    )
    const text = 'text '.repeat(40)
    expect(binaryFormatOf(bytes(`${text}${'\0'.repeat(16)}`), none)).toBe('binary data')
    expect(binaryFormatOf(bytes(`${text}${'\0'.repeat(15)}`), none)).toBeUndefined()
    expect(binaryFormatOf(bytes('text'), bytes('\xff\xfe'.repeat(50)))).toBe('binary data')
  })

  it('names formats', () => {
    const tar = Buffer.alloc(512)
    tar.write('ustar', 257, 'latin1')
    const pe = Buffer.alloc(128)
    pe.write('MZ', 0, 'latin1')
    pe.writeUInt32LE(64, 0x3c)
    pe.write('PE\0\0', 64, 'latin1')
    const cases: [Uint8Array, string][] = [
      [bytes('\xff\xd8\xff\xe0'), 'JPEG image'],
      [bytes('GIF89a\x01\x00'), 'GIF image'],
      [bytes('%PDF-1.7\n'), 'PDF document'],
      [bytes('PK\x03\x04\x14\x00'), 'ZIP archive (or jar, docx, xlsx, apk)'],
      [bytes('BZh91AY&SY'), 'bzip2 data'],
      [bytes('\xfd7zXZ\x00\x00'), 'xz data'],
      [bytes('\x28\xb5\x2f\xfd'), 'zstd data'],
      [bytes('\xcf\xfa\xed\xfe\x07'), 'Mach-O executable'],
      [bytes('\xca\xfe\xba\xbe\x00\x00\x00\x02'), 'Mach-O universal executable'],
      [bytes('\xca\xfe\xba\xbe\x00\x00\x00\x41'), 'Java class file'],
      [pe, 'Windows (PE) executable'],
      [bytes('\x00asm\x01\x00\x00\x00'), 'WebAssembly module'],
      [bytes('SQLite format 3\x00'), 'SQLite database'],
      [tar, 'tar archive'],
    ]
    for (const [sample, name] of cases) expect(binaryFormatOf(sample, none)).toBe(name)
  })
})

describe('BoundedOutput', () => {
  it('keeps stdout and stderr in arrival order and counts nothing dropped within the bound', () => {
    const output = new BoundedOutput(100)
    output.push('stdout', Buffer.from('out '))
    output.push('stderr', Buffer.from('err '))
    output.push('stdout', Buffer.from('out'))
    expect(output.finish()).toEqual({ text: 'out err out' })
    expect(output.droppedBytes).toBe(0)
  })

  it('never cuts a character at the edges of the dropped middle', () => {
    const output = new BoundedOutput(21)
    output.push('stdout', Buffer.from('😀'.repeat(50)))
    const { text } = output.finish()
    expect(text).not.toContain('\uFFFD')
    expect(text).toMatch(/^(😀)+\n\[… \d+ bytes[^\]]*\]\n(😀)+$/)
    expect(output.droppedBytes).toBe(200 - 8 - 8)
  })
})
