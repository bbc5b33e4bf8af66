/**
 * The app's side of a log that cannot take a write mid-turn (issue 15, item 8): the command whose
 * intent could not be recorded does not run, the user hears one sentence (a `session/failed`
 * notification, which the shell shows until dismissed), and the session is closed, its lock
 * released, so that it opens again and is repaired once the disk takes writes again.
 *
 * The fault is SQLite's own (`StoreOptions.fault`: `query_only` or `max_page_count` from the first
 * batch holding a `tool/call`), so the failure takes the production path.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { methods, notifications } from '../../../protocol/contract.js'
import type { NotificationOf, TopicName } from '../../../protocol/contract.js'
import { Config } from '../../../main/core/host/settings/config.js'
import type { CallContext } from '../../../main/core/host/host.js'
import { createRuntime } from '../../../main/core/host/runtime/runtime.js'
import type { ModelChoice, SettingsService } from '../../../main/core/host/services.js'
import { Session } from '../../../main/core/log/index.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { databasePath, openStore } from '../../../main/core/store/index.js'
import type { StoreFault } from '../../../main/core/store/index.js'
import { startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'

let home: string
let project: string
let server: ModelServer

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'bridle-host-store-'))
  project = join(home, 'project')
  mkdirSync(project)
  project = realpathSync(project)
  server = await startModelServer()
})

afterEach(async () => {
  await server.close()
  rmSync(home, { recursive: true, force: true })
})

function settings(): SettingsService {
  const config = Config.parse({ approval: 'full-auto', sandbox: 'off' })
  return {
    current: () => config,
    defaults: () => ({}),
    resolveModel: (ref) => {
      const choice: ModelChoice = {
        endpointId: ref.endpointId ?? 'local',
        baseUrl: server.url,
        adapter: createOpenAiCompatibleAdapter({ baseUrl: server.url }),
        model: ref.model ?? 'scripted',
      }
      return Promise.resolve(choice)
    },
    rememberApprovalRule: () => undefined,
    revision: () => 0,
    probeReport: () => undefined,
  }
}

/** A runtime over a store that refuses writes from the first `tool/call` on. */
function faultyApp(fault: StoreFault) {
  const store = openStore(databasePath(home), { fault })
  const heard: { topic: TopicName; payload: unknown }[] = []
  const runtime = createRuntime(
    {
      home,
      store,
      notify: <T extends TopicName>(topic: T, payload: NotificationOf<T>) => {
        notifications[topic].parse(payload)
        heard.push({ topic, payload })
      },
    },
    settings(),
  )
  const send = (sessionId: string, text: string) => {
    const handler = runtime.handlers['turn/send'] as (p: unknown, c: CallContext) => unknown
    const params = methods['turn/send'].params.parse({ sessionId, requestId: text, text })
    return Promise.resolve(handler(params, { transport: 'in-process' }))
  }
  const failures = () =>
    heard.flatMap((h) =>
      h.topic === 'session/failed' ? [h.payload as NotificationOf<'session/failed'>] : [],
    )
  return { store, runtime, send, failures }
}

async function waitFor<T>(probe: () => T | undefined | false, what: string): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('the log refuses a write mid-turn', () => {
  it.each([
    ['readonly', /is read-only; make it writable or point BRIDLE_HOME at another folder/],
    ['full', /the disk holding .* is full; free some space on it, then try again/],
  ] as const)(
    '%s: the command does not run, one session/failed sentence, the session closed and later repaired',
    async (kind, sentence) => {
      const app = faultyApp({ kind, atEventType: 'tool/call' })
      const created = Session.create(app.store, { projectDir: project, model: 'scripted' })
      created.close()
      const sessionId = created.id
      server.enqueue({
        steps: [
          {
            toolCall: {
              id: 'call_1',
              name: 'bash',
              args: JSON.stringify({ command: 'touch ran.txt' }),
            },
          },
          { finish: 'tool_calls' },
        ],
      })
      expect(await app.send(sessionId, 'make a file')).toEqual({ accepted: true })
      const [failure] = await waitFor(
        () => app.failures().length > 0 && app.failures(),
        'session/failed',
      )
      await waitFor(() => !app.runtime.service.isRunning(sessionId), 'the run to settle')

      expect(app.failures()).toHaveLength(1)
      expect(failure?.sessionId).toBe(sessionId)
      expect(failure?.message).toMatch(
        /^The session stopped because its log could not be written: /,
      )
      expect(failure?.message).toMatch(sentence)
      expect(failure?.message).not.toMatch(/SQLITE_|SqliteError|LogError|\n\s+at /)
      expect(existsSync(join(project, 'ran.txt'))).toBe(false)

      // The lock was released: another connection (the disk writable again) opens the session
      // for writing and repairs the turn that was left open.
      const healthy = openStore(databasePath(home))
      try {
        const reopened = Session.open(healthy, sessionId)
        const events = reopened.slice()
        reopened.close()
        expect(events.some((event) => event.type === 'tool/call')).toBe(false)
        expect(events.at(-1)?.type).toBe('recovery/repaired')
      } finally {
        healthy.close()
        await app.runtime.service.close()
        app.store.close()
      }
    },
  )
})
