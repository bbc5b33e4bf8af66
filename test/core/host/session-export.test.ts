/**
 * `session/export` through the Host's dispatch, as the app would call it: the keys the Host knows
 * (an endpoint's environment variable, a key in the credential store) never reach the transcript,
 * and the suggested file name comes from the title.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MethodName, ParamsOf, ResultOf } from '../../../protocol/contract.js'
import { boot, dispatchCall } from '../../../main/core/host/index.js'
import type { Host } from '../../../main/core/host/index.js'
import { Session } from '../../../main/core/log/index.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import { appendTurn } from '../log/helpers.js'

const ENV_KEY = 'env-key-value-1234567'
const STORED_KEY = 'stored-key-value-7654321'

let base: string
let home: string
let project: string
let host: Host

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-session-export-')))
  home = join(base, 'home')
  project = join(base, 'project')
  mkdirSync(project)
  mkdirSync(home)
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({
      endpoints: { local: { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'LOCAL_KEY' } },
    }),
  )
  host = await boot({ home, version: '0.0.0', versions: {}, env: { LOCAL_KEY: ENV_KEY } })
})

afterEach(async () => {
  await host.close()
  rmSync(base, { recursive: true, force: true })
})

async function call<M extends MethodName>(method: M, params: ParamsOf<M>) {
  return dispatchCall(host, method, params, { transport: 'in-process' })
}

async function ok<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  const result = await call(method, params)
  if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`)
  return result.value as ResultOf<M>
}

describe('session/export', () => {
  it('gives the transcript with the keys the Host knows redacted, and a name to save it under', async () => {
    await ok('credential/set', { endpointId: 'local', value: STORED_KEY })
    const created = await ok('session/create', { projectDir: project, title: 'Fix the <tests>!' })
    const store = openStore(databasePath(home))
    const session = Session.open(store, created.id)
    try {
      appendTurn(session, `keys ${ENV_KEY} and ${STORED_KEY} <script>x()</script>`, [
        { reply: `I saw ${STORED_KEY}.` },
      ])
    } finally {
      session.close()
      store.close()
    }

    const html = await ok('session/export', { sessionId: created.id, format: 'html' })
    expect(html.fileName).toBe('fix-the-tests.html')
    for (const key of [ENV_KEY, STORED_KEY]) expect(html.text).not.toContain(key)
    expect(html.text).not.toContain('<script>')
    expect(html.text).toContain('keys [redacted] and [redacted] &lt;script&gt;x()&lt;/script&gt;')
    expect(html.text).toContain('<title>Fix the &lt;tests&gt;! · Bridle transcript</title>')

    const md = await ok('session/export', { sessionId: created.id, format: 'md' })
    expect(md.fileName).toBe('fix-the-tests.md')
    expect(md.text).toContain('I saw [redacted].')
    for (const key of [ENV_KEY, STORED_KEY]) expect(md.text).not.toContain(key)
  })

  it('says NOT_FOUND for an unknown session and INVALID_PARAMS for an unknown format', async () => {
    const missing = await call('session/export', { sessionId: 'nope', format: 'md' })
    expect(missing.ok ? 'ok' : missing.error.code).toBe('NOT_FOUND')
    const bad = await call('session/export', {
      sessionId: 'nope',
      format: 'pdf' as 'md',
    })
    expect(bad.ok ? 'ok' : bad.error.code).toBe('INVALID_PARAMS')
  })
})
