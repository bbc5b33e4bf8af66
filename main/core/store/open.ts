import { randomBytes } from 'node:crypto'
import type { Stats } from 'node:fs'
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { APPLICATION_ID, DATABASE_FILE_NAME, FILE_MODE } from './constants.js'
import { LATEST_VERSION, migrate, newerSchema, userVersion } from './migrations.js'
import { applyPragmas } from './pragmas.js'
import { isCorruptError, isNotADatabaseError } from './sqlite-errors.js'
import { StoreError } from './types.js'

/** The database file of a data folder (`BRIDLE_HOME`). */
export function databasePath(home: string): string {
  return join(home, DATABASE_FILE_NAME)
}

export interface OpenedDatabase {
  readonly db: Database.Database
  /** The canonical path (its folder's symlinks resolved). */
  readonly path: string
}

/**
 * Opens the Bridle database at `path`, creating it only when no file exists there. An existing
 * file is first inspected through a read-only connection, so every refusal (UNSAFE_PATH,
 * NOT_A_BRIDLE_DATABASE, NEWER_SCHEMA, CORRUPT) leaves it byte for byte as it was. Then the
 * read-write connection is configured (pragmas read back) and migrated to the latest schema.
 *
 * Never reads the file through `fs`: closing such a descriptor would drop the POSIX locks that
 * another connection of this process holds on it (docs/ARCHITECTURE.md 3.1). `lstat`/`chmod` are safe.
 */
export function openDatabase(path: string): OpenedDatabase {
  const canonical = canonicalPath(path)
  if (lstatIfExists(canonical) === undefined) createDatabaseFile(canonical)
  const stat = lstatIfExists(canonical)
  if (stat === undefined) throw new Error(`${canonical} vanished while it was being opened`)
  checkFile(canonical, stat)
  if (stat.size === 0) {
    throw notOurs(
      canonical,
      'it is empty (0 bytes). SQLite would open it as a new database and the history it should ' +
        'hold would vanish silently. If you expected history here, restore it from a backup; ' +
        'otherwise delete the empty file to start fresh',
    )
  }
  inspect(canonical)

  const db = new Database(canonical, { fileMustExist: true })
  try {
    applyPragmas(db)
    migrate(db)
    tightenModes(canonical)
    return { db, path: canonical }
  } catch (error) {
    db.close()
    throw error
  }
}

/** Resolves symlinks in the folder (not the file itself: a symlinked file is refused). */
function canonicalPath(path: string): string {
  const absolute = resolve(path)
  return join(realpathSync(dirname(absolute)), basename(absolute))
}

function lstatIfExists(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** docs/ARCHITECTURE.md 3.1: one regular file, one link, owned by us, or SQLite's locking can't protect it. */
function checkFile(path: string, stat: Stats): void {
  const unsafe = (why: string) =>
    new StoreError(
      'UNSAFE_PATH',
      `${path} ${why}; Bridle opens only a plain file of its own. ${FIX}`,
    )
  if (stat.isSymbolicLink()) throw unsafe('is a symbolic link')
  if (!stat.isFile()) throw unsafe('is not a regular file')
  if (stat.nlink > 1) throw unsafe(`has ${stat.nlink} hard links`)
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) throw unsafe(`belongs to user ${stat.uid}, not ${uid}`)
}

const FIX = 'The file was not changed. Move it away or point BRIDLE_HOME at another folder.'

function notOurs(path: string, why: string): StoreError {
  return new StoreError('NOT_A_BRIDLE_DATABASE', `${path} is not a Bridle database: ${why}. ${FIX}`)
}

/** The read-only look at an existing file: whose it is, which schema, and whether it is intact. */
function inspect(path: string): void {
  let db: Database.Database | undefined
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
    const applicationId = db.pragma('application_id', { simple: true }) as number
    if (applicationId !== APPLICATION_ID) {
      throw notOurs(
        path,
        `it is an SQLite file of another application (application_id ${hex(applicationId)})`,
      )
    }
    const version = userVersion(db)
    if (version > LATEST_VERSION) throw newerSchema(version)
    const problems = (db.pragma('quick_check(5)') as { quick_check: string }[]).map(
      (row) => row.quick_check,
    )
    if (problems.length !== 1 || problems[0] !== 'ok') throw corrupt(path, problems.join('; '))
  } catch (error) {
    if (error instanceof StoreError) throw error
    if (isNotADatabaseError(error)) throw notOurs(path, 'it is not an SQLite database')
    if (isCorruptError(error)) throw corrupt(path, (error as Error).message)
    throw error
  } finally {
    db?.close()
  }
}

function corrupt(path: string, detail: string): StoreError {
  return new StoreError(
    'CORRUPT',
    `${path} is damaged (SQLite quick_check: ${detail}). Bridle did not change it. Keep a copy, ` +
      'then restore a backup or move the file away to start fresh.',
  )
}

function hex(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, '0')}`
}

/**
 * Creates the file atomically at the latest schema: the image is built in memory, written to a
 * temporary file, then hard-linked into place. A crash can therefore never leave a zero-byte or
 * half-initialised `bridle.db` (which the next start would refuse), and linking fails if another
 * process created the file meanwhile, in which case theirs is used.
 */
function createDatabaseFile(path: string): void {
  const memory = new Database(':memory:')
  let image: Buffer
  try {
    memory.pragma(`application_id = ${APPLICATION_ID}`)
    migrate(memory)
    image = memory.serialize()
  } finally {
    memory.close()
  }
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.creating`
  const fd = openSync(temp, 'wx', FILE_MODE)
  try {
    for (let offset = 0; offset < image.length;) offset += writeSync(fd, image, offset)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    placeFile(temp, path)
  } finally {
    unlinkSync(temp)
  }
  syncFolder(dirname(path))
}

function placeFile(temp: string, path: string): void {
  try {
    linkSync(temp, path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS')
      throw error
    // A file system without hard links: an exclusive copy still never overwrites a file.
    try {
      copyFileSync(temp, path, constants.COPYFILE_EXCL)
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code !== 'EEXIST') throw copyError
    }
  }
}

/** Makes the new directory entry durable; best-effort, since not every platform can fsync a folder. */
function syncFolder(folder: string): void {
  try {
    const fd = openSync(folder, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Windows cannot open a folder for fsync; the entry still reaches the disk eventually.
  }
}

/**
 * Owner-only modes for the database and its -wal/-shm companions. SQLite gives the companions
 * the database's mode, but a file restored or copied by hand may be looser. chmod does not open
 * the file, so SQLite's locks are safe; a symlinked companion is left alone, not followed.
 */
function tightenModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const stat = lstatIfExists(file)
    if (stat?.isFile() && (stat.mode & 0o777) !== FILE_MODE) chmodSync(file, FILE_MODE)
  }
}
