/**
 * What a sandboxed command cannot reach, through the real CLI: the network (a local HTTP server
 * this test starts is unreachable unless the call asks for `network: true` and full-auto grants
 * it), and the harness's own environment (an API key the CLI was started with, named by the
 * endpoint's `apiKeyEnv`, appears nowhere: not in the log, its spill files, the export, nor in
 * what the model was sent). Positive controls show each probe really ran.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databasePath } from '../../main/core/store/index.js'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import {
  bash,
  callOutcome,
  disposeWorld,
  finished,
  makeWorld,
  runBridle,
  sandboxHere,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
  spawnBridle,
  toolCalls,
  turnEnds,
} from './safety-fixture.js'
import type { CliRun, Snapshot, World } from './safety-fixture.js'
import type { LogEvent } from '../../protocol/events.js'

const sandbox = await sandboxHere('safety-isolation')

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

describe.skipIf(!sandbox.available)('isolation of a sandboxed command', () => {
  const SECRET = `sk-sentinel-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`
  let world: World
  let server: ModelServer
  let target: Server
  let hits: string[]
  let run: CliRun
  let events: LogEvent[]
  let before: Snapshot

  beforeAll(async () => {
    hits = []
    target = createServer((req, res) => {
      hits.push(req.url ?? '')
      res.end('reached the host\n')
    })
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`

    server = await startModelServer({
      script: [
        toolCalls(
          bash('no-net', `curl -sS -m 5 ${url}/without-network`),
          bash('with-net', `curl -sS -m 5 ${url}/with-network`, { network: true }),
          bash('env-brief', 'cat /proc/$PPID/environ; env; cat /proc/*/environ'),
          bash(
            'env-text',
            `tr '\\0' '\\n' < /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done`,
          ),
          bash('env-var', 'echo "key=$DEEPSEEK_API_KEY"; printenv DEEPSEEK_API_KEY; echo done'),
        ),
        'Nothing to report.',
      ],
    })
    world = makeWorld('isolation', {
      sandbox: 'required',
      endpoints: { deepseek: { baseUrl: server.url, apiKeyEnv: 'DEEPSEEK_API_KEY' } },
      defaultEndpoint: 'deepseek',
      defaultModel: 'scripted',
    })
    before = snapshotSentinels(world)
    run = await runBridle(world, undefined, 'look around', {
      approval: 'full-auto',
      env: { DEEPSEEK_API_KEY: SECRET },
    })
    events = sessionEvents(world)
  }, 60_000)

  afterAll(async () => {
    await server.close()
    await new Promise((resolve) => target.close(resolve))
    disposeWorld(world)
  })

  it('the run completed, every command ran sandboxed', () => {
    expect(run.status, run.stderr).toBe(0)
    expect(turnEnds(events)).toEqual(['completed'])
    for (const id of ['no-net', 'with-net', 'env-brief', 'env-text', 'env-var']) {
      const outcome = callOutcome(events, id)
      expect(outcome.code, JSON.stringify(outcome)).toBe('ok')
      expect(outcome.result?.metadata?.['sandboxed']).toBe(true)
    }
  })

  it('without network: true, a server on the host loopback is unreachable', () => {
    const outcome = callOutcome(events, 'no-net')
    expect(outcome.exitCode, JSON.stringify(outcome)).not.toBe(0)
    expect(hits).not.toContain('/without-network')
  })

  it('with network: true in full-auto, the same server is reached', () => {
    const outcome = callOutcome(events, 'with-net')
    expect(outcome.exitCode, JSON.stringify(outcome)).toBe(0)
    expect(outcome.result?.ok && outcome.result.output).toContain('reached the host')
    expect(hits).toEqual(['/with-network'])
    expect(outcome.decided).toMatchObject([{ decision: 'allow', by: 'mode', detail: 'full-auto' }])
  })

  it('the probes of the environment really read it (the controls)', () => {
    const text = callOutcome(events, 'env-text').result
    // The command's own environment is there: the reads worked, only the key is missing.
    expect(text?.ok && text.output).toContain('BRIDLE=1')
    const variable = callOutcome(events, 'env-var').result
    expect(variable?.ok && variable.output).toContain('key=\ndone')
    // The CLI really held the key: it went to the model server, in the header only.
    const authorizations = server.requests.map((r) => r.headers.authorization)
    expect(authorizations).toContain(`Bearer ${SECRET}`)
  })

  it('the key appears nowhere in the data folder: database, WAL, spilled outputs', () => {
    const leaks = filesUnder(world.data).filter((file) =>
      readFileSync(file).includes(Buffer.from(SECRET)),
    )
    expect(leaks).toEqual([])
    // The database is really there and was written (not an empty folder passing by accident).
    expect(statSync(databasePath(world.data)).size).toBeGreaterThan(0)
  })

  it('the key appears nowhere in `bridle export`', async () => {
    expect(run.sessionId).toBeDefined()
    const exported = await finished(spawnBridle(world, ['export', run.sessionId ?? '']))
    expect(exported.status, exported.stderr).toBe(0)
    expect(exported.stdout).toContain('BRIDLE=1')
    expect(exported.stdout).not.toContain(SECRET)
  })

  it('the key appears in no request body the model server received', () => {
    expect(server.requests.length).toBeGreaterThanOrEqual(2)
    for (const request of server.requests) expect(request.rawBody).not.toContain(SECRET)
    // The results did reach the model (the control for the line above).
    const last = server.requests.at(-1)?.rawBody ?? ''
    expect(last).toContain('BRIDLE=1')
  })

  it('no sentinel changed', () => {
    expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
  })
})
