import type Database from 'better-sqlite3'
import { SearchIndex } from './search.js'
import { storedSearchText } from './search-text.js'
import { StoreError } from './types.js'

/**
 * Schema migrations keyed by `PRAGMA user_version`. Each runs in its own BEGIN IMMEDIATE
 * transaction together with the version bump, so a crash mid-migration leaves the previous
 * version intact (docs/ARCHITECTURE.md 3.1). Migrations are append-only: never edit a released one.
 */
export interface Migration {
  readonly version: number
  readonly description: string
  up(db: Database.Database): void
}

const V1_SCHEMA = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  parent_id TEXT REFERENCES sessions(id),
  fork_seq INTEGER,
  title TEXT,
  project_dir TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  own_event_count INTEGER NOT NULL DEFAULT 0,
  next_seq INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  deleted_at INTEGER
);
CREATE INDEX sessions_by_activity ON sessions(updated_at, id);
CREATE INDEX sessions_by_parent ON sessions(parent_id);

-- A rowid table on purpose (not WITHOUT ROWID): FTS5 and future external indexes expect one.
CREATE TABLE events (
  session_id TEXT NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  v INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  step INTEGER NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
-- lastSeqOfType and type-filtered reads: a seek per segment instead of a scan.
CREATE INDEX events_by_type ON events(session_id, type, seq);

-- The log is append-only (docs/ARCHITECTURE.md 3.1): the database itself refuses edits.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed'); END;

CREATE TABLE session_locks (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id),
  pid INTEGER NOT NULL,
  hostname TEXT NOT NULL,
  token TEXT NOT NULL,
  acquired_at INTEGER NOT NULL
);
`

/**
 * The search index. It keys rows by (session_id, seq), not by the events rowid, because VACUUM
 * may renumber implicit rowids. Since v4 rows are written in a background batch (search.ts), not
 * in the append's transaction.
 */
const V2_SCHEMA = `
CREATE VIRTUAL TABLE events_fts USING fts5(
  session_id UNINDEXED,
  seq UNINDEXED,
  text,
  tokenize = 'unicode61 remove_diacritics 2'
);
`

/**
 * Subagents: the session and `task` call that started a session. Lineage, not history: a
 * subagent that starts fresh has no `parent_id`, and one seeded from its parent's history has
 * both.
 */
const V3_SCHEMA = `
ALTER TABLE sessions ADD COLUMN spawned_by TEXT REFERENCES sessions(id);
ALTER TABLE sessions ADD COLUMN spawned_by_call TEXT;
CREATE INDEX sessions_by_spawner ON sessions(spawned_by, created_at);
`

/**
 * The search index's high-water mark per session: seqs below `indexed_seq` are in events_fts.
 * The index is written in a background batch after the append's commit (off the durable path),
 * so after a crash the rows above the mark are indexed when the store opens. Every row stored so
 * far was indexed by its append (v2, v3), so the mark starts at the end.
 */
const V4_SCHEMA = `
ALTER TABLE sessions ADD COLUMN indexed_seq INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET indexed_seq = next_seq;
`

/**
 * The session's summary leaves the append's commit: its message count and activity time are
 * derived from its rows in the background batch that indexes them (catch-up.ts), so that a
 * durable append writes the event's pages and not the session's row. One mark, `derived_seq`,
 * says how far both go. v4 kept the summary exact up to `next_seq` and the index up to
 * `indexed_seq`, which lags it by what the last batch had not taken yet: that is indexed here,
 * so `next_seq` can become the one mark. A session's length is read from its rows (its largest
 * seq), so `own_event_count` goes.
 */
const V5_SCHEMA = `
ALTER TABLE sessions RENAME COLUMN next_seq TO derived_seq;
ALTER TABLE sessions DROP COLUMN own_event_count;
ALTER TABLE sessions DROP COLUMN indexed_seq;
`

/**
 * Who holds a writer lock, beyond its pid: the holder's kernel start time and the boot it ran in
 * (process-identity.ts), so a holder that died (a zombie, a pid since given to another process,
 * a machine restarted) is known to be gone. Rows written before have neither and are judged by
 * pid alone.
 */
const V6_SCHEMA = `
ALTER TABLE session_locks ADD COLUMN start_ticks INTEGER;
ALTER TABLE session_locks ADD COLUMN boot_id TEXT;
`

/** Indexes the rows v4 had committed but not yet indexed (between `indexed_seq` and `next_seq`). */
function indexWhatV4Left(db: Database.Database): void {
  const index = new SearchIndex(db)
  const lagging = db
    .prepare('SELECT id, indexed_seq, next_seq FROM sessions WHERE indexed_seq < next_seq')
    .all() as { id: string; indexed_seq: number; next_seq: number }[]
  const rows = db.prepare<[string, number, number], { seq: number; type: string; data: string }>(
    'SELECT seq, type, data FROM events WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq',
  )
  for (const session of lagging) {
    for (const row of rows.all(session.id, session.indexed_seq, session.next_seq))
      index.add(session.id, row.seq, row.type, row.data)
  }
}

interface BackfillRow {
  session_id: string
  seq: number
  type: string
  data: string
}

function backfillSearch(db: Database.Database): void {
  const insert = db.prepare('INSERT INTO events_fts (session_id, seq, text) VALUES (?, ?, ?)')
  // Keyset pages: better-sqlite3 cannot write while a statement is still iterating.
  const page = db.prepare<[string, string, number], BackfillRow>(
    `SELECT session_id, seq, type, data FROM events
     WHERE session_id > ? OR (session_id = ? AND seq > ?) ORDER BY session_id, seq LIMIT 1000`,
  )
  let last = { session_id: '', seq: -1 }
  for (;;) {
    const rows = page.all(last.session_id, last.session_id, last.seq)
    for (const row of rows) {
      const text = storedSearchText(row.type, row.data)
      if (text !== undefined) insert.run(row.session_id, row.seq, text)
    }
    const next = rows.at(-1)
    if (next === undefined) return
    last = next
  }
}

/** Every migration, in order; `MIGRATIONS[i].version === i + 1`. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, events (append-only), session locks',
    up: (db) => db.exec(V1_SCHEMA),
  },
  {
    version: 2,
    description: 'full-text search over events, backfilled',
    up: (db) => {
      db.exec(V2_SCHEMA)
      backfillSearch(db)
    },
  },
  {
    version: 3,
    description: 'subagent lineage on sessions',
    up: (db) => db.exec(V3_SCHEMA),
  },
  {
    version: 4,
    description: 'search indexed in a background batch, with a high-water mark per session',
    up: (db) => db.exec(V4_SCHEMA),
  },
  {
    version: 5,
    description:
      "the session's summary caught up in the background batch, its length read from its rows",
    up: (db) => {
      indexWhatV4Left(db)
      db.exec(V5_SCHEMA)
    },
  },
  {
    version: 6,
    description: "writer locks record their holder's start time and boot",
    up: (db) => db.exec(V6_SCHEMA),
  },
]

/** The schema version this code writes and understands. */
export const LATEST_VERSION = MIGRATIONS.length

export function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number
}

/**
 * Brings the database to `target` (default: the latest), one transaction per step. The version
 * is re-read inside each transaction, so two processes opening an old file at once migrate it
 * once. A version newer than this code knows is refused (NEWER_SCHEMA), never touched.
 */
export function migrate(db: Database.Database, target = LATEST_VERSION): void {
  const found = userVersion(db)
  if (found > LATEST_VERSION) throw newerSchema(found)
  if (found >= target) return
  for (const migration of MIGRATIONS) {
    if (migration.version > target) break
    db.transaction(() => {
      const current = userVersion(db)
      if (current > LATEST_VERSION) throw newerSchema(current)
      if (current >= migration.version) return
      if (current !== migration.version - 1) {
        throw new StoreError(
          'CORRUPT',
          `the database is at schema version ${current} but migration ${migration.version} expects ${migration.version - 1}`,
        )
      }
      migration.up(db)
      // user_version lives in the header page, so the bump commits or rolls back with the rest.
      db.pragma(`user_version = ${migration.version}`)
    }).immediate()
  }
}

export function newerSchema(version: number): StoreError {
  return new StoreError(
    'NEWER_SCHEMA',
    `this database was written by a newer Bridle (schema version ${version}; this build reads up to ${LATEST_VERSION}). ` +
      'Upgrade the app to open it; the file was not changed.',
  )
}
