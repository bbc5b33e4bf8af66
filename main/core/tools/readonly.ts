import { readdir, readFile, stat } from 'node:fs/promises'
import { relative } from 'node:path'
import { z } from 'zod'
import { resolveInsideProject } from '../workspace/paths.js'
import { defineTool } from './types.js'
import type { Tool } from './types.js'

/** The model sees at most this much of a file per read; it can page with offset/limit. */
const MAX_READ_BYTES = 50 * 1024

/**
 * The read-only tools `bridle run` offers until the guarded tool runtime lands: they cannot change
 * anything, so they need no approval. Paths stay inside the project folder.
 */
export function readOnlyTools(): Tool[] {
  return [
    defineTool({
      name: 'read',
      description:
        'Read a text file of the project. Lines are numbered from 1; use offset and limit to page through long files.',
      schema: z.object({
        path: z.string().min(1).describe('Path relative to the project folder'),
        offset: z.number().int().min(1).optional().describe('First line to read (1-based)'),
        limit: z.number().int().min(1).max(5000).optional().describe('How many lines to read'),
      }),
      kind: 'read',
      isConcurrencySafe: () => true,
      async run({ path, offset = 1, limit = 2000 }, { projectDir }) {
        const file = resolveInsideProject(projectDir, path)
        const info = await stat(file)
        if (!info.isFile()) throw new Error(`${path} is not a file`)
        const text = await readFile(file, 'utf8')
        const lines = text.split('\n').slice(offset - 1, offset - 1 + limit)
        let out = lines.map((line, i) => `${String(offset + i).padStart(6)}\t${line}`).join('\n')
        if (Buffer.byteLength(out) > MAX_READ_BYTES) {
          out = `${out.slice(0, MAX_READ_BYTES)}\n[… cut at ${MAX_READ_BYTES} bytes; read again with a later offset]`
        }
        return { output: out }
      },
    }),
    defineTool({
      name: 'list',
      description: 'List the entries of a folder of the project (folders end with /).',
      schema: z.object({
        path: z.string().default('.').describe('Folder relative to the project folder'),
      }),
      kind: 'read',
      isConcurrencySafe: () => true,
      async run({ path }, { projectDir }) {
        const dir = resolveInsideProject(projectDir, path)
        const entries = await readdir(dir, { withFileTypes: true })
        const names = entries
          .filter((entry) => entry.name !== '.git')
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .sort()
        return {
          output:
            names.length > 0 ? names.join('\n') : `(${relative(projectDir, dir) || '.'} is empty)`,
        }
      },
    }),
  ]
}
