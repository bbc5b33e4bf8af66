import { constants } from 'node:fs'
import { open, realpath } from 'node:fs/promises'
import { join, sep } from 'node:path'
import { SECTION_ORDER } from './sections.js'
import type { SectionContribution } from './sections.js'

export const PROJECT_INSTRUCTIONS_FILE = 'AGENTS.md'
/** More than this is cut: instructions are read on every request, so they cost every request. */
export const DEFAULT_INSTRUCTIONS_CAP_BYTES = 32 * 1024

/** What reading AGENTS.md found. Only `found` and `truncated` put its text in the prompt. */
export type ProjectInstructions =
  | { readonly status: 'absent' }
  | { readonly status: 'found'; readonly text: string; readonly bytes: number }
  | { readonly status: 'truncated'; readonly text: string; readonly bytes: number }
  /** A symlink that leaves the project, or not a regular file: never read (docs/ARCHITECTURE.md 4). */
  | { readonly status: 'refused'; readonly why: string }
  | { readonly status: 'unreadable'; readonly why: string }

/**
 * Reads AGENTS.md from the project folder, once, when a session starts or is opened: the prompt
 * must stay byte-identical for every request, so an edit mid-session takes effect in the next
 * session (or when the host rebuilds the sections). The file is read only if its real path is
 * inside the project's real path; a symlink out of the project is refused, not followed. Never
 * throws: what went wrong is part of the result.
 */
export async function readProjectInstructions(
  projectDir: string,
  capBytes = DEFAULT_INSTRUCTIONS_CAP_BYTES,
): Promise<ProjectInstructions> {
  let root: string
  let real: string
  try {
    root = await realpath(projectDir)
    real = await realpath(join(root, PROJECT_INSTRUCTIONS_FILE))
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return { status: 'absent' }
    return { status: 'unreadable', why: messageOf(error) }
  }
  if (!real.startsWith(root.endsWith(sep) ? root : root + sep))
    return { status: 'refused', why: 'it is a link to a file outside the project folder' }
  try {
    // Non-blocking, so a FIFO named AGENTS.md cannot hang the session's start; no following of
    // a link that was swapped in after realpath.
    const handle = await open(
      real,
      constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
    )
    try {
      const info = await handle.stat()
      if (!info.isFile()) return { status: 'refused', why: 'it is not a regular file' }
      const buffer = Buffer.alloc(Math.min(info.size, capBytes))
      let filled = 0
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled)
        if (bytesRead === 0) break
        filled += bytesRead
      }
      const bytes = buffer.subarray(0, filled)
      if (info.size <= capBytes)
        return { status: 'found', text: bytes.toString('utf8'), bytes: info.size }
      return {
        status: 'truncated',
        text: bytes.subarray(0, utf8Boundary(bytes)).toString('utf8'),
        bytes: info.size,
      }
    } finally {
      await handle.close()
    }
  } catch (error) {
    if (codeOf(error) === 'ELOOP')
      return { status: 'refused', why: 'it changed into a link while it was being read' }
    return { status: 'unreadable', why: messageOf(error) }
  }
}

/** The section for what was read; none when there is no AGENTS.md. */
export function projectInstructionsSection(
  found: ProjectInstructions,
  capBytes = DEFAULT_INSTRUCTIONS_CAP_BYTES,
): SectionContribution | undefined {
  const base = { name: 'project', order: SECTION_ORDER.project }
  const intro = `Project instructions, from ${PROJECT_INSTRUCTIONS_FILE} in the project folder (the user’s conventions for this project; follow them unless the user says otherwise):`
  switch (found.status) {
    case 'absent':
      return undefined
    case 'found':
      return { ...base, text: `${intro}\n\n${found.text.trimEnd()}` }
    case 'truncated':
      return {
        ...base,
        text: `${intro}\n\n${found.text.trimEnd()}\n\n[${PROJECT_INSTRUCTIONS_FILE} is ${found.bytes} bytes; only the first ${Math.round(capBytes / 1024)} KB are shown here. Read the file for the rest.]`,
      }
    case 'refused':
    case 'unreadable':
      return {
        ...base,
        text: `${PROJECT_INSTRUCTIONS_FILE} in the project folder was not read: ${found.why}. There are no project instructions for this session.`,
      }
  }
}

/** The largest length <= bytes.length that does not cut a UTF-8 character in two. */
function utf8Boundary(bytes: Buffer): number {
  let end = bytes.length
  // Step back over continuation bytes to the lead byte of the last character...
  let lead = end - 1
  while (lead > 0 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--
  const first = bytes[lead] ?? 0
  const size = first < 0x80 ? 1 : first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1
  // ...and drop that character if it does not fit whole.
  if (lead + size > end) end = lead
  return end
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
