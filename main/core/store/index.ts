/** The store: the persistence port (types.ts) and its SQLite implementation. */
export { openStore, SqliteStore } from './sqlite-store.js'
export type { StoreOptions } from './sqlite-store.js'
export { databasePath } from './open.js'
export { searchTextOf } from './search-text.js'
export { LATEST_VERSION, MIGRATIONS, migrate } from './migrations.js'
export type { Migration } from './migrations.js'
export {
  APPLICATION_ID,
  COMMIT_BUSY_WAIT_MS,
  DATABASE_FILE_NAME,
  DEFAULT_BUSY_RETRY_MS,
} from './constants.js'
export { classifyStoreFailure, isStoreFailure, storeBusy, storeRetrying } from './failures.js'
export { FAULT_ENV } from './fault.js'
export type { StoreFault } from './fault.js'
export { StoreError } from './types.js'
export type {
  EventQuery,
  EventRow,
  NewSession,
  SearchHit,
  Segment,
  SessionFilter,
  SessionPage,
  SessionRow,
  Store,
  StoreErrorCode,
  WriteOptions,
} from './types.js'
