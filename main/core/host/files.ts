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
 * Owner-only: an export holds a whole transcript. A failure throws an error that names `path`
 * and why in words (`cannotWrite`), never the temp file; its `code` is the system's.
 */
export function writeFileAtomic(path: string, chunks: Iterable<string>): void {
  const target = resolve(path)
  const dir = dirname(target)
  const temp = join(dir, `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`)
  let fd: number
  try {
    fd = openSync(temp, 'wx', 0o600)
  } catch (error) {
    throw cannotWrite(target, error)
  }
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
    throw cannotWrite(target, error)
  }
  const dirFd = openSync(dir, 'r')
  try {
    fsyncSync(dirFd)
  } finally {
    closeSync(dirFd)
  }
}

/** The reasons a system error code gives for a failed write, in words; `{dir}` is the folder. */
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'the folder {dir} does not exist',
  ENOTDIR: '{dir} is not a folder',
  EACCES: 'you may not write in the folder {dir}',
  EPERM: 'you may not write in the folder {dir}',
  EROFS: 'the folder {dir} is on a read-only file system',
  EISDIR: 'it is a folder',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
}

/**
 * A system error of the write as one sentence that names `target` (never the temp file) and
 * keeps the error's `code`; any other error (e.g. thrown by `chunks`) is returned as it is.
 */
function cannotWrite(target: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (typeof code !== 'string') return error
  const why = (WRITE_FAILURES[code] ?? `the system refused it (${code})`).replace(
    '{dir}',
    dirname(target),
  )
  return Object.assign(new Error(`cannot write ${target}: ${why}`, { cause: error }), { code })
}
