import { accessSync, constants, statfsSync } from 'node:fs'
import { dirname } from 'node:path'
import { DEFAULT_BUSY_TIMEOUT_MS } from './constants.js'
import { sqliteCode } from './sqlite-errors.js'
import { StoreError } from './types.js'
import type { StoreErrorCode } from './types.js'

/**
 * Failures of the disk under the store, said plainly: each becomes a StoreError whose message
 * is one sentence for the user, naming the cause and the fix (issue 15, item 8). Callers show
 * it as it is, once, without a stack trace; tests match the code.
 */

/** A write the store could not take; the message is meant for the user as it is. */
const FAILURE_CODES: ReadonlySet<StoreErrorCode> = new Set<StoreErrorCode>([
  'STORE_FULL',
  'STORE_READONLY',
  'STORE_BUSY',
  'STORE_IO',
  'CORRUPT',
])

export function isStoreFailure(error: unknown): error is StoreError {
  return error instanceof StoreError && FAILURE_CODES.has(error.code)
}

/**
 * The StoreError for a failure of SQLite or of the file system on the database at `path`, or
 * undefined when it is something else (a constraint, a bug, a StoreError that already says
 * what to do), which the caller rethrows as it was. `waitedMs` is how long the write waited for
 * another connection's lock, for STORE_BUSY's sentence.
 *
 * SQLite reports a failed system call as SQLITE_IOERR_* or SQLITE_CANTOPEN without its errno
 * (better-sqlite3 does not expose it), so for those the file system is asked what it says now:
 * a folder or file it will not let us write (EROFS, EACCES, EPERM: `access(2)` says so even to
 * root, for a read-only mount or an immutable file) is read-only, no free blocks is full.
 */
export function classifyStoreFailure(
  error: unknown,
  path: string,
  waitedMs: number = DEFAULT_BUSY_TIMEOUT_MS,
): StoreError | undefined {
  if (error instanceof StoreError) return undefined
  const code = sqliteCode(error) ?? errnoCode(error)
  if (code === undefined) return undefined
  const fail = (kind: StoreErrorCode, message: string) =>
    new StoreError(kind, message, { cause: error })
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT')
    return fail('STORE_FULL', fullSentence(path))
  if (
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_PERM' ||
    code === 'EROFS' ||
    code === 'EACCES' ||
    code === 'EPERM'
  )
    return fail('STORE_READONLY', readOnlySentence(unwritable(path) ?? path))
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return fail('STORE_BUSY', busySentence(path, waitedMs))
  if (code.startsWith('SQLITE_CORRUPT'))
    return fail(
      'CORRUPT',
      `${path} is damaged (SQLite: ${(error as Error).message}); keep a copy of it, then restore a backup or move it away to start fresh`,
    )
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) {
    const denied = unwritable(path)
    if (denied !== undefined) return fail('STORE_READONLY', readOnlySentence(denied))
    if (hasNoFreeSpace(path)) return fail('STORE_FULL', fullSentence(path))
    return fail(
      'STORE_IO',
      `the disk holding ${path} failed to read or write it (${code}); check that disk, then try again`,
    )
  }
  return undefined
}

/** What the user hears, once, while the log retries a write another program is blocking. */
export function storeRetrying(path: string): StoreError {
  return new StoreError('STORE_BUSY', `${path} is in use by another program; retrying`)
}

/** The log gave up retrying: another program held the write lock for `waitedMs`. */
export function storeBusy(path: string, waitedMs: number, cause?: unknown): StoreError {
  return new StoreError('STORE_BUSY', busySentence(path, waitedMs), { cause })
}

function fullSentence(path: string): string {
  return `the disk holding ${dirname(path)} is full; free some space on it, then try again`
}

function readOnlySentence(what: string): string {
  return `${what} is read-only; make it writable or point BRIDLE_HOME at another folder, then try again`
}

function busySentence(path: string, waitedMs: number): string {
  const waited = waitedMs < 1000 ? `${Math.round(waitedMs)} ms` : `${Math.floor(waitedMs / 1000)} s`
  return `${path} is in use by another program, which kept it locked for more than ${waited}; close that program, then try again`
}

function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined
}

/**
 * The first of the folder, the database and its companions that the file system will not let
 * us write, or undefined. `access` opens nothing, so SQLite's POSIX locks are safe.
 */
function unwritable(path: string): string | undefined {
  for (const candidate of [dirname(path), path, `${path}-wal`, `${path}-shm`]) {
    try {
      accessSync(candidate, constants.W_OK)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return candidate
      // ENOENT: a companion that does not exist (yet) says nothing about the disk.
    }
  }
  return undefined
}

function hasNoFreeSpace(path: string): boolean {
  try {
    return statfsSync(dirname(path)).bavail === 0
  } catch {
    // The folder is gone or statfs is unsupported: nothing to learn here.
    return false
  }
}
