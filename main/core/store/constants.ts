/** Tunables and identifiers of the store, in one place. */

/** `PRAGMA application_id` of every Bridle database: the ASCII bytes "Brld". */
export const APPLICATION_ID = 0x42726c64

/** The database file inside `BRIDLE_HOME`. */
export const DATABASE_FILE_NAME = 'bridle.db'

/** How long a write waits for another connection's write transaction before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000

/**
 * How long the log keeps retrying a commit while another program holds the write lock, before
 * it gives up with STORE_BUSY. Long enough for a backup or a `sqlite3` shell's transaction to
 * end; short enough that a user left waiting hears why.
 */
export const DEFAULT_BUSY_RETRY_MS = 10_000

/**
 * The synchronous part of each of those attempts (`WriteOptions.busyWaitMs`): it covers the
 * millisecond transactions of another Bridle process, and blocks the event loop no longer than
 * a frame or two; the log waits asynchronously between attempts.
 */
export const COMMIT_BUSY_WAIT_MS = 250

/** Owner-only: the database holds transcripts, tool output and file contents. */
export const FILE_MODE = 0o600

/** Markers `search()` puts around each hit in a snippet, and the ellipsis for cut text. */
export const SNIPPET_OPEN = '«'
export const SNIPPET_CLOSE = '»'
export const SNIPPET_ELLIPSIS = '…'
/** Tokens of context a snippet shows around its hits. */
export const SNIPPET_TOKENS = 16
