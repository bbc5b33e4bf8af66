import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliArgv, runCli } from '../fixtures/cli.js'
import { chatRequests, startModelServer } from '../fixtures/model-server/server.js'
import type { ModelServer } from '../fixtures/model-server/server.js'

let home: string
let project: string
let server: ModelServer | undefined

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bridle-compact-'))
  project = join(home, 'project')
  mkdirSync(project)
})

afterEach(async () => {
  await server?.close()
  server = undefined
  rmSync(home, { recursive: true, force: true })
})

type WireMessage = { role: string; content: string | null }
const lastRequest = (): WireMessage[] =>
  (chatRequests(server as ModelServer).at(-1)?.body as { messages: WireMessage[] }).messages

describe('bridle compact and uncompact', () => {
  it('compacts on demand with a focus, and uncompact brings the originals back', async () => {
    server = await startModelServer({
      script: [
        'The codename is BLUEFIN.',
        'Noted, tests run with npm test.',
        'SUMMARY: codename and test command recorded.',
        'Third answer.',
        'Fourth answer.',
      ],
    })
    const model = ['--base-url', server.url, '--model', 'scripted']
    const first = await runCli(cliArgv({ home, project }, 'run', ...model, 'What is the codename?'))
    const sessionId = /^session (\S+)$/m.exec(first.stderr)?.[1] ?? ''
    expect(first.status).toBe(0)
    const second = await runCli(
      cliArgv({ home, project }, 'run', '--session', sessionId, ...model, 'How are tests run?'),
    )
    expect(second.status).toBe(0)

    const compacted = await runCli(
      cliArgv({ home }, 'compact', sessionId, ...model, '--focus', 'the codename'),
    )
    expect(compacted.stderr).toBe('')
    expect(compacted.status).toBe(0)
    const [, checkpointSeq] = /^checkpoint (\d+): replaced seq \d+\.\.\d+, \d+ -> \d+ tokens/m.exec(
      compacted.stdout,
    ) ?? ['', '']
    expect(checkpointSeq).not.toBe('')
    const summaryRequest = lastRequest()
    expect(summaryRequest[1]?.content).toContain('Focus the summary on: the codename')
    expect(summaryRequest[1]?.content).toContain('BLUEFIN')

    await runCli(
      cliArgv({ home, project }, 'run', '--session', sessionId, ...model, 'Third question'),
    )
    const afterCompact = JSON.stringify(lastRequest())
    expect(afterCompact).toContain('SUMMARY: codename and test command recorded.')
    expect(afterCompact).not.toContain('BLUEFIN')
    // Only two turns: keeping both would keep everything, so a tail (the last answer) stays.
    expect(afterCompact).toContain('Noted, tests run with npm test.')

    const undone = await runCli(cliArgv({ home }, 'uncompact', sessionId, checkpointSeq))
    expect(undone.status).toBe(0)
    expect(undone.stdout).toContain(`checkpoint ${checkpointSeq} undone`)
    await runCli(
      cliArgv({ home, project }, 'run', '--session', sessionId, ...model, 'Fourth question'),
    )
    const afterUndo = JSON.stringify(lastRequest())
    expect(afterUndo).toContain('BLUEFIN')
    expect(afterUndo).not.toContain('SUMMARY: codename')

    const again = await runCli(cliArgv({ home }, 'uncompact', sessionId, checkpointSeq))
    expect(again.status).toBe(1)
    expect(again.stderr).toContain(`seq ${checkpointSeq} is not a checkpoint on the surface`)
  }, 60_000)

  it('a dead summary endpoint leaves the session as it was and says so', async () => {
    server = await startModelServer({ script: ['An answer.', 'Another.'] })
    const first = await runCli(
      cliArgv({ home, project }, 'run', '--base-url', server.url, '--model', 'scripted', 'Hello'),
    )
    const sessionId = /^session (\S+)$/m.exec(first.stderr)?.[1] ?? ''
    await runCli(
      cliArgv(
        { home, project },
        'run',
        '--session',
        sessionId,
        '--base-url',
        server.url,
        '--model',
        'scripted',
        'Again',
      ),
    )
    // The script has run out: the server answers 500 to the summary request.
    const compacted = await runCli(
      cliArgv({ home }, 'compact', sessionId, '--base-url', server.url, '--model', 'scripted'),
    )
    expect(compacted.status).toBe(1)
    expect(compacted.stderr).toMatch(/SUMMARY_FAILED: The summary request failed/)
    const timeline = await runCli(cliArgv({ home }, 'inspect', sessionId))
    expect(timeline.stdout).toMatch(/error\s+compaction SUMMARY_FAILED/)
    expect(timeline.stdout).not.toContain('compaction/checkpoint')
  }, 60_000)
})
