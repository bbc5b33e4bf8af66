import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { Store } from '../../../main/core/store/index.js'
import type { Session } from '../../../main/core/log/index.js'

export interface TempHome {
  readonly dir: string
  readonly dbPath: string
  /** Opens another Store on the same file (like a second process would). */
  open(): Store
  /** Lets pending group commits land, then closes every store and removes the folder. */
  cleanup(): Promise<void>
}

export function tempHome(): TempHome {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-log-'))
  const dbPath = databasePath(dir)
  const stores: Store[] = []
  return {
    dir,
    dbPath,
    open() {
      const store = openStore(dbPath)
      stores.push(store)
      return store
    },
    async cleanup() {
      await new Promise((resolve) => setImmediate(resolve))
      for (const store of stores) {
        try {
          store.close()
        } catch {
          // Already closed by the test.
        }
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Appends one whole turn: a user message, then one step per entry of `steps`. */
export function appendTurn(
  session: Session,
  text: string,
  steps: { calls?: string[]; reply?: string }[] = [{ reply: 'done' }],
): void {
  session.append('turn/start', {})
  let isFirst = true
  for (const { calls = [], reply } of steps) {
    session.append('step/start', {})
    if (isFirst) session.append('user/message', { content: text })
    isFirst = false
    const header = session.append('request/header', {
      sections: [{ name: 'identity', text: 'You are Bridle.' }],
      tools: [],
      reason: 'initial',
    })
    session.append('request/start', {
      provider: 'test',
      model: 'm',
      params: {},
      headerSeq: header.seq,
    })
    session.append('assistant/chunk', { deltas: [{ kind: 'text', text: reply ?? 'working' }] })
    session.append('assistant/message', {
      blocks: [
        { type: 'text', text: reply ?? 'working' },
        ...calls.map((callId) => ({
          type: 'tool-call' as const,
          callId,
          name: 'read',
          args: '{"path":"a"}',
        })),
      ],
      finish: calls.length > 0 ? 'tool-calls' : 'stop',
    })
    for (const callId of calls) {
      session.append('tool/call', { callId, name: 'read', args: { path: 'a' } })
      session.append('tool/result', { callId, ok: true, output: `contents for ${callId}` })
    }
    session.append('step/end', { reason: calls.length > 0 ? 'tool-calls' : 'completed' })
  }
  session.append('turn/end', { reason: 'completed' })
}
