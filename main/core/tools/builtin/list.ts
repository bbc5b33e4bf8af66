import type { Dirent } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { openFolderInsideSync } from '../../workspace/confined.js'
import { PathError, resolveInsideProject } from '../../workspace/paths.js'
import { homePathsUnder } from '../home-files.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import { assessRead, isErrno, projectRelative, statOrUndefined } from './file-helpers.js'

export const MAX_LIST_ENTRIES = 1000
const MAX_DEPTH = 5
/** Never shown: its content is git's business, and it is large. */
const SKIPPED = new Set(['.git'])

const ListArgs = z.object({
  path: z
    .string()
    .min(1)
    .default('.')
    .describe('The folder, relative to the project folder; default the project folder itself'),
  depth: z
    .number()
    .int()
    .min(1)
    .max(MAX_DEPTH)
    .default(1)
    .describe(`How many levels to show, 1 to ${MAX_DEPTH}; default 1 (the folder's own entries)`),
})

interface Entry {
  readonly label: string
  readonly children: Entry[]
}

/** Lists a folder, or a tree of it, breadth first so a big first subfolder cannot hide the rest. */
export function listTool(): Tool {
  return defineTool({
    name: 'list',
    brief: 'List a folder (depth > 1: a tree).',
    description: [
      'List the entries of a project folder, sorted by name: folders end with /, symbolic links with @ (not followed).',
      `With depth above 1, subfolders are shown as an indented tree (two spaces per level). The .git folder is left out.`,
      `Shows at most ${MAX_LIST_ENTRIES} entries, the upper levels first; list a subfolder to see more of it.`,
    ].join(' '),
    schema: ListArgs,
    kind: 'read',
    isConcurrencySafe: () => true,
    assess: ({ path }, { projectDir }) => assessRead(projectDir, path),
    describe: ({ path, depth }) => `list ${path}${depth > 1 ? ` (depth ${depth})` : ''}`,
    async run({ path, depth }, ctx) {
      const dir = resolveInsideProject(ctx.projectDir, path)
      const root = realpathSync(ctx.projectDir)
      const shown = projectRelative(ctx.projectDir, dir)
      const info = await statOrUndefined(dir)
      if (!info) {
        throw new ToolError(
          'NOT_FOUND',
          `${shown} does not exist. List its parent folder to see what is there.`,
        )
      }
      if (!info.isDirectory()) {
        throw new ToolError('NOT_A_FOLDER', `${shown} is a file, not a folder; use read to see it.`)
      }
      const top: Entry[] = []
      const queue: { dir: string; into: Entry[]; level: number }[] = [{ dir, into: top, level: 1 }]
      let count = 0
      let isCut = false
      const credentials = homePathsUnder(root)
      for (let next = 0; next < queue.length && !isCut; next++) {
        ctx.signal.throwIfAborted()
        const item = queue[next]
        if (!item) break
        const entries = await readEntries(root, item.dir)
        if (entries === undefined) {
          item.into.push({ label: '(cannot be read)', children: [] })
          continue
        }
        for (const entry of entries) {
          if (count >= MAX_LIST_ENTRIES) {
            isCut = true
            break
          }
          const child: Entry = { label: labelOf(entry), children: [] }
          item.into.push(child)
          count++
          const childDir = join(item.dir, entry.name)
          // A credential store of the home folder is shown, not opened (unless named: asked).
          const isSecret = credentials.size > 0 && credentials.has(projectRelative(root, childDir))
          if (entry.isDirectory() && item.level < depth && !isSecret) {
            queue.push({
              dir: childDir,
              into: child.children,
              level: item.level + 1,
            })
          }
        }
      }
      if (top.length === 0)
        return { output: `(${shown} is empty)`, metadata: { entries: 0, isTruncated: false } }
      const lines: string[] = []
      const render = (entries: readonly Entry[], indent: string) => {
        for (const entry of entries) {
          lines.push(`${indent}${entry.label}`)
          render(entry.children, `${indent}  `)
        }
      }
      render(top, '')
      if (isCut) {
        lines.push(
          `[… stopped at ${MAX_LIST_ENTRIES} entries; list a subfolder, or use a smaller depth]`,
        )
      }
      return { output: lines.join('\n'), metadata: { entries: count, isTruncated: isCut } }
    },
  })
}

/**
 * A folder's entries sorted by name without the skipped ones, or undefined when it cannot be read.
 * The folder is opened from the project root without following a link on the way and listed
 * through that descriptor, so a folder swapped for a link since it was seen lists nothing.
 */
async function readEntries(root: string, dir: string): Promise<Dirent[] | undefined> {
  try {
    const folder = openFolderInsideSync(root, dir, { links: 'refuse' })
    let entries: Dirent[]
    try {
      entries = await readdir(folder.entry('.'), { withFileTypes: true })
    } finally {
      folder.close()
    }
    return entries
      .filter((entry) => !SKIPPED.has(entry.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch (error) {
    // A subfolder we may not read (or that vanished meanwhile) is shown as such, not fatal.
    if (isErrno(error, 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'ELOOP')) return undefined
    if (error instanceof PathError) return undefined
    throw error
  }
}

function labelOf(entry: Dirent): string {
  if (entry.isDirectory()) return `${entry.name}/`
  if (entry.isSymbolicLink()) return `${entry.name}@`
  return entry.name
}
