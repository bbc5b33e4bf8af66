/**
 * Where a bash command runs: in the bubblewrap sandbox when the setting and the machine allow
 * (`../sandbox/`), or directly with the user's rights. `required` refuses to run a command
 * without a sandbox; `off` runs every command directly (the session is told once).
 */
import { probeSandbox } from '../sandbox/probe.js'
import type { SandboxStatus } from '../sandbox/probe.js'
import { sandboxCommand } from '../sandbox/bwrap.js'
import { protectedPathsToMount } from '../protected-paths.js'
import { ToolError } from '../types.js'
import type { CallGrant } from '../types.js'

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

export interface BashSandbox {
  readonly mode: SandboxMode
  /** Absolute paths no command may see: credential stores, Bridle's own data folder. */
  readonly hide: readonly string[]
  /** The bwrap to use (a path, or a name on PATH); default `bwrap`. */
  readonly bwrap?: string
}

export interface CommandLaunch {
  readonly file: string
  readonly args: readonly string[]
  readonly sandboxed: boolean
  /** Variables the command gets on top of its environment. */
  readonly env: Readonly<Record<string, string>>
}

/**
 * Inside the sandbox the home folder is read-only: caches that live there by default go to the
 * private /tmp, so `npm install` or `pip install` into the project still work.
 */
const SANDBOX_CACHES: Readonly<Record<string, string>> = {
  XDG_CACHE_HOME: '/tmp/.cache',
  npm_config_cache: '/tmp/.npm',
  PIP_CACHE_DIR: '/tmp/.cache/pip',
}

/** Whether commands will be sandboxed under `sandbox`, and if not, why. */
export async function sandboxStatus(sandbox: BashSandbox | undefined): Promise<SandboxStatus> {
  if (!sandbox || sandbox.mode === 'off') {
    return { available: false, why: 'the sandbox is turned off (setting sandbox: off)' }
  }
  return probeSandbox(sandbox.bwrap === undefined ? {} : { bwrap: sandbox.bwrap })
}

/**
 * How to start `command`: through bwrap when it works (network only if the grant allows it;
 * `.git` hooks and config read-only unless the user approved this very call for them), or the
 * shell itself. Throws SANDBOX_UNAVAILABLE when the setting requires a sandbox and none works.
 */
export async function commandLaunch(
  sandbox: BashSandbox | undefined,
  call: {
    readonly projectDir: string
    readonly cwd: string
    readonly shell: string
    readonly command: string
    readonly grant: CallGrant | undefined
  },
): Promise<CommandLaunch> {
  const direct: CommandLaunch = {
    file: call.shell,
    args: ['-c', call.command],
    sandboxed: false,
    env: {},
  }
  if (!sandbox || sandbox.mode === 'off') return direct
  const status = await sandboxStatus(sandbox)
  if (!status.available) {
    if (sandbox.mode === 'required') {
      throw new ToolError(
        'SANDBOX_UNAVAILABLE',
        `The command did not run: commands must run in a sandbox (setting sandbox: required), and none can run here: ${status.why}.`,
      )
    }
    return direct
  }
  const { file, args } = sandboxCommand({
    bwrap: status.bwrap,
    setpriv: status.setpriv,
    projectDir: call.projectDir,
    cwd: call.cwd,
    shell: call.shell,
    command: call.command,
    network: call.grant?.network === true,
    hide: sandbox.hide,
    readOnly: call.grant?.protectedPaths === true ? [] : protectedPathsToMount(call.projectDir),
  })
  return { file, args, sandboxed: true, env: SANDBOX_CACHES }
}
