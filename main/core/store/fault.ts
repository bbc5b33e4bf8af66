import type Database from 'better-sqlite3'
import { StoreError } from './types.js'

/**
 * A test seam, used by no production path: from the first batch that holds an event of type
 * `atEventType` on, SQLite itself refuses every append of this connection, as it would on a
 * full disk (`full`: SQLITE_FULL from `PRAGMA max_page_count`) or a read-only file
 * (`readonly`: SQLITE_READONLY from `PRAGMA query_only`). The failure is SQLite's own, so it
 * takes the production path: the classification, the rolled-back transaction, the log's undo.
 *
 * Set through `StoreOptions.fault`, or for a child process (the CLI, the app) through
 * `BRIDLE_TEST_STORE_FAULT=<full|readonly>@<event type>`, e.g. `full@tool/call`.
 */
export interface StoreFault {
  readonly kind: 'full' | 'readonly'
  readonly atEventType: string
}

export const FAULT_ENV = 'BRIDLE_TEST_STORE_FAULT'

/** The fault the environment asks for; a malformed value fails loudly rather than test nothing. */
export function faultFromEnv(env: NodeJS.ProcessEnv): StoreFault | undefined {
  const value = env[FAULT_ENV]
  if (value === undefined || value === '') return undefined
  const match = /^(full|readonly)@(\S+)$/.exec(value)
  if (!match?.[1] || !match[2]) {
    throw new StoreError(
      'CONFIG_REJECTED',
      `${FAULT_ENV}="${value}" is not <full|readonly>@<event type> (e.g. full@tool/call); unset it`,
    )
  }
  return { kind: match[1] as StoreFault['kind'], atEventType: match[2] }
}

/** Arms a fault on a connection: `beforeAppend` is called inside the append's transaction. */
export class ArmedFault {
  private hasStruck = false

  constructor(
    private readonly db: Database.Database,
    private readonly fault: StoreFault,
  ) {}

  beforeAppend(types: readonly string[]): void {
    if (!this.hasStruck && !types.includes(this.fault.atEventType)) return
    this.hasStruck = true
    if (this.fault.kind === 'readonly') {
      this.db.pragma('query_only = ON')
      return
    }
    // The file may not grow any more, and a blob larger than its free pages needs it to: SQLite
    // answers SQLITE_FULL, and the transaction (with the table) is rolled back.
    const pages = this.db.pragma('page_count', { simple: true }) as number
    const free = this.db.pragma('freelist_count', { simple: true }) as number
    const pageSize = this.db.pragma('page_size', { simple: true }) as number
    this.db.pragma(`max_page_count = ${pages}`)
    this.db.exec('CREATE TABLE IF NOT EXISTS bridle_test_fill (x BLOB)')
    this.db.prepare('INSERT INTO bridle_test_fill VALUES (zeroblob(?))').run((free + 2) * pageSize)
  }
}
