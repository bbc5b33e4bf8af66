/**
 * `bridle run` in the home folder, `/`, or any folder that holds the home folder: the agent would
 * see everything the user has. Credential stores and shell start-up files are guarded there
 * (`core/tools/home-files.ts`), but everything else counts as project data, which is rarely what
 * the user meant. So such a run warns first; on a terminal it asks, and without one (piped, CI)
 * it does not start unless `--allow-home` says the user meant it.
 */
import { createInterface } from 'node:readline/promises'
import { containsHome, homeProjectWarning } from '../core/tools/home-files.js'
import { UsageError } from './commands/command.js'

export interface HomeProjectCheck {
  /** `--allow-home`: the user meant this folder; warn and go on. */
  readonly allowed: boolean
  /** The terminal to ask on, or undefined when there is none. */
  readonly input: NodeJS.ReadableStream | undefined
  readonly err: (text: string) => void
}

/**
 * Returns when `projectDir` is an ordinary project, or when the user agreed to work in a folder
 * that holds their home folder (`--allow-home`, or "y" on the terminal); else throws a
 * `UsageError` saying how to go on. Writes the warning to `err` in every case it applies.
 */
export async function checkHomeProject(
  projectDir: string,
  { allowed, input, err }: HomeProjectCheck,
): Promise<void> {
  if (!containsHome(projectDir)) return
  err(`bridle: warning: ${homeProjectWarning(projectDir)}\n`)
  if (allowed) return
  if (input !== undefined) {
    const prompt = createInterface({ input, output: process.stderr, terminal: false })
    try {
      const answer = await prompt.question('Work in this folder anyway? [y/N] ')
      if (/^\s*y(es)?\s*$/i.test(answer)) return
    } finally {
      prompt.close()
    }
    throw new UsageError(`not started in ${projectDir}; run bridle in a project's own folder`)
  }
  throw new UsageError(
    `not started in ${projectDir}, which holds your home folder: run bridle in a project's own folder, or pass --allow-home to work here anyway`,
  )
}
