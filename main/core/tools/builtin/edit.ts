import { realpathSync } from 'node:fs'
import { z } from 'zod'
import { resolveInsideProject } from '../../workspace/paths.js'
import { assertUnchanged, fileVersion, readStable, sha256Of, staleFile } from '../file-ledger.js'
import { defineTool, ToolError } from '../types.js'
import type { Tool } from '../types.js'
import {
  assessFileChange,
  countLines,
  looksBinary,
  pathApprovalKey,
  projectRelative,
  SNIFF_BYTES,
  handleStamp,
  openRegularFile,
  writeFileInProject,
} from './file-helpers.js'
import type { FileToolOptions } from './file-helpers.js'

/** Edit reads the whole file into memory; bigger files are for write or a shell tool. */
const MAX_EDIT_BYTES = 10 * 1024 * 1024
/** Lines of context around each changed region in the result. */
const SNIPPET_CONTEXT = 2
const MAX_SNIPPET_REGIONS = 3
const MAX_SNIPPET_LINES = 20
const MAX_SNIPPET_LINE_CHARS = 500
/** Line numbers named in an error; more would only cost context. */
const MAX_LISTED_LINES = 20

const EditArgs = z.object({
  path: z.string().min(1).describe('The file to change, relative to the project folder'),
  oldText: z
    .string()
    .min(1, 'oldText must not be empty; to create a file or replace all of it, use write')
    .describe(
      'The exact text to replace, character for character, including indentation and line breaks',
    ),
  newText: z.string().describe('The text to put in its place (empty to delete it)'),
  replaceAll: z
    .boolean()
    .optional()
    .describe('Replace every occurrence of oldText; default false, which needs exactly one'),
})

/** One way of matching the model's text against the file (as given, or with its line ends). */
interface Matches {
  readonly needle: string
  readonly replacement: string
  readonly starts: number[]
}

/**
 * Exact string replacement in one file, atomically, after the workspace has saved the old content.
 * With a ledger, a file the agent saw must be unchanged since, and the file must still be what
 * was read when it is replaced (checked right before the rename). A file never read may be edited:
 * its oldText has to match what is on disk anyway.
 */
export function editTool(opts: FileToolOptions = {}): Tool {
  return defineTool({
    name: 'edit',
    brief: 'Replace oldText (copied exactly from a read, unique in the file) with newText.',
    description: [
      'Replace exact text in an existing file: oldText must occur exactly once (or set replaceAll),',
      'matched character for character, including whitespace; copy it from a fresh read (without the line numbers).',
      'Include enough surrounding lines to make oldText unique. Windows line ends (CRLF) in the file are kept.',
      'To create a file or rewrite all of it use write. Files over 10 MB and binary files are refused.',
    ].join(' '),
    schema: EditArgs,
    kind: 'edit',
    describe: ({ path, replaceAll }) => `edit ${path}${replaceAll ? ' (every occurrence)' : ''}`,
    approvalKey: ({ path }) => pathApprovalKey(path),
    assess: ({ path }, { projectDir }) => assessFileChange(projectDir, path, opts.protectedPaths),
    async run({ path, oldText, newText, replaceAll = false }, ctx) {
      ctx.signal.throwIfAborted()
      const file = resolveInsideProject(ctx.projectDir, path)
      const shown = projectRelative(ctx.projectDir, file)
      if (oldText === newText) {
        throw new ToolError(
          'EDIT_NO_CHANGE',
          'oldText and newText are the same, so the edit would change nothing. Put the changed text in newText.',
        )
      }
      // Opened once and verified inside the project; the bytes edited come through this handle.
      const info = await openRegularFile(ctx.projectDir, file, shown)
      const { handle } = info
      const read = await readStable(
        () => handleStamp(handle),
        async () => {
          if (info.size <= MAX_EDIT_BYTES) return handle.readFile({ signal: ctx.signal })
          throw new ToolError(
            'FILE_TOO_LARGE',
            `${shown} is ${info.size} bytes; edit works on files up to ${MAX_EDIT_BYTES / 1024 / 1024} MB.`,
          )
        },
        info.stamp,
      ).finally(() => handle.close())
      const { files } = ctx
      const bytes = read.value
      const readHash = sha256Of(bytes)
      // Before matching: on a changed file, "read it again" helps more than "oldText not found".
      if (files) assertUnchanged(files.seen(file), readHash, shown, 'edit')
      if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
        throw new ToolError(
          'BINARY_FILE',
          `${shown} is a binary file (${info.size} bytes); edit changes text files only.`,
        )
      }
      const text = bytes.toString('utf8')
      // Decoding replaces invalid bytes; writing that back would damage the file.
      if (!Buffer.from(text, 'utf8').equals(bytes)) {
        throw new ToolError('NOT_UTF8', `${shown} is not valid UTF-8 text; edit would damage it.`)
      }
      const { needle, replacement, starts } = findMatches(text, oldText, newText)
      if (starts.length === 0) throw noMatch(text, oldText, shown)
      if (starts.length > 1 && !replaceAll) {
        const lines = linesOf(text, starts)
        throw new ToolError(
          'EDIT_AMBIGUOUS',
          `oldText occurs ${starts.length} times in ${shown}, on lines ${listLines(lines)}. Include more surrounding lines in oldText so it matches only once, or set replaceAll to true to replace every occurrence.`,
        )
      }
      const pieces: string[] = []
      const newStarts: number[] = []
      let from = 0
      let length = 0
      for (const start of starts) {
        const kept = text.slice(from, start)
        pieces.push(kept, replacement)
        newStarts.push(length + kept.length)
        length += kept.length + replacement.length
        from = start + needle.length
      }
      pieces.push(text.slice(from))
      const updated = pieces.join('')
      ctx.signal.throwIfAborted()
      // Intent before effect: the workspace snapshots the old content before the file changes.
      ctx.beforeWrite(file)
      // The file must still be the one read: a change landing after this `stat` is the race left.
      const recheck =
        files &&
        (async () => {
          const previous = { sha256: readHash, stamp: read.stamp }
          const now = await fileVersion(realpathSync(ctx.projectDir), file, ctx.signal, previous)
          if (now.sha256 !== readHash) throw staleFile(shown)
        })
      const mode = info.mode & 0o7777
      await writeFileInProject(ctx.projectDir, file, shown, updated, {
        mode,
        beforeRename: recheck,
        create: false,
      })
      const sha256 = sha256Of(updated)
      files?.saw(file, sha256)
      const count = starts.length
      return {
        output: `Replaced ${count} occurrence${count === 1 ? '' : 's'} in ${shown}.\n\n${snippet(updated, newStarts, replacement.length)}`,
        // Where the first replacement starts (1-based), so a diff of oldText/newText shows real lines.
        metadata: {
          path: shown,
          replacements: count,
          sha256,
          startLine: linesOf(text, starts)[0] ?? 1,
        },
      }
    },
  })
}

/** Every start of `needle` in `text`, left to right, without overlaps. */
function occurrences(text: string, needle: string): number[] {
  const starts: number[] = []
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    starts.push(at)
  }
  return starts
}

/**
 * Models write `\n` whatever the file uses, so in a CRLF file the text is matched (and the
 * replacement written) with CRLF; the text as given is tried when that finds nothing.
 */
function findMatches(text: string, oldText: string, newText: string): Matches {
  const crlf = text.split('\r\n').length - 1
  const lf = text.split('\n').length - 1 - crlf
  const usesCrlf = crlf > 0 && crlf >= lf
  const toCrlf = (s: string) => s.replace(/\r?\n/g, '\r\n')
  const toLf = (s: string) => s.replace(/\r\n/g, '\n')
  const adapted = usesCrlf
    ? { needle: toCrlf(oldText), replacement: toCrlf(newText) }
    : { needle: toLf(oldText), replacement: toLf(newText) }
  if (adapted.needle !== oldText) {
    const starts = occurrences(text, adapted.needle)
    if (starts.length > 0) return { ...adapted, starts }
  }
  // A single-line oldText still gets the file's line ends in a multi-line newText.
  const replacement = oldText.includes('\n') ? newText : adapted.replacement
  return { needle: oldText, replacement, starts: occurrences(text, oldText) }
}

/** The 1-based lines of sorted character indexes, in one pass. */
function linesOf(text: string, indexes: readonly number[]): number[] {
  const lines: number[] = []
  let line = 1
  let at = 0
  for (const index of indexes) {
    for (let nl = text.indexOf('\n', at); nl !== -1 && nl < index; nl = text.indexOf('\n', at)) {
      line++
      at = nl + 1
    }
    lines.push(line)
  }
  return lines
}

const listLines = (lines: readonly number[]): string => {
  const unique = [...new Set(lines)]
  const listed = unique.slice(0, MAX_LISTED_LINES).join(', ')
  return unique.length > MAX_LISTED_LINES
    ? `${listed} and ${unique.length - MAX_LISTED_LINES} more`
    : listed
}

/**
 * EDIT_NO_MATCH, pointing at text that matches once whitespace is ignored, since wrong indentation
 * or line breaks are the usual reason a copied oldText does not match.
 */
function noMatch(text: string, oldText: string, shown: string): ToolError {
  const loose = looseMatches(text, oldText)
  const first = loose[0]
  if (!first) {
    return new ToolError(
      'EDIT_NO_MATCH',
      `oldText was not found in ${shown}, not even ignoring whitespace. Read the file again and copy the exact text (without the line numbers); it must match character for character.`,
    )
  }
  const where =
    loose.length === 1
      ? `starts on line ${first.start}`
      : `starts on lines ${listLines(loose.map((m) => m.start))}; the first one`
  return new ToolError(
    'EDIT_NO_MATCH',
    `oldText was not found in ${shown} exactly, but text that differs only in whitespace (indentation, spaces or line breaks) ${where}:\n${numbered(text.split('\n'), first.start, first.end)}\nCopy oldText exactly from there, with its whitespace, and try again.`,
  )
}

/** Where `oldText` occurs once every whitespace character is removed on both sides (line spans). */
function looseMatches(text: string, oldText: string): { start: number; end: number }[] {
  const needle = oldText.replace(/\s+/g, '')
  if (needle === '') return []
  const lineOfChar = new Uint32Array(text.length)
  const parts: string[] = []
  let size = 0
  text.split('\n').forEach((raw, index) => {
    const part = raw.replace(/\s+/g, '')
    lineOfChar.fill(index + 1, size, size + part.length)
    parts.push(part)
    size += part.length
  })
  return occurrences(parts.join(''), needle).map((at) => ({
    start: lineOfChar[at] ?? 1,
    end: lineOfChar[at + needle.length - 1] ?? 1,
  }))
}

/** Lines `from..to` (1-based, clamped, at most MAX_SNIPPET_LINES) numbered like read. */
function numbered(lines: readonly string[], from: number, to: number): string {
  const last = Math.min(to, from + MAX_SNIPPET_LINES - 1, lines.length)
  const out: string[] = []
  for (let line = Math.max(1, from); line <= last; line++) {
    let text = (lines[line - 1] ?? '').replace(/\r$/, '')
    if (text.length > MAX_SNIPPET_LINE_CHARS) text = `${text.slice(0, MAX_SNIPPET_LINE_CHARS)} […]`
    out.push(`${String(line).padStart(6)}\t${text}`)
  }
  return out.join('\n')
}

/** The changed regions of the new text with a little context, merged where they touch. */
function snippet(updated: string, starts: readonly number[], length: number): string {
  const total = countLines(updated)
  if (total === 0) return '(the file is now empty)'
  const lines = updated.split('\n')
  const firstLines = linesOf(updated, starts)
  const lastLines = linesOf(
    updated,
    starts.map((start) => start + Math.max(length - 1, 0)),
  )
  const regions: { from: number; to: number }[] = []
  let isClipped = false
  for (const [i, first] of firstLines.entries()) {
    const from = first - SNIPPET_CONTEXT
    const to = (lastLines[i] ?? first) + SNIPPET_CONTEXT
    const previous = regions.at(-1)
    if (previous && from <= previous.to + 1) previous.to = Math.max(previous.to, to)
    else if (regions.length < MAX_SNIPPET_REGIONS) regions.push({ from, to })
    else isClipped = true
  }
  const shown = regions
    .map((r) => numbered(lines, r.from, Math.min(r.to, total)))
    .join('\n   ...\n')
  return isClipped ? `${shown}\n   ... (further changes not shown)` : shown
}
