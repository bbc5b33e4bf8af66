/**
 * Where a bash command runs: in the bubblewrap sandbox when the setting and the machine allow
 * (`../sandbox/`), or directly with the user's rights. `required` refuses to run a command
 * without a sandbox; `off` runs every command directly (the session is told once).
 */
import { realpathSync } from 'node:fs'
import { relative } from 'node:path'
import { probeSandbox, reprobeSandbox } from '../sandbox/probe.js'
import type { SandboxStatus } from '../sandbox/probe.js'
import { sandboxCommand } from '../sandbox/bwrap.js'
import { repairHeads } from '../sandbox/git-dirs.js'
import { NO_LOCKS, lockPlan } from '../sandbox/locks.js'
import { heldStandIns, holdStandIns, releaseStandIns, writeStandIns } from '../sandbox/stand-ins.js'
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
  /** Where a working probe is remembered between runs (`ProbeOptions.cacheFile`); none: probe. */
  readonly probeCache?: string
  /** The user's protected paths (config.json `protectedPaths`), locked like the built-in ones. */
  readonly protectedPaths?: readonly string[]
}

export interface CommandLaunch {
  readonly file: string
  readonly args: readonly string[]
  readonly sandboxed: boolean
  /** Variables the command gets on top of its environment. */
  readonly env: Readonly<Record<string, string>>
  /** Sandboxed on the word of a probe remembered from an earlier run (see `sandboxStartNote`). */
  readonly isCached?: boolean
  /**
   * To call once the command has ended (killed or not): removes the stand-ins the sandbox made
   * for missing protected paths, and puts back a git HEAD the command left broken, returning
   * what it put back in words for the result (undefined: nothing). Safe to call more than once.
   */
  readonly release: () => string | undefined
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
  return probeSandbox(probeOptions(sandbox))
}

/**
 * Checks a remembered sandbox after a command that failed the way bwrap does when it cannot set
 * a sandbox up (exit code 1, output starting `bwrap:`): probes again for real, and when no
 * sandbox works any more says so in words for the tool result (later commands follow the new
 * answer: refused under `required`, unsandboxed under `auto`). Undefined when it still works:
 * the failure was the command's own.
 */
export async function sandboxStartNote(
  sandbox: BashSandbox | undefined,
  result: { readonly exitCode: number | null; readonly output: string },
): Promise<string | undefined> {
  if (!sandbox || result.exitCode !== 1 || !result.output.startsWith('bwrap:')) return undefined
  const status = await reprobeSandbox(probeOptions(sandbox))
  if (status.available) return undefined
  const then =
    sandbox.mode === 'required'
      ? 'commands are refused from now on (setting sandbox: required)'
      : 'commands run without a sandbox from now on: they can change anything your user account can'
  return `[the sandbox that worked in an earlier run did not start; tested again: ${status.why}. The command did not run; ${then}]`
}

function probeOptions(sandbox: BashSandbox) {
  return {
    ...(sandbox.bwrap === undefined ? {} : { bwrap: sandbox.bwrap }),
    ...(sandbox.probeCache === undefined ? {} : { cacheFile: sandbox.probeCache }),
  }
}

/**
 * How to start `command`: through bwrap when it works (network only if the grant allows it;
 * every protected path that runs on this machine locked, see `../sandbox/locks.ts`, unless the
 * user approved this very call although it touches them), or the shell itself. Throws
 * SANDBOX_UNAVAILABLE when the setting requires a sandbox and none works.
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
    release: () => undefined,
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
  return lockedLaunch(status, sandbox, call)
}

/**
 * The sandbox's launch with the project's protected paths locked (`lockPlan`): stand-ins written
 * or held for the missing ones, released by the launch's `release`.
 */
function lockedLaunch(
  status: SandboxStatus & { readonly available: true },
  sandbox: BashSandbox,
  call: Parameters<typeof commandLaunch>[1],
): CommandLaunch {
  const locks =
    call.grant?.protectedPaths === true
      ? NO_LOCKS
      : lockPlan(call.projectDir, sandbox.protectedPaths)
  const written = writeStandIns(locks.written)
  let spawned: ReturnType<typeof sandboxCommand>
  try {
    spawned = sandboxCommand({
      bwrap: status.bwrap,
      setpriv: status.setpriv,
      projectDir: call.projectDir,
      cwd: call.cwd,
      shell: call.shell,
      command: call.command,
      network: call.grant?.network === true,
      hide: sandbox.hide,
      // Written or not (one made meanwhile is not ours to remove), each is locked.
      readOnly: [...locks.readOnly, ...locks.written.map((w) => w.path)],
      absent: locks.absent,
      pinned: locks.pinned,
    })
  } catch (error) {
    releaseStandIns(written)
    throw error
  }
  const { file, args, standIns } = spawned
  const shared = heldStandIns([...locks.readOnly, ...locks.absent.map((a) => a.path)])
  holdStandIns([...shared, ...standIns])
  const made = [...standIns, ...shared, ...written]
  // The lock plan's paths are under the project's real path.
  const realProject = realpathSync(call.projectDir)
  let held = true
  return {
    file,
    args,
    sandboxed: true,
    env: SANDBOX_CACHES,
    release: () => {
      if (!held) return undefined
      held = false
      releaseStandIns(made)
      const repaired = repairHeads(locks.heads)
      if (repaired.length === 0) return undefined
      const names = repaired.map((path) => relative(realProject, path)).join(', ')
      return `The command left git's ${names} broken (git would then look for a repository elsewhere); Bridle put back what it held before.`
    },
    ...(status.isCached === true ? { isCached: true } : {}),
  }
}
