import { z } from 'zod'
import { resolveInsideProject } from '../../workspace/paths.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import { projectRelative, statOrUndefined } from './file-helpers.js'

const MAX_PRESENTED = 50

const PresentArgs = z.object({
  paths: z
    .array(z.string().min(1))
    .min(1)
    .max(MAX_PRESENTED)
    .describe('The files (or folders) to hand to the user, relative to the project folder'),
  note: z
    .string()
    .optional()
    .describe('A short line for the user about what they are getting, shown with the files'),
})

/**
 * Declares finished work products so the UI can show them to the user; it changes nothing. The
 * pipeline logs the returned `deliverables` as `deliverable/present`.
 */
export function presentTool(): Tool {
  return defineTool({
    name: 'present',
    brief: 'Show finished files to the user as the result.',
    description: [
      'Hand finished files to the user: the app shows them as the result of the task.',
      'Use it once the deliverables (a report, a generated file, a changed document) exist and are complete;',
      'do not use it for files you only read or edited along the way. It changes nothing.',
      'Every path must exist inside the project folder.',
    ].join(' '),
    schema: PresentArgs,
    kind: 'read',
    isConcurrencySafe: () => true,
    describe: ({ paths }) => `present ${paths.join(', ')}`,
    async run({ paths, note }, ctx) {
      const found: string[] = []
      const missing: string[] = []
      for (const path of paths) {
        const absolute = resolveInsideProject(ctx.projectDir, path)
        const shown = projectRelative(ctx.projectDir, absolute)
        if (await statOrUndefined(absolute)) {
          if (!found.includes(shown)) found.push(shown)
        } else {
          missing.push(shown)
        }
      }
      if (missing.length > 0) {
        throw new ToolError(
          'NOT_FOUND',
          `${missing.length === 1 ? 'This path does' : 'These paths do'} not exist: ${missing.join(', ')}. Create ${missing.length === 1 ? 'it' : 'them'} first, or present only files that exist.`,
        )
      }
      return {
        output: `Presented to the user: ${found.join(', ')}${note === undefined ? '' : `\nNote: ${note}`}`,
        metadata: { count: found.length },
        deliverables: note === undefined ? { paths: found } : { paths: found, note },
      }
    },
  })
}
