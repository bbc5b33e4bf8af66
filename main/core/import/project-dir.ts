/**
 * The project folder of an imported session. An imported file is untrusted: the folder it
 * recorded (`/etc`, `~`, `../../..`) must never become a session's folder, where the agent reads,
 * writes and runs commands, without the user saying so. So: `--project DIR` when given; else
 * the recorded folder when it exists here and the user confirms it; else the current folder,
 * with a sentence saying so when a recorded folder was passed over.
 */
import { realpathSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'

export interface ProjectChoiceOptions {
  /** `--project DIR`, resolved against `cwd`. */
  readonly flag?: string
  /** The folder the imported file recorded. */
  readonly recorded?: string
  readonly cwd: string
  /**
   * Asks the user whether the recorded folder (absolute, existing) may be the project folder.
   * Absent when nobody can be asked (no terminal): the recorded folder is then never used.
   */
  readonly confirm?: (dir: string) => Promise<boolean>
}

export interface ProjectChoice {
  readonly dir: string
  readonly how: 'flag' | 'recorded' | 'current'
  /** Why the recorded folder was not used, for the user (stderr). */
  readonly notice?: string
}

/** Throws an Error naming the folder when `--project` is not an existing folder. */
export async function chooseProjectDir(opts: ProjectChoiceOptions): Promise<ProjectChoice> {
  if (opts.flag !== undefined) {
    const dir = resolve(opts.cwd, opts.flag)
    if (!isFolder(dir)) throw new Error(`--project ${opts.flag}: there is no folder ${dir}`)
    return { dir: realpathSync(dir), how: 'flag' }
  }
  const current = realpathSync(opts.cwd)
  const recorded = opts.recorded
  if (recorded === undefined || recorded === '') return { dir: current, how: 'current' }
  const usable = isAbsolute(recorded) && isFolder(recorded)
  if (usable && realpathSync(recorded) === current) return { dir: current, how: 'current' }
  if (usable && opts.confirm && (await opts.confirm(recorded)))
    return { dir: realpathSync(recorded), how: 'recorded' }
  const why = !usable
    ? `the folder it recorded, ${recorded}, is not a folder here`
    : opts.confirm
      ? `you did not choose the folder it recorded, ${recorded}`
      : `the folder it recorded, ${recorded}, is used only when you confirm it on a terminal`
  return {
    dir: current,
    how: 'current',
    notice: `the session's project folder is the current folder ${current}: ${why} (--project DIR chooses one)`,
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    // Missing or unreadable: not a folder the session can use.
    return false
  }
}
