import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ApprovalPolicy } from '../../../main/core/tools/approvals.js'
import { createToolPipeline } from '../../../main/core/tools/pipeline.js'
import { ToolRegistry } from '../../../main/core/tools/registry.js'
import { OutputSpill } from '../../../main/core/tools/spill.js'
import { builtinTools } from '../../../main/core/tools/builtin/index.js'
import { SnapshotStore } from '../../../main/core/workspace/snapshot.js'
import { TurnWorkspace } from '../../../main/core/workspace/turn-workspace.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'

let h: LoopHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const call = (id: string, name: string, args: unknown) => ({
  steps: [{ toolCall: { id, name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }],
})

describe('the turn’s workspace diff', () => {
  it('lists a file edited, one written and one a bash command created, with exact line counts, at turn end', async () => {
    h = await startHarness(
      [
        call('c1', 'edit', {
          path: 'a.txt',
          oldText: 'a bug here\n',
          newText: 'a fix here\nand a new line\n',
        }),
        call('c2', 'write', { path: 'b.txt', content: 'one\ntwo\n' }),
        call('c3', 'bash', { command: 'printf "a\\nb\\nc\\n" > c.txt' }),
        'done',
      ],
      {
        makeTools: ({ projectDir, homeDir }) => {
          const workspace = new TurnWorkspace(
            projectDir,
            new SnapshotStore(join(homeDir, 'snapshots')),
          )
          const registry = new ToolRegistry()
          for (const tool of builtinTools()) registry.register(tool)
          const pipeline = createToolPipeline({
            registry,
            approvals: new ApprovalPolicy('full-auto'),
            spill: new OutputSpill(join(homeDir, 'outputs')),
            projectDir,
            workspace,
          })
          return Object.assign(pipeline, { turnHooks: workspace.turnHooks })
        },
      },
    )
    h.agent.send({ requestId: 'r1', text: 'change things' })
    const [outcome] = await h.agent.runUntilIdle()
    expect(outcome?.reason).toBe('completed')
    expect(readFileSync(join(h.projectDir, 'c.txt'), 'utf8')).toBe('a\nb\nc\n')
    const events = h.session.slice()
    const diff = events.find((e) => e.type === 'workspace/diff')
    expect(diff?.data).toMatchObject({
      files: [
        { path: 'a.txt', status: 'modified', additions: 2, deletions: 1 },
        { path: 'b.txt', status: 'added', additions: 2, deletions: 0 },
        { path: 'c.txt', status: 'added', additions: 3, deletions: 0 },
      ],
    })
    expect(events.at(-2)?.type).toBe('workspace/diff')
    expect(events.at(-1)?.type).toBe('turn/end')
  })
})
