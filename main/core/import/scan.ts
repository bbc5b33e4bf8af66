/**
 * `bridle import --scan`: the session files of other tools in their default folders under the
 * home folder, newest first, each with what its first lines say (id, folder, first prompt).
 * Only the start of each file is read, so a scan of many long sessions stays quick, and only a
 * regular file is opened (without blocking: a pipe or device under the folder is passed over).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { readHead } from './bounded-read.js'
import { FORMATS, parseRecords } from './formats/index.js'
import type { ImportSource } from './transcript.js'

/** How much of a file a scan reads: enough for a header and the first prompt. */
const DEFAULT_SCAN_HEAD_BYTES = 256 * 1024
/** How deep below a tool's folder session files are looked for (Codex: YYYY/MM/DD/file). */
const MAX_SCAN_DEPTH = 4
const TITLE_CHARS = 80

export interface ScannedSession {
  readonly path: string
  readonly source: ImportSource
  readonly label: string
  readonly modifiedAt: number
  readonly bytes: number
  readonly sourceSessionId?: string
  readonly projectDir?: string
  readonly title?: string
}

export function scanSessions(home: string): ScannedSession[] {
  const found: ScannedSession[] = []
  for (const format of FORMATS) {
    const root = join(home, ...format.folder)
    for (const relative of filesUnder(root, '', 0)) {
      if (!format.isSessionFile(relative)) continue
      const path = join(root, ...relative.split('/'))
      const read = readHead(path, DEFAULT_SCAN_HEAD_BYTES)
      if (!read) continue // removed while scanning, unreadable, or not a regular file
      const { stat } = read
      const head = parseRecords(read.text).slice(0, 50)
      if (!format.matches(head)) continue
      const summary = format.describe(head)
      const title = summary.title?.replace(/\s+/g, ' ').trim()
      found.push({
        path,
        source: format.source,
        label: format.label,
        modifiedAt: Math.floor(stat.mtimeMs),
        bytes: stat.size,
        ...(summary.sourceSessionId === undefined
          ? {}
          : { sourceSessionId: summary.sourceSessionId }),
        ...(summary.projectDir === undefined ? {} : { projectDir: summary.projectDir }),
        ...(title
          ? { title: title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title }
          : {}),
      })
    }
  }
  return found.sort((a, b) => b.modifiedAt - a.modifiedAt || a.path.localeCompare(b.path))
}

function filesUnder(root: string, prefix: string, depth: number): string[] {
  let entries
  try {
    entries = readdirSync(join(root, prefix), { withFileTypes: true })
  } catch {
    return [] // the tool was never used here, or the folder is unreadable
  }
  const files: string[] = []
  for (const entry of entries) {
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`
    if (entry.isFile()) files.push(relative)
    else if (entry.isDirectory() && depth < MAX_SCAN_DEPTH)
      files.push(...filesUnder(root, relative, depth + 1))
  }
  return files
}
