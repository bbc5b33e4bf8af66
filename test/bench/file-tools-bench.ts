/**
 * What the file tools' confinement costs (each path opened, then the descriptor's real path
 * checked, writes renamed within a verified folder): `read`, `write` and `edit` of a 4 KB file,
 * and `grep` over a small tree, called as the pipeline calls them, with no model in between.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { editTool } from '../../main/core/tools/builtin/edit.js'
import { grepTool } from '../../main/core/tools/builtin/grep.js'
import { readTool } from '../../main/core/tools/builtin/read.js'
import { writeTool } from '../../main/core/tools/builtin/write.js'
import type { Tool, ToolContext } from '../../main/core/tools/types.js'
import { figure, percentile, time } from './figures.js'
import type { Figure } from './figures.js'

const CALLS = 400
/** 4 KB of source-like text: 64 lines of 64 bytes. */
const TEXT = 'const value = compute(input, options) // a line of code here..\n'.repeat(64)

async function p50(tool: Tool, ctx: ToolContext, args: (i: number) => unknown): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < CALLS; i++) {
    const parsed = tool.schema.parse(args(i))
    samples.push(await time(() => tool.run(parsed, ctx)))
  }
  return percentile(samples, 50)
}

export async function benchFileTools(): Promise<Figure[]> {
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'bridle-bench-files-')))
  try {
    mkdirSync(join(project, 'src', 'lib'), { recursive: true })
    writeFileSync(join(project, 'src', 'lib', 'a.ts'), TEXT)
    for (let i = 0; i < 50; i++) writeFileSync(join(project, 'src', `f${i}.ts`), TEXT)
    const ctx: ToolContext = {
      projectDir: project,
      signal: new AbortController().signal,
      beforeWrite: () => undefined,
    }
    const read = await p50(readTool(), ctx, () => ({ path: 'src/lib/a.ts' }))
    const write = await p50(writeTool(), ctx, (i) => ({
      path: 'src/lib/b.ts',
      content: `${TEXT.slice(0, -8)}${String(i).padStart(7)}\n`,
    }))
    const edit = await p50(editTool(), ctx, (i) => ({
      path: 'src/lib/a.ts',
      oldText: i % 2 === 0 ? 'options) // a line' : 'OPTIONS) // a line',
      newText: i % 2 === 0 ? 'OPTIONS) // a line' : 'options) // a line',
      replaceAll: true,
    }))
    const grep = await p50(grepTool({ ripgrepPath: null }), ctx, () => ({ pattern: 'compute' }))
    return [
      figure('file tools: read a 4 KB file, p50', read, 'ms'),
      figure('file tools: write a 4 KB file, p50', write, 'ms'),
      figure('file tools: edit a 4 KB file, p50', edit, 'ms'),
      figure('file tools: grep 51 files (JS), p50', grep, 'ms'),
    ]
  } finally {
    rmSync(project, { recursive: true, force: true })
  }
}
