import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { Agent } from '../../../main/core/loop/agent.js'
import type { AgentOptions } from '../../../main/core/loop/agent.js'
import type { ToolRunner } from '../../../main/core/loop/tools.js'
import { Session } from '../../../main/core/log/index.js'
import { defineTool } from '../../../main/core/tools/types.js'
import { fullAutoTools } from '../../fixtures/pipeline.js'
import { createOpenAiCompatibleAdapter } from '../../../main/core/models/openai-compatible.js'
import { startModelServer } from '../../fixtures/model-server/server.js'
import type { ModelServer } from '../../fixtures/model-server/server.js'
import type { Script } from '../../fixtures/model-server/script.js'
import { tempHome } from '../log/helpers.js'
import type { TempHome } from '../log/helpers.js'

/** Three small tools on a real folder: read a file, replace text in it, "run the tests". */
export function projectTools(projectDir: string, homeDir: string): ToolRunner {
  const tools = [
    defineTool({
      name: 'read',
      description: 'Read a file',
      kind: 'read',
      schema: z.object({ path: z.string() }),
      run: ({ path }) => Promise.resolve({ output: readFileSync(join(projectDir, path), 'utf8') }),
    }),
    defineTool({
      name: 'edit',
      description: 'Replace text in a file',
      kind: 'edit',
      schema: z.object({ path: z.string(), old: z.string(), new: z.string() }),
      run: ({ path, old, new: replacement }) => {
        const file = join(projectDir, path)
        const text = readFileSync(file, 'utf8')
        if (!text.includes(old)) throw new Error(`"${old}" is not in ${path}`)
        writeFileSync(file, text.replace(old, replacement))
        return Promise.resolve({ output: `edited ${path}` })
      },
    }),
    defineTool({
      name: 'test',
      description: 'Run the tests',
      kind: 'execute',
      schema: z.object({}),
      run: () =>
        Promise.resolve({
          output: readFileSync(join(projectDir, 'a.txt'), 'utf8').includes('bug')
            ? '1 failed'
            : '1 passed',
        }),
    }),
  ]
  return fullAutoTools(tools, { projectDir, homeDir })
}

export interface LoopHarness {
  readonly home: TempHome
  readonly server: ModelServer
  readonly session: Session
  readonly agent: Agent
  readonly projectDir: string
  close(): Promise<void>
}

export async function startHarness(
  script: Script,
  overrides: Partial<AgentOptions> & {
    /** Builds the tool runner (and, optionally, turn hooks) once the project and data folders exist. */
    makeTools?: (dirs: { projectDir: string; homeDir: string }) => ToolRunner & {
      turnHooks?: AgentOptions['turnHooks']
    }
  } = {},
): Promise<LoopHarness> {
  const { makeTools, ...agentOverrides } = overrides
  const home = tempHome()
  const projectDir = join(home.dir, 'project')
  mkdirSync(projectDir)
  writeFileSync(join(projectDir, 'a.txt'), 'there is a bug here\n')
  const server = await startModelServer({ script })
  const store = home.open()
  const session = Session.create(store, { projectDir })
  const built = makeTools?.({ projectDir, homeDir: home.dir })
  const agent = new Agent({
    session,
    adapter: createOpenAiCompatibleAdapter({ baseUrl: server.url, idleTimeoutMs: 2000 }),
    model: 'scripted',
    tools: built ?? projectTools(projectDir, home.dir),
    ...(built?.turnHooks ? { turnHooks: built.turnHooks } : {}),
    prompt: () => [
      { name: 'identity', text: 'You are a test agent.' },
      { name: 'environment', text: `Project: ${projectDir}` },
    ],
    retry: { retries: 2, baseMs: 1, maxMs: 5, jitter: 0 },
    ...agentOverrides,
  })
  return {
    home,
    server,
    session,
    agent,
    projectDir,
    async close() {
      await server.close()
      session.close()
      await home.cleanup()
    },
  }
}

/** The types of the events from `fromSeq` on. */
export const typesFrom = (session: Session, fromSeq = 0) =>
  session.slice(fromSeq).map((e) => e.type)
