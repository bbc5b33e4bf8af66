/**
 * Whether a command's output is binary, and a guess at what it is. Two tests, either suffices:
 * a known format's magic number at the start, or too many bytes that text does not contain in a
 * sample. A wrong "text" costs little (the model reads some escapes and U+FFFD marks, bounded by
 * the output cap); a wrong "binary" hides text, so the sample test leans towards text.
 */

/** How much of each kept part (the head, and the tail after a dropped middle) is sampled. */
export const SAMPLE_BYTES = 8 * 1024
/**
 * The share of odd bytes above which a sample is binary. Text with a few stray controls stays
 * well under it; random or compressed data is above 50% (most bytes of 0x80 and up do not form
 * UTF-8, and a tenth of all bytes are C0 controls).
 */
export const BINARY_SHARE = 0.1
/** Fewer odd bytes than this never make a sample binary: a short line with a stray NUL is text. */
export const MIN_ODD_BYTES = 8
/** A run of NULs this long is binary whatever the share: padding in images, executables, zeros. */
export const NUL_RUN_BYTES = 16

/**
 * The format of the output, or undefined when it is text. `head` starts at the output's first
 * byte; `tail` (possibly empty) is the rest, or the latest bytes after a dropped middle.
 */
export function binaryFormatOf(head: Uint8Array, tail: Uint8Array): string | undefined {
  const byMagic = FORMATS.find(([, matches]) => matches(head))
  if (byMagic) return byMagic[0]
  const isBinary =
    looksBinary(head.subarray(0, SAMPLE_BYTES)) ||
    (tail.length > 0 && looksBinary(tail.subarray(0, SAMPLE_BYTES)))
  return isBinary ? 'binary data' : undefined
}

type Matcher = (bytes: Uint8Array) => boolean

/** Whether `bytes` holds one of the `signatures` (bytes written as latin1 strings) at `offset`. */
function at(offset: number, ...signatures: string[]): Matcher {
  const wanted = signatures.map((signature) => Buffer.from(signature, 'latin1'))
  return (bytes) => wanted.some((w) => w.every((byte, k) => bytes[offset + k] === byte))
}

const u32 = (bytes: Uint8Array, offset: number, isLittleEndian: boolean): number | undefined =>
  offset + 4 <= bytes.length
    ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(offset, isLittleEndian)
    : undefined

/**
 * Known formats, first match wins. The ASCII-only signatures a text could start with are checked
 * further: bzip2's `BZh` needs its block magic, a PE's `MZ` needs the `PE` header it points to.
 */
const FORMATS: readonly (readonly [string, Matcher])[] = [
  ['PNG image', at(0, '\x89PNG\r\n\x1a\n')],
  ['JPEG image', at(0, '\xff\xd8\xff')],
  ['GIF image', at(0, 'GIF87a', 'GIF89a')],
  ['PDF document', at(0, '%PDF-')],
  ['ZIP archive (or jar, docx, xlsx, apk)', at(0, 'PK\x03\x04', 'PK\x05\x06', 'PK\x07\x08')],
  ['gzip data', at(0, '\x1f\x8b\x08')],
  [
    'bzip2 data',
    (bytes) =>
      at(0, 'BZh')(bytes) &&
      (bytes[3] ?? 0) >= 0x31 &&
      (bytes[3] ?? 0) <= 0x39 &&
      at(4, '\x31\x41\x59\x26\x53\x59', '\x17\x72\x45\x38\x50\x90')(bytes),
  ],
  ['xz data', at(0, '\xfd7zXZ\x00')],
  ['zstd data', at(0, '\x28\xb5\x2f\xfd')],
  ['ELF executable', at(0, '\x7fELF')],
  [
    'Mach-O executable',
    at(0, '\xfe\xed\xfa\xce', '\xfe\xed\xfa\xcf', '\xce\xfa\xed\xfe', '\xcf\xfa\xed\xfe'),
  ],
  // Both start with CAFEBABE; a universal binary counts its few architectures where a class
  // file has its version (45 and up).
  [
    'Mach-O universal executable',
    (b) => at(0, '\xca\xfe\xba\xbe')(b) && (u32(b, 4, false) ?? 0) < 45,
  ],
  ['Java class file', at(0, '\xca\xfe\xba\xbe')],
  [
    'Windows (PE) executable',
    (bytes) => {
      const header = at(0, 'MZ')(bytes) ? u32(bytes, 0x3c, true) : undefined
      return header !== undefined && at(header, 'PE\x00\x00')(bytes)
    },
  ],
  ['WebAssembly module', at(0, '\x00asm')],
  ['SQLite database', at(0, 'SQLite format 3\x00')],
  ['tar archive', at(257, 'ustar')],
]

/**
 * Whether a sample has too many bytes text does not hold. Odd bytes: invalid UTF-8, C0 controls
 * other than tab, newline, vertical tab, form feed, carriage return, backspace and escape (the
 * whitespace and the terminal's own; escape sequences are printable after their ESC), DEL, and
 * NULs next to another NUL. A lone NUL is a separator (`find -print0`, `git -z`), so lists stay
 * text. The sample may start or end inside a character: those pieces are not counted.
 */
function looksBinary(sample: Uint8Array): boolean {
  let odd = 0
  let nulRun = 0
  let i = 0
  while (i < 3 && ((sample[i] ?? 0) & 0xc0) === 0x80) i++
  while (i < sample.length) {
    const byte = sample[i] ?? 0
    if (byte === 0) {
      nulRun++
      if (nulRun >= NUL_RUN_BYTES) return true
      odd += nulRun === 2 ? 2 : nulRun > 2 ? 1 : 0
      i++
      continue
    }
    nulRun = 0
    if (byte < 0x80) {
      if (isOddAscii(byte)) odd++
      i++
      continue
    }
    const length = utf8Length(sample, i)
    if (length === 'cut') break
    if (length === 0) odd++
    i += Math.max(length, 1)
  }
  return odd >= MIN_ODD_BYTES && odd > sample.length * BINARY_SHARE
}

/** C0 controls text does not use, and DEL (tab, LF, VT, FF, CR, BS and ESC are allowed). */
const isOddAscii = (byte: number): boolean =>
  byte === 0x7f || (byte < 0x20 && !(byte >= 0x08 && byte <= 0x0d) && byte !== 0x1b)

/**
 * The length of the well-formed UTF-8 character at `i` (Unicode table 3-7: no overlong forms,
 * surrogates or code points past U+10FFFF), 0 when the byte there begins none, or 'cut' when the
 * sample ends inside it.
 */
function utf8Length(bytes: Uint8Array, i: number): number | 'cut' {
  const [length, low, high] = utf8Lead(bytes[i] ?? 0)
  for (let k = 1; k < length; k++) {
    if (i + k >= bytes.length) return 'cut'
    const byte = bytes[i + k] ?? 0
    if (k === 1 ? byte < low || byte > high : (byte & 0xc0) !== 0x80) return 0
  }
  return length
}

/** A lead byte's character length and the range its second byte must fall in; length 0: no lead. */
function utf8Lead(lead: number): readonly [number, number, number] {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf]
  if (lead === 0xe0) return [3, 0xa0, 0xbf]
  if (lead === 0xed) return [3, 0x80, 0x9f]
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf]
  if (lead === 0xf0) return [4, 0x90, 0xbf]
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf]
  if (lead === 0xf4) return [4, 0x80, 0x8f]
  return [0, 0, 0]
}
