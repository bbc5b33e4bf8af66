import type { BootOptions, Host } from '../../core/host/index.js'
import type { Store } from '../../core/store/index.js'
import type { OptionValues } from './options.js'

/**
 * What a `bridle` command is: an entry of the table in `index.ts` (what the help shows, in its
 * order) and a module of this folder that does the work, exporting `run` (`CommandModule`).
 */
export interface CliCommand {
  /** The word that selects it: `bridle <name>`. */
  readonly name: string
  /** Other words that select it, named in its help line. */
  readonly aliases?: readonly string[]
  /** What follows the name in the help, e.g. `<sessionId> --at SEQ`; empty for none. */
  readonly usage: string
  /** Its description in the help, wrapped there; a newline starts a new line. */
  readonly summary: string
  /** The options it reads, as the help lists them under it. */
  readonly options?: readonly OptionHelp[]
  /** Imports the command's module; called only to run it, so the help loads no command's code. */
  load(): Promise<CommandModule>
}

/** A command's module: `run` does the work and gives the exit code. */
export interface CommandModule {
  /** Throws `UsageError` for a bad command line. */
  readonly run: (args: CommandArgs, context: CommandContext) => number | Promise<number>
}

/** One option in the help: `--port N` and what it does (wrapped like a summary). */
export interface OptionHelp {
  readonly flag: string
  readonly text: string
}

/** The command line as a command sees it. */
export interface CommandArgs {
  /** The words after the command's name. */
  readonly positionals: readonly string[]
  /** The options, parsed; every command accepts the same set and reads its own. */
  readonly values: OptionValues
}

/** What `index.ts` shares with every command: the data folder and the ways to open it. */
export interface CommandContext {
  /** The data folder: `--home`, else `$BRIDLE_HOME`, else `~/.bridle`; not created here. */
  readonly home: string
  /** This CLI's version (package.json). */
  readonly version: string
  /** Writes one line to stdout. */
  readonly print: (line: string) => void
  /** Boots the core on the data folder with this CLI's version (serve adds its model override). */
  readonly bootHost: (extra?: Pick<BootOptions, 'modelOverride'>) => Promise<Host>
  /** Runs `body` on the data folder's database for a reading command; never creates one. */
  readonly withExistingStore: <T>(body: (store: Store) => T) => T
  /** Runs `body` on the database at `dbPath`, closing it after. */
  readonly withStore: <T>(dbPath: string, body: (store: Store) => T) => T
  /** `withStore` for work that goes on after the call returns. */
  readonly withStoreAsync: <T>(dbPath: string, body: (store: Store) => Promise<T>) => Promise<T>
}

/** A command line the CLI cannot use: exit code 2 and a pointer to the help. */
export class UsageError extends Error {}
