/**
 * What a local (stdio) server is started with: its folder, its environment and its command line.
 *
 * The folder. A project's server (`.mcp.json`, started only once the user trusts it) runs in the
 * project, as its authors meant. The user's own server (config.json) runs in the user's home
 * folder unless its entry says `cwd` (absolute, or relative to the home folder), never in the
 * project by default: `python3 -m mod`, `node mod.js` or `npx <pkg>` there would run the
 * project's `mod.py`, `mod.js` or committed `node_modules` with the user's rights and tokens.
 * Every server gets the project as an MCP root (`roots/list`) instead.
 *
 * The search path. No server's PATH holds a relative folder (`.`, an empty entry,
 * `node_modules/.bin`) or a folder inside the project, so a bare command name never resolves to
 * a program the project brought.
 *
 * The environment. The one commands get (`toolEnvironment`: an allowlist; never a variable whose
 * name looks like a credential, nor one whose value holds the value of such a variable), plus
 * the entry's `env`. So a provider key (`OPENAI_API_KEY`, `DEEPSEEK_API_KEY`, any `*_KEY`,
 * `*_TOKEN`…) reaches a server only when its entry's `env` names it (`"X": "${OPENAI_API_KEY}"`).
 * A credential-looking variable in `command` or `args` is refused: a command line can be read
 * by every process on the computer (`ps`), and it would not be the entry's `env` naming it.
 *
 * Contract: pure apart from reading the folders' real paths; throws `McpLaunchError` or
 * `MissingVariableError` with a sentence naming the field.
 */
import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, isAbsolute, resolve } from 'node:path'
import type { McpScope, McpStdioServer } from '../../../protocol/mcp.js'
import { looksLikeCredential, toolEnvironment } from '../tools/builtin/env.js'
import { expandRecord, expandVariables, serverCwd, variablesIn } from './config.js'
import { isWithin } from '../workspace/paths.js'

export interface StdioLaunch {
  readonly command: string
  readonly args: readonly string[]
  readonly env: Record<string, string>
  readonly cwd: string
}

export interface StdioLaunchOptions {
  readonly name: string
  readonly scope: McpScope
  readonly config: McpStdioServer
  readonly projectDir: string
  /** The harness's environment: `${VAR}` values, PATH, HOME… come from it. */
  readonly env: NodeJS.ProcessEnv
}

/** A server's entry asks for something that is not allowed; the message says what and why. */
export class McpLaunchError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'McpLaunchError'
  }
}

export function stdioLaunch(opts: StdioLaunchOptions): StdioLaunch {
  const { name, config, env, projectDir } = opts
  const commandLine = (value: string, where: string) => {
    const credential = variablesIn(value).find(looksLikeCredential)
    if (credential !== undefined)
      throw new McpLaunchError(
        `${where} names ${credential}, which holds a credential: give it in the server's "env" (e.g. "${credential}": "\${${credential}}"), not on its command line, which every program on this computer can read`,
      )
    return expandVariables(value, env, where)
  }
  const secrets = Object.entries(env).flatMap(([key, value]) =>
    value !== undefined && looksLikeCredential(key) ? [value] : [],
  )
  const inherited = toolEnvironment(env, { secrets })
  inherited['PATH'] = searchPath(inherited['PATH'], projectDir)
  return {
    command: commandLine(config.command, `${name}.command`),
    args: (config.args ?? []).map((arg, i) => commandLine(arg, `${name}.args[${i}]`)),
    env: { ...inherited, ...expandRecord(config.env, env, `${name}.env`) },
    cwd: opts.scope === 'project' ? serverCwd(config, projectDir) : userServerCwd(config, env),
  }
}

/** The folder a user's server runs in: its `cwd` (relative to the home folder), else the home. */
export function userServerCwd(config: McpStdioServer, env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] || homedir()
  return config.cwd === undefined ? home : resolve(home, config.cwd)
}

/** `path` without relative entries and without folders inside the project (symlinks followed). */
export function searchPath(path: string | undefined, projectDir: string): string {
  const project = [projectDir, realOf(projectDir)]
  const kept = (path ?? '')
    .split(delimiter)
    .filter(
      (entry) =>
        isAbsolute(entry) &&
        !project.some((dir) => isWithin(dir, entry) || isWithin(dir, realOf(entry))),
    )
  // Nothing kept: the fallback commands get, so plain commands still resolve.
  return kept.length > 0 ? [...new Set(kept)].join(delimiter) : (toolEnvironment({})['PATH'] ?? '')
}

function realOf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
