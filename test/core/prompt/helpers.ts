import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import type { ToolRunner } from '../../../main/core/loop/tools.js'
import type { AgentOptions } from '../../../main/core/loop/agent.js'
import { createPromptSections } from '../../../main/core/prompt/builtin.js'
import { turnContext } from '../../../main/core/prompt/context.js'
import { PromptSections } from '../../../main/core/prompt/sections.js'
import { defineTool } from '../../../main/core/tools/types.js'
import type { ScriptEntry } from '../../fixtures/model-server/script.js'
import { startHarness } from '../loop/harness.js'
import type { LoopHarness } from '../loop/harness.js'
import { fullAutoTools } from '../../fixtures/pipeline.js'

/** Runs real git in `dir`, with an identity so commits work on a bare CI machine. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=Bridle Test', '-c', 'user.email=test@example.invalid', ...args],
    { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  )
}

/** A repository on branch main with everything in `dir` committed. */
export function initRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'start')
}

/** Two small tools on the project folder: write a file (changes git status) and read one. */
export function noteTools(dirs: { projectDir: string; homeDir: string }): ToolRunner {
  return fullAutoTools(
    [
      defineTool({
        name: 'write_note',
        description: 'Write a text file',
        kind: 'edit',
        schema: z.object({ path: z.string(), text: z.string() }),
        run: ({ path, text }) => {
          writeFileSync(join(dirs.projectDir, path), text)
          return Promise.resolve({ output: `wrote ${path}` })
        },
      }),
      defineTool({
        name: 'look',
        description: 'Read a text file',
        kind: 'read',
        schema: z.object({ path: z.string() }),
        run: ({ path }) =>
          Promise.resolve({ output: readFileSync(join(dirs.projectDir, path), 'utf8') }),
      }),
    ],
    dirs,
  )
}

/** A scripted response that calls one tool. */
export const toolCall = (name: string, args: unknown, id: string) => ({
  steps: [{ toolCall: { id, name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }],
})

export interface SentRequest {
  readonly messages: readonly { readonly role: string; readonly content?: unknown }[]
  readonly tools?: unknown
}

/** A recorded request body, with the shape the prefix checks need. */
export function sentRequest(body: unknown): SentRequest {
  return z
    .looseObject({
      messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
      tools: z.unknown().optional(),
    })
    .parse(body)
}

/** A clock the test moves a day at a time, kept at local noon so no time zone shifts the date. */
export function testClock(year: number, month: number, day: number) {
  const date = new Date(year, month - 1, day, 12)
  return {
    now: () => date.getTime(),
    nextDay: () => void date.setDate(date.getDate() + 1),
  }
}

/**
 * A harness whose prompt is the real built-in sections (built once, like `bridle run` does) and
 * whose turns get the real context hook on the given clock. The sections and the hook need the
 * project folder, which exists only once the harness has started, hence the late binding.
 */
export async function startPromptHarness(
  script: readonly ScriptEntry[],
  opts: { now: () => number; prepare?: (projectDir: string) => void },
): Promise<LoopHarness> {
  let sections = new PromptSections()
  let context: NonNullable<AgentOptions['turnContext']> = () => Promise.resolve(undefined)
  const harness = await startHarness(script, {
    prompt: () => sections.assemble(),
    turnContext: (session, signal) => context(session, signal),
    makeTools: noteTools,
  })
  opts.prepare?.(harness.projectDir)
  sections = await createPromptSections({
    projectDir: harness.projectDir,
    platform: 'linux',
    toolNames: ['write_note', 'look'],
  })
  context = turnContext({ projectDir: harness.projectDir, now: opts.now })
  return harness
}
