/**
 * A key set through the contract is used (the server sees it) but never written anywhere a user
 * might share or a renderer might read: the database, an export, config.json, notifications.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NotificationOf, ParamsOf, ResultOf, MethodName } from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import { exportLines } from '../../../main/core/log/export.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import { chatRequests, startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

const KEY = 'sk-bridle-test-4b1d0c9e7a2f6358'

let base: string
let home: string
let project: string
let server: ModelServer
let host: Host | undefined
const heard: { topic: string; payload: unknown }[] = []

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-leak-')))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'a.txt'), 'hello\n')
  server = await startModelServer({
    script: [
      {
        steps: [
          { toolCall: { id: 'c1', name: 'read', args: '{"path":"a.txt"}' } },
          { finish: 'tool_calls' },
        ],
      },
      'The file says hello.',
    ],
  })
  mkdirSync(home, { recursive: true })
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      endpoints: { remote: { baseUrl: server.url } },
      defaultEndpoint: 'remote',
      defaultModel: 'scripted',
    }),
  )
  host = await boot({ home, version: '0.0.0', versions: {}, env: {} })
  host.onNotification((topic, payload) => heard.push({ topic, payload }))
})

afterEach(async () => {
  await host?.close()
  await server.close()
  heard.length = 0
  rmSync(base, { recursive: true, force: true })
})

async function call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  if (!host) throw new Error('no host')
  const result = await dispatchCall(host, method, params, { transport: 'in-process' })
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

async function turnEnded(sessionId: string): Promise<void> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const ended = heard.some(({ topic, payload }) => {
      if (topic !== 'session/event') return false
      const note = payload as NotificationOf<'session/event'>
      return note.sessionId === sessionId && note.event.type === 'turn/end'
    })
    if (ended) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the turn did not end')
}

/** Every file under `dir`, recursively, as bytes. */
function allFiles(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name)
      return { path, bytes: readFileSync(path) }
    })
}

describe('an API key set through the contract', () => {
  it('reaches the server but never the log, an export, config.json or a notification', async () => {
    await call('credential/set', { endpointId: 'remote', value: KEY })
    const session = await call('session/create', { projectDir: project })
    await call('turn/send', { sessionId: session.id, requestId: 'r1', text: 'what is in a.txt?' })
    await turnEnded(session.id)

    // It was used: both requests carried it.
    const requests = chatRequests(server)
    expect(requests).toHaveLength(2)
    for (const request of requests) expect(request.headers.authorization).toBe(`Bearer ${KEY}`)

    // Nothing a renderer heard holds it.
    expect(heard.length).toBeGreaterThan(10)
    expect(JSON.stringify(heard)).not.toContain(KEY)

    await host?.close()
    host = undefined
    // Not in an export of the session...
    const store = openStore(databasePath(home))
    const exported = [...exportLines(store, session.id)].join('')
    store.close()
    expect(exported).toContain('The file says hello.')
    expect(exported).not.toContain(KEY)
    // ...nor in any file of the data folder but the credential store itself: the database and
    // its WAL, config.json, spilled outputs, snapshots, recent projects.
    const files = allFiles(home)
    expect(files.some((file) => file.path.endsWith('bridle.db'))).toBe(true)
    const holding = files.filter((file) => file.bytes.includes(KEY)).map((file) => file.path)
    expect(holding).toEqual([join(home, 'credentials.json')])
  })
})
