import type { CliCommand } from './command.js'
import { compact } from './compact.js'
import { discover } from './discover.js'
import { exportCommand } from './export.js'
import { fork } from './fork.js'
import { importCommand } from './import.js'
import { info } from './info.js'
import { inspect } from './inspect.js'
import { mcp } from './mcp.js'
import { probe } from './probe.js'
import { restore } from './restore.js'
import { run } from './run.js'
import { search } from './search.js'
import { serve } from './serve.js'
import { sessions } from './sessions.js'
import { show } from './show.js'
import { uncompact } from './uncompact.js'

/** The `bridle` commands, in the order `bridle --help` lists them. A new command goes here. */
export const COMMANDS: readonly CliCommand[] = [
  run,
  compact,
  uncompact,
  discover,
  probe,
  show,
  fork,
  restore,
  info,
  serve,
  exportCommand,
  importCommand,
  sessions,
  inspect,
  search,
  mcp,
]
