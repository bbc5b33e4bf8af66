import { DEFAULT_BUSY_TIMEOUT_MS } from './constants.js'
import { StoreError } from './types.js'

/** The part of a better-sqlite3 connection this module needs (a stub in tests). */
export interface PragmaTarget {
  pragma(source: string, options: { simple: true }): unknown
}

interface Setting {
  readonly name: string
  readonly value: string
  /** What the pragma reads back as once the setting took. */
  readonly expected: string | number
  readonly why: string
}

/**
 * The connection settings of docs/ARCHITECTURE.md 3.1. busy_timeout comes first so the others wait for
 * a concurrent opener instead of failing with SQLITE_BUSY.
 */
export const REQUIRED_PRAGMAS: readonly Setting[] = [
  {
    name: 'busy_timeout',
    value: String(DEFAULT_BUSY_TIMEOUT_MS),
    expected: DEFAULT_BUSY_TIMEOUT_MS,
    why: 'writers wait for each other instead of failing at once',
  },
  {
    name: 'journal_mode',
    value: 'WAL',
    expected: 'wal',
    why: 'WAL needs shared memory on a local file system (not NFS/SMB or a read-only folder)',
  },
  {
    // better-sqlite3 builds SQLite with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1 (NORMAL), which can lose
    // acknowledged commits on power loss; the log promises they survive, so every commit syncs.
    name: 'synchronous',
    value: 'FULL',
    expected: 2,
    why: 'every commit must reach the disk before it is acknowledged',
  },
  { name: 'foreign_keys', value: 'ON', expected: 1, why: 'events must belong to a session' },
  {
    name: 'trusted_schema',
    value: 'OFF',
    expected: 0,
    why: 'schema objects must not run functions with side effects',
  },
  {
    name: 'mmap_size',
    value: '0',
    expected: 0,
    why: 'memory mapping turns stray writes into database corruption',
  },
]

/** The values that `applyPragmas` pins, as read back from a connection. */
export type PragmaReport = Record<string, unknown>

/**
 * Sets every required pragma, then reads each one back: a setting SQLite silently ignored (WAL
 * on a file system without shared memory, say) is CONFIG_REJECTED, never a weaker promise.
 */
export function applyPragmas(db: PragmaTarget): PragmaReport {
  for (const setting of REQUIRED_PRAGMAS) {
    db.pragma(`${setting.name} = ${setting.value}`, { simple: true })
  }
  const report = readPragmas(db)
  for (const setting of REQUIRED_PRAGMAS) {
    const actual = report[setting.name]
    if (actual !== setting.expected) {
      throw new StoreError(
        'CONFIG_REJECTED',
        `SQLite did not accept ${setting.name}=${setting.value} (it reads back ${String(actual)}); ` +
          `Bridle needs it because ${setting.why}. Move BRIDLE_HOME to a local disk and try again.`,
      )
    }
  }
  return report
}

export function readPragmas(db: PragmaTarget): PragmaReport {
  const report: PragmaReport = {}
  for (const setting of REQUIRED_PRAGMAS) {
    const value = db.pragma(setting.name, { simple: true })
    report[setting.name] = typeof value === 'string' ? value.toLowerCase() : value
  }
  return report
}
