/**
 * What a parsed command line is made of, as the judge and the grants see it. Everything here is
 * plain data (no tree-sitter nodes), so a line can be parsed once and judged, matched against
 * grants and logged without the parser.
 */
import type { CallAssessment } from '../types.js'

/** One shell word after quote removal, as bash would pass it to the program. */
export interface Word {
  /**
   * The text after quote removal, with `~`, `$HOME`, `${HOME}` and `$PWD` resolved; any other
   * expansion or substitution is kept as written (`$X`, `$(date)`).
   */
  readonly value: string
  /** False when the value holds an expansion or substitution only known when the line runs. */
  readonly literal: boolean
  /** True when an unquoted `*`, `?` or `[…]` makes bash match file names with it. */
  readonly glob: boolean
  /**
   * The known start of the value, before its first unknown part (`/etc/` for `/etc/$X`); the
   * whole value when literal. A target whose known start already leaves the project is outside
   * whatever the rest turns out to be.
   */
  readonly prefix: string
  /** Set on `{}` in `find … -exec`: the paths `find` finds, judged with the `find` itself. */
  readonly found?: true
}

/** `NAME=value` before a command (`FOO=1 make`), through `env`, or on its own. */
export interface Assignment {
  readonly name: string
  readonly value: Word
}

export interface Redirect {
  /** As written: `>`, `>>`, `&>`, `&>>`, `>|`, `<`, `>&`, `<&`, `>&-`, `<<`, `<<-`, `<<<`. */
  readonly op: string
  /** The file, the fd a dup copies (`1` in `2>&1`), or the text of a here-document or -string. */
  readonly target?: Word
  /** The descriptor redirected when written (`2` in `2>/dev/null`). */
  readonly fd?: number
}

/** Possibly unknown (`undefined`): after `cd "$X"`, say. */
export type Folder = string | undefined

/** One program run, with everything the judge needs about where and how it runs. */
export interface SimpleCommand {
  /** The program and its arguments, after unwrapping `sudo`, `env`, `timeout` and the like. */
  readonly argv: readonly Word[]
  readonly assignments: readonly Assignment[]
  readonly redirects: readonly Redirect[]
  /**
   * The folder it runs in, after the earlier literal `cd`s of the same list succeeded;
   * `undefined` when it cannot be known (`cd "$X"`).
   */
  readonly cwd: Folder
  /**
   * Other folders it may run in, when an earlier `cd` may have failed without stopping the line
   * (`cd build; rm -rf *` runs in the project folder when `build` is missing).
   */
  readonly otherCwds: readonly Folder[]
  /** 0 at the top level; one more inside `$(…)`, backticks, `<(…)`, `bash -c` bodies, `eval`. */
  readonly depth: number
  /** The command as written (with its wrappers), for messages. */
  readonly text: string
  /** The programs unwrapped around `argv`, outermost first (`['sudo', 'nice']`). */
  readonly wrappers: readonly string[]
  /** The programs of the earlier stages of its pipeline, whose output it reads. */
  readonly pipedFrom: readonly string[]
  /**
   * Text fed to its standard input by a here-document, a here-string or an `echo`/`cat` before
   * it in a pipeline; any expansion in it is kept as written (`$X`).
   */
  readonly input?: string
  /** Runs alongside others: in the background (`&`) or as one stage of a pipeline. */
  readonly concurrent: boolean
  /** The innermost function definition whose body holds it. */
  readonly inFunction?: string
}

export type ShellLine =
  | { readonly ok: true; readonly commands: readonly SimpleCommand[] }
  | { readonly ok: false; readonly reason: string }

export type Level = CallAssessment['level']

/** The judgement of one simple command. `reasons` say why it is not plain `normal`. */
export interface JudgedPart {
  readonly text: string
  readonly level: Level
  readonly reasons: readonly string[]
  readonly grantable: boolean
}

export interface Judgement extends CallAssessment {
  readonly grantable: boolean
  readonly parts: readonly JudgedPart[]
}

export interface JudgeContext {
  /** The project folder, already resolved with realpath. */
  readonly projectDir: string
  readonly home: string
  /** Why writing this absolute path inside the project needs the user's own approval, if it does. */
  readonly protectedReason?: (absolutePath: string) => string | undefined
  /**
   * Where a path inside the project really leads when a symlink already on disk takes it out of
   * the project (`docs -> ~`); undefined when it stays inside or nothing of it exists. Given only
   * where no sandbox holds the command: the containment proof then checks what it cannot see.
   */
  readonly leadsOutside?: (absolutePath: string) => string | undefined
  /**
   * Why reading this absolute path would read the user's credentials (it is one, or a folder
   * holding the home folder's credential stores), if it would. Given, like `leadsOutside`, only
   * where no sandbox hides them: the containment proof then does not count such a read as safe.
   */
  readonly credentialAt?: (absolutePath: string) => string | undefined
}
