import type { Tool } from '../types.js'
import { bashTool } from './bash.js'
import type { BashToolOptions } from './bash.js'
import { editTool } from './edit.js'
import type { FileToolOptions } from './file-helpers.js'
import { globTool } from './glob.js'
import { grepTool } from './grep.js'
import type { GrepToolOptions } from './grep.js'
import { listTool } from './list.js'
import { presentTool } from './present.js'
import { readTool } from './read.js'
import { writeTool } from './write.js'

export interface BuiltinToolOptions {
  readonly bash?: BashToolOptions
  readonly grep?: GrepToolOptions
  /** For `write` and `edit`: the user's own protected paths. */
  readonly files?: FileToolOptions
}

/** The tools every session starts with (docs/ARCHITECTURE.md 6.2), in the order the model is shown them. */
export function builtinTools(opts: BuiltinToolOptions = {}): Tool[] {
  return [
    readTool(),
    listTool(),
    globTool(),
    grepTool(opts.grep),
    writeTool(opts.files),
    editTool(opts.files),
    bashTool(opts.bash),
    presentTool(),
  ]
}
