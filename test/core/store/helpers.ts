import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { openStore } from '../../../main/core/store/index.js'
import type { EventRow, SqliteStore, StoreErrorCode } from '../../../main/core/store/index.js'
import { StoreError } from '../../../main/core/store/index.js'

const folders: string[] = []
const stores: SqliteStore[] = []

afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A fresh temporary folder, removed after the test. */
export function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'bridle-store-'))
  folders.push(folder)
  return folder
}

/** A store on a new database file in a fresh folder, closed after the test. */
export function freshStore(clock?: () => number): SqliteStore {
  return track(openStore(join(tempFolder(), 'bridle.db'), clock ? { clock } : {}))
}

/** Closes the store after the test (idempotent if the test closed it itself). */
export function track(store: SqliteStore): SqliteStore {
  stores.push(store)
  return store
}

/** Only call while no connection of this process has the file open (docs/ARCHITECTURE.md 3.1). */
export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex')
}

export function row(sessionId: string, seq: number, overrides: Partial<EventRow> = {}): EventRow {
  return {
    sessionId,
    seq,
    type: 'turn/start',
    v: 1,
    turn: 0,
    step: 0,
    at: 1_000 + seq,
    data: '{}',
    ...overrides,
  }
}

/** Creates a root session (or a fork) and appends `count` rows of type `turn/start` to it. */
export function seedSession(
  store: SqliteStore,
  id: string,
  count: number,
  fork?: { parentId: string; forkSeq: number },
): void {
  store.write(() => {
    store.createSession({
      id,
      parentId: fork?.parentId ?? null,
      forkSeq: fork?.forkSeq ?? null,
      projectDir: '/project',
      title: null,
      createdAt: 1_000,
    })
    const from = fork?.forkSeq ?? 0
    const rows = Array.from({ length: count }, (_, i) => row(id, from + i))
    store.appendEvents(id, rows)
  })
}

/** Runs `body` and returns the StoreError code it threw; fails if it threw anything else. */
export function codeOf(body: () => unknown): StoreErrorCode {
  try {
    body()
  } catch (error) {
    if (error instanceof StoreError) return error.code
    throw error
  }
  throw new Error('expected a StoreError, nothing was thrown')
}
