/**
 * What the "Import…" dialog shows and offers, without React: the scanned sessions grouped by
 * tool, and the project folders a chosen file may go into. The folder a file recorded is
 * untrusted (issue 20): it is offered only when it exists here, says it comes from the file, and
 * is never the one chosen unasked.
 */
import type { ResultOf, ScannedImport } from '../../../../protocol/contract'

export interface ToolGroup {
  readonly tool: ScannedImport['tool']
  readonly label: string
  /** Where the tool keeps its sessions, `~/...`. */
  readonly folder: string
  readonly sessions: readonly ScannedImport[]
}

/** The tools in the scan's order, each with its sessions (newest first); tools with none left out. */
export function groupByTool(scan: ResultOf<'import/scan'>): ToolGroup[] {
  return scan.folders
    .map((folder) => ({
      ...folder,
      sessions: scan.sessions.filter((session) => session.tool === folder.tool),
    }))
    .filter((group) => group.sessions.length > 0)
}

export type FolderChoice = 'recorded' | 'open' | 'other'

export interface FolderOptions {
  /** The recorded folder, offered: it exists here. */
  readonly recorded?: string
  /** The recorded folder, not offered: it is not a folder here. */
  readonly recordedMissing?: string
  /** The project open in the sidebar. */
  readonly open?: string
  /** Chosen at first: the open project, else a path to type; never the recorded folder. */
  readonly initial: Exclude<FolderChoice, 'recorded'>
}

export function folderOptions(
  inspected: ResultOf<'import/inspect'>,
  openProject: string | undefined,
): FolderOptions {
  const recorded = inspected.recordedProjectDir
  return {
    ...(recorded === undefined
      ? {}
      : inspected.recordedProjectDirExists
        ? { recorded }
        : { recordedMissing: recorded }),
    ...(openProject === undefined ? {} : { open: openProject }),
    initial: openProject === undefined ? 'other' : 'open',
  }
}

/** The folder `import/run` gets for a choice, or undefined while there is none to send. */
export function chosenFolder(
  choice: FolderChoice,
  options: FolderOptions,
  typed: string,
): string | undefined {
  if (choice === 'recorded') return options.recorded
  if (choice === 'open') return options.open
  const trimmed = typed.trim()
  return trimmed === '' ? undefined : trimmed
}

/** A size for people: bytes under a kilobyte, then KB and MB with one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
