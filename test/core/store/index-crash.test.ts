/**
 * The search index and the session's summary are written after the events' commit, in a batch
 * of their own (catch-up.ts, docs/ARCHITECTURE.md 3.1). A writer killed with SIGKILL between the
 * two leaves durable events that both lack; the next open must take them up, so search finds
 * everything again and the sessions list counts every message.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import { NEXT_SEQ_OF_SESSION } from '../../../main/core/store/rows.js'
import { tempFolder, track } from './helpers.js'

const repoRoot = join(import.meta.dirname, '..', '..', '..')
/** tsx as a loader in the child itself, so the SIGKILL lands on the process that writes. */
const tsxLoader = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href
const writer = join(repoRoot, 'test/fixtures/store/index-crash-writer.ts')

function runUntilKilled(dbPath: string, word: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsxLoader, writer, dbPath, word], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const id = /^session (\S+)$/m.exec(stdout)?.[1]
      if (signal === 'SIGKILL' && id !== undefined) resolve(id)
      else reject(new Error(`the writer did not die as planned (${code}, ${signal}): ${stderr}`))
    })
  })
}

/** What the file says, read without the store (which would catch the index up). */
function indexState(dbPath: string, sessionId: string) {
  const db = new Database(dbPath, { readonly: true })
  try {
    const marks = db
      .prepare(
        `SELECT derived_seq AS derivedSeq, message_count AS messageCount, ${NEXT_SEQ_OF_SESSION} AS nextSeq
         FROM sessions WHERE id = ?`,
      )
      .get(sessionId) as object
    const indexed = db
      .prepare('SELECT count(*) FROM events_fts WHERE session_id = ?')
      .pluck()
      .get(sessionId) as number
    return { ...marks, indexed }
  } finally {
    db.close()
  }
}

describe('the search index and the summary after a crash', () => {
  it('take up at open what a writer killed before their batch committed', async () => {
    const dbPath = databasePath(tempFolder())
    const sessionId = await runUntilKilled(dbPath, 'needle')

    // The crash left the events durable and the index behind them.
    expect(indexState(dbPath, sessionId)).toEqual({
      derivedSeq: 0,
      messageCount: 0,
      nextSeq: 3,
      indexed: 0,
    })

    const store = track(openStore(dbPath))
    // Opening caught both up, before any search or listing asked for it.
    expect(indexState(dbPath, sessionId)).toEqual({
      derivedSeq: 3,
      messageCount: 1,
      nextSeq: 3,
      indexed: 1,
    })
    expect(store.search('needle', { limit: 10 })).toEqual([
      expect.objectContaining({ sessionId, seq: 2, type: 'user/message' }),
    ])
  })
})
