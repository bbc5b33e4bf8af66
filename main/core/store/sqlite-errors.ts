import Database from 'better-sqlite3'

/** The SQLite result code of an error from better-sqlite3 (e.g. SQLITE_CORRUPT_VTAB), if any. */
export function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined
}

/** SQLITE_CORRUPT and its extended codes (SQLITE_CORRUPT_INDEX, _VTAB, _SEQUENCE). */
export function isCorruptError(error: unknown): boolean {
  return sqliteCode(error)?.startsWith('SQLITE_CORRUPT') ?? false
}

export function isNotADatabaseError(error: unknown): boolean {
  return sqliteCode(error) === 'SQLITE_NOTADB'
}

export function isConstraintError(error: unknown): boolean {
  return sqliteCode(error)?.startsWith('SQLITE_CONSTRAINT') ?? false
}
