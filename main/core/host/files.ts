import { randomUUID } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

/** Joins lines into newline-terminated chunks of about 1000 lines, for fewer writes. */
export function* chunked(lines: Iterable<string>): Generator<string, void, undefined> {
  let chunk: string[] = []
  for (const line of lines) {
    chunk.push(line)
    if (chunk.length >= 1000) {
      yield `${chunk.join('\n')}\n`
      chunk = []
    }
  }
  if (chunk.length > 0) yield `${chunk.join('\n')}\n`
}

/**
 * Writes a file so that it is either the old version or the complete new one, never half
 * written (docs/ARCHITECTURE.md 4): a temp file beside it, fsync, rename, fsync the folder.
 * Owner-only: an export holds a whole transcript.
 */
export function writeFileAtomic(path: string, chunks: Iterable<string>): void {
  const target = resolve(path)
  const dir = dirname(target)
  const temp = join(dir, `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`)
  const fd = openSync(temp, 'wx', 0o600)
  try {
    for (const chunk of chunks) writeSync(fd, chunk)
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temp, target)
  } catch (error) {
    try {
      closeSync(fd)
    } catch {
      // Already closed before the rename failed.
    }
    rmSync(temp, { force: true })
    throw error
  }
  const dirFd = openSync(dir, 'r')
  try {
    fsyncSync(dirFd)
  } finally {
    closeSync(dirFd)
  }
}
