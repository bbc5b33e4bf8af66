import { z } from 'zod'
import { resolveInsideProject } from '../../workspace/paths.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import { assessRead } from './file-helpers.js'
import { compileGlob, projectPath, statTarget, walkProject } from './walk.js'

/** Paths shown to the model; the rest are counted in a marker. */
export const DEFAULT_MAX_GLOB_RESULTS = 1000

/**
 * `glob`: finds project files by name pattern. Paths come back project-relative in path order
 * (folder by folder, names sorted), not by modification time, so the same tree always gives the
 * same answer and the list reads like the tree. Ignored files (.gitignore at any level,
 * `.git/info/exclude`), `.git` and symlinks are never listed.
 */
export function globTool(): Tool {
  return defineTool({
    name: 'glob',
    brief: 'Find files by name pattern (`*.ts`, `src/**/*.ts`).',
    description: [
      'Find files of the project by name pattern. Returns project-relative paths in path order.',
      'A pattern without a slash matches file names at any depth (`*.ts`, `README.md`); a pattern',
      'with a slash matches the whole path under `path` (`src/*.ts` only directly in src,',
      '`src/**/*.ts` at any depth below it). `*` and `?` stay within one name, `**` spans folders,',
      '`{ts,tsx}` and `[abc]` work. Files ignored by .gitignore are not listed. Use grep to search',
      'inside files.',
    ].join(' '),
    schema: z.object({
      pattern: z.string().min(1).describe('Glob pattern, e.g. `src/**/*.ts` or `*.md`'),
      path: z
        .string()
        .min(1)
        .optional()
        .describe('Folder to search under, relative to the project folder (default: all of it)'),
    }),
    kind: 'read',
    isConcurrencySafe: () => true,
    assess: ({ path }, { projectDir }) => assessRead(projectDir, path ?? '.'),
    describe: ({ pattern, path }) =>
      `Find files matching ${pattern}${path === undefined ? '' : ` under ${path}`}`,
    async run({ pattern, path }, { projectDir, signal }) {
      const root = resolveInsideProject(projectDir, '.')
      const folder = resolveInsideProject(projectDir, path ?? '.')
      const matches = compileGlob(pattern)
      if (!(await statTarget(folder, path ?? '.')).isDirectory()) {
        throw new ToolError('NOT_A_FOLDER', `${path ?? '.'} is a file; give the folder to search`)
      }
      const start = projectPath(root, folder)
      const found: string[] = []
      let total = 0
      const { isTruncated } = await walkProject({ root, start, signal }, (file) => {
        const below = start === '' ? file.path : file.path.slice(start.length + 1)
        if (matches(below, false)) {
          total++
          if (found.length < DEFAULT_MAX_GLOB_RESULTS) found.push(file.path)
        }
        return true
      })
      const where = start === '' ? 'the project folder' : start
      const lines = total === 0 ? [`No files match ${pattern} under ${where}`] : found.slice()
      if (total > found.length) {
        lines.push(`[${total - found.length} more not shown; narrow the pattern or give a path]`)
      }
      if (isTruncated) {
        lines.push(
          `[The search stopped after looking at too many files, so some may be missing; give a path to search a smaller folder]`,
        )
      }
      return { output: lines.join('\n'), metadata: { count: total, isTruncated } }
    },
  })
}
