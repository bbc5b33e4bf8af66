import { realpathSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { z } from 'zod'
import { assertUnchanged, fileVersion, sha256Of } from '../file-ledger.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import {
  assessFileChange,
  countLines,
  isErrno,
  pathApprovalKey,
  projectRelative,
  pathChanged,
  resolveWriteTarget,
  writeFileInProject,
} from './file-helpers.js'
import type { FileToolOptions } from './file-helpers.js'

const WriteArgs = z.object({
  path: z
    .string()
    .min(1)
    .describe('The file to create or overwrite, relative to the project folder'),
  content: z.string().describe('The complete new content of the file (UTF-8 text)'),
})

/**
 * Creates or overwrites a whole file, atomically, after the workspace has saved the old content.
 * With a ledger, an existing file must have been read first and be unchanged since (checked
 * again right before the rename); a file the user deleted after the agent read it is recreated,
 * since nothing on disk can be lost, and the result says so.
 */
export function writeTool(opts: FileToolOptions = {}): Tool {
  return defineTool({
    name: 'write',
    brief: 'Create a file or replace all of it.',
    description: [
      'Create a file, or replace the whole content of an existing one, with the given text.',
      'Missing parent folders are created. Use it for new files and complete rewrites;',
      'to change part of an existing file use edit, which cannot lose the rest of it by mistake.',
      'Read an existing file before overwriting it. Paths must stay inside the project folder.',
    ].join(' '),
    schema: WriteArgs,
    kind: 'edit',
    describe: ({ path, content }) => `write ${path} (${countLines(content)} lines)`,
    approvalKey: ({ path }) => pathApprovalKey(path),
    assess: ({ path }, { projectDir }) => assessFileChange(projectDir, path, opts.protectedPaths),
    async run({ path, content }, ctx) {
      ctx.signal.throwIfAborted()
      const file = await resolveWriteTarget(ctx.projectDir, path)
      const shown = projectRelative(ctx.projectDir, file)
      const root = realpathSync(ctx.projectDir)
      // Not followed: the target was resolved through every link, so a link here is a swap.
      const before = await lstat(file).catch((error: unknown) => {
        if (isErrno(error, 'ENOENT', 'ENOTDIR')) return undefined
        throw error
      })
      if (before?.isSymbolicLink()) throw pathChanged(shown)
      if (before?.isDirectory()) {
        throw new ToolError(
          'NOT_A_FILE',
          `${shown} is a folder; write creates or replaces files only. Choose a file path inside it.`,
        )
      }
      if (before && !before.isFile()) {
        throw new ToolError(
          'NOT_A_FILE',
          `${shown} is not a regular file (a device, socket or pipe); write replaces regular files only.`,
        )
      }
      const { files } = ctx
      const seen = files?.seen(file)
      // Checked before any effect, so a refused write leaves no folder and no snapshot behind.
      let version = files && (await fileVersion(root, file, ctx.signal))
      if (version) assertUnchanged(seen, version.sha256, shown, 'write')
      // Intent before effect: the workspace snapshots the old content before anything changes.
      ctx.beforeWrite(file)
      // Again right before the rename: a change landing after this `stat` is the race left over.
      const recheck =
        files &&
        (async () => {
          version = await fileVersion(root, file, ctx.signal, version)
          assertUnchanged(files.seen(file), version.sha256, shown, 'write')
        })
      const mode = before ? before.mode & 0o7777 : undefined
      await writeFileInProject(ctx.projectDir, file, shown, content, {
        mode,
        beforeRename: recheck,
        create: true,
      })
      const sha256 = sha256Of(content)
      files?.saw(file, sha256)
      const lines = countLines(content)
      const bytes = Buffer.byteLength(content)
      const isRecreated = !before && typeof seen === 'string'
      const note = isRecreated ? ' It had been deleted since you last read it.' : ''
      return {
        output: `${before ? 'Overwrote' : 'Created'} ${shown}: wrote ${lines} line${lines === 1 ? '' : 's'} (${bytes} bytes).${note}`,
        metadata: { path: shown, lines, bytes, isCreated: !before, sha256 },
      }
    },
  })
}
