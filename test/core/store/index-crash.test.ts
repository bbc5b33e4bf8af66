/**
 * The search index is written after the events' commit, in a batch of its own (SearchIndex,
 * docs/ARCHITECTURE.md 3.1). A writer killed with SIGKILL between the two leaves durable events
 * that the index lacks; the next open must index them, so search finds everything again.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { databasePath, openStore } from '../../../main/core/store/index.js'
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
      .prepare('SELECT indexed_seq AS indexedSeq, next_seq AS nextSeq FROM sessions WHERE id = ?')
      .get(sessionId) as { indexedSeq: number; nextSeq: number }
    const indexed = db
      .prepare('SELECT count(*) FROM events_fts WHERE session_id = ?')
      .pluck()
      .get(sessionId) as number
    return { ...marks, indexed }
  } finally {
    db.close()
  }
}

describe('the search index after a crash', () => {
  it('indexes at open what a writer killed before the index batch committed', async () => {
    const dbPath = databasePath(tempFolder())
    const sessionId = await runUntilKilled(dbPath, 'needle')

    // The crash left the events durable and the index behind them.
    const left = indexState(dbPath, sessionId)
    expect(left.nextSeq).toBe(3)
    expect(left.indexed).toBe(0)
    expect(left.indexedSeq).toBeLessThan(left.nextSeq)

    const store = track(openStore(dbPath))
    // Opening caught the index up, before any search asked for it.
    expect(indexState(dbPath, sessionId)).toEqual({ indexedSeq: 3, nextSeq: 3, indexed: 1 })
    expect(store.search('needle', { limit: 10 })).toEqual([
      expect.objectContaining({ sessionId, seq: 2, type: 'user/message' }),
    ])
  })
})
