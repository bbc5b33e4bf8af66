import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs'
import { isAbsolute, join, sep } from 'node:path'
import type { ResultOf } from '../../../../protocol/contract.js'
import { HostError } from '../host.js'

/** Where OutputSpill keeps full tool outputs, under the data folder (see main/cli/run.ts). */
export const OUTPUTS_DIR = 'outputs'

/** A UTF-8 character is at most 4 bytes: a range end moves at most 3 bytes to a boundary. */
const MAX_CONTINUATION = 3

/**
 * Bytes [offset, offset + length) of a spilled output (an `outputRef` as OutputSpill names
 * them, `<session>/<call>.txt`, relative to `<home>/outputs`), decoded so no character is cut:
 * a start inside a character moves forward to the next one, an end inside one moves back (or
 * forward, when the range holds less than one character), and `nextOffset` continues exactly
 * there. Reads only the range, never the whole file. A ref that is absolute, climbs with `..`
 * or resolves (through links) outside the outputs folder is INVALID_PATH.
 */
export function readOutput(
  home: string,
  ref: string,
  offset: number,
  length: number,
): ResultOf<'output/read'> {
  const file = resolveOutputRef(home, ref)
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    throw new HostError('NOT_FOUND', `there is no output ${ref}`)
  }
  try {
    const totalBytes = fstatSync(fd).size
    if (offset >= totalBytes) return { text: '', offset, totalBytes, nextOffset: null }
    // A few bytes either side, to find the character boundaries around the range.
    const readFrom = offset
    const wanted = Math.min(length + MAX_CONTINUATION, totalBytes - readFrom)
    const buffer = Buffer.alloc(wanted)
    const got = readSync(fd, buffer, 0, wanted, readFrom)
    const bytes = buffer.subarray(0, got)
    const start = nextBoundary(bytes, 0)
    let end = previousBoundary(bytes, Math.min(length, bytes.length))
    if (end <= start) end = nextBoundary(bytes, start + 1)
    const at = readFrom + end
    return {
      text: bytes.subarray(start, end).toString('utf8'),
      offset: readFrom + start,
      totalBytes,
      nextOffset: at >= totalBytes ? null : at,
    }
  } finally {
    closeSync(fd)
  }
}

/** The file an outputRef names, refused unless it stays inside `<home>/outputs`. */
export function resolveOutputRef(home: string, ref: string): string {
  const refuse = (why: string) => new HostError('INVALID_PATH', `${ref} ${why}`)
  if (isAbsolute(ref) || ref.startsWith('/') || ref.startsWith('\\')) {
    throw refuse('is an absolute path; an outputRef is relative to the outputs folder')
  }
  const parts = ref.split(/[/\\]/)
  if (ref.includes('\0') || parts.some((part) => part === '..' || part === '')) {
    throw refuse('is not an output reference (it must not contain "..", empty parts or NUL)')
  }
  const root = join(home, OUTPUTS_DIR)
  const file = join(root, ...parts)
  let real: string
  let realRoot: string
  try {
    realRoot = realpathSync(root)
    real = realpathSync(file)
  } catch {
    throw new HostError('NOT_FOUND', `there is no output ${ref}`)
  }
  // A link inside the folder must not lead out of it.
  if (!real.startsWith(realRoot + sep)) throw refuse('leads outside the outputs folder')
  return real
}

const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80

/** The first character boundary at or after `at` (at most 3 bytes on; the end counts as one). */
function nextBoundary(bytes: Buffer, at: number): number {
  let position = at
  while (position < bytes.length && position - at < MAX_CONTINUATION) {
    if (!isContinuation(bytes[position])) break
    position++
  }
  return Math.min(position, bytes.length)
}

/** The last character boundary at or before `at` (at most 3 bytes back). */
function previousBoundary(bytes: Buffer, at: number): number {
  let position = at
  while (position > 0 && at - position < MAX_CONTINUATION && isContinuation(bytes[position])) {
    position--
  }
  return position
}
