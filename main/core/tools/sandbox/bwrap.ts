/**
 * The bubblewrap command line for one shell command (see README.md for the policy and its
 * limits). The whole file system is read-only, the project folder is the one writable place
 * besides a private `/tmp`, credential stores are masked, and the command gets its own user,
 * PID, IPC, UTS, cgroup and (unless allowed) network namespaces with no capabilities.
 *
 * Mount order matters, because a later mount covers an earlier one:
 * 1. `/` read-only, a fresh `/dev`, `/proc` and `/tmp`;
 * 2. hidden paths outside the project, so a project inside a hidden folder stays visible;
 * 3. the project, read-write;
 * 4. the locked paths inside the project: each folder between them and the project pinned, the
 *    existing ones bound read-only, the missing ones given an empty read-only stand-in;
 * 5. hidden paths inside the project (a project that is the home folder keeps `~/.ssh` masked);
 * 6. the masks made read-only, once everything that must be mounted inside them is.
 */
import { accessSync, constants, lstatSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path'
import { standInSources } from './stand-ins.js'
import { isWithin } from '../../workspace/paths.js'

export { defaultHiddenPaths } from './hidden-paths.js'

export interface SandboxCommandOptions {
  /** Absolute path of `bwrap`, as `probeSandbox` reported it. */
  readonly bwrap: string
  /**
   * Absolute path of util-linux `setpriv`, as `probeSandbox` reported it: bwrap is then started
   * through `setpriv --pdeathsig KILL`, so it dies with its parent from its first instruction
   * on. bwrap's own `--die-with-parent` is armed only once it runs, and a parent that dies
   * before that never triggers it (bubblewrap issue #633): the sandbox would outlive the app.
   */
  readonly setpriv?: string | undefined
  /** The one folder the command may change. */
  readonly projectDir: string
  /** Where the command starts; normally the project or a folder inside it. */
  readonly cwd: string
  /** Run as `<shell> -c <command>`. */
  readonly shell: string
  readonly command: string
  /** Share the host's network; otherwise the command sees only its own loopback. */
  readonly network: boolean
  /** Absolute paths to mask: folders appear empty, files read as empty; missing ones are skipped. */
  readonly hide: readonly string[]
  /** Absolute paths inside the project to keep read-only; missing ones are skipped. */
  readonly readOnly: readonly string[]
  /**
   * Absolute paths inside the project the command must not create (`lockPlan`'s `absent`): each
   * still missing gets an empty read-only folder or file bound there. One that exists by now is
   * kept read-only instead.
   */
  readonly absent?: readonly { readonly path: string; readonly isFolder: boolean }[]
  /** Folders inside the project bound onto themselves: writable, but not removable or renamable. */
  readonly pinned?: readonly string[]
}

/**
 * What to pass to `spawn`: `spawn(file, args, { detached: true, env, ... })`. Detached, that is
 * in a session of its own, is required: it leaves the sandbox without a controlling terminal to
 * push keystrokes into (TIOCSTI), which bwrap's `--new-session` would otherwise have to do by
 * moving the sandbox out of the process group that the log records and crash repair ends.
 */
export interface SandboxSpawn {
  readonly file: string
  readonly args: string[]
  /**
   * The stand-ins bwrap will create in the project (see `stand-ins.ts`): hold them with
   * `holdStandIns` before spawning and `releaseStandIns` once the sandbox has ended.
   */
  readonly standIns: string[]
}

/** Where temporary files go inside the sandbox: its private tmpfs, gone when the command ends. */
export const SANDBOX_TMP = '/tmp'

/**
 * The argv that runs `command` in the sandbox. Reads the file system (which hidden and read-only
 * paths exist, their real paths) and changes nothing but, once per process, the stand-ins'
 * sources in the temporary folder. Throws when `projectDir` does not exist, a
 * hidden path is relative or a read-only path is not inside the project: all are the caller's
 * bug, not the command's.
 *
 * Killing: bwrap is the sandbox's only link to the host. SIGTERM or SIGKILL to bwrap (or the
 * death of its parent, through `setpriv` and `--die-with-parent`) ends the sandbox's PID
 * namespace, and with
 * it every process the command started, including those that left its process group. bwrap
 * also ends the namespace when the shell exits, so background jobs never outlive the command.
 */
export function sandboxCommand(opts: SandboxCommandOptions): SandboxSpawn {
  const project = realpathOrUndefined(opts.projectDir)
  if (project === undefined) {
    throw new Error(
      `the project folder ${opts.projectDir} does not exist; a command cannot run in it`,
    )
  }
  const hidden = existingPaths(opts.hide)
  const outer = outermost(hidden.filter((h) => !isWithin(project, h.path)))
  const inner = outermost(hidden.filter((h) => isWithin(project, h.path)))
  // Where this user cannot create a file, neither can the command, and bwrap could not make
  // the stand-in's mount point: the command would not start at all.
  const absent = (opts.absent ?? []).filter((a) => !exists(a.path) && canCreateIn(dirname(a.path)))
  const readOnly = readOnlyPaths(
    [
      ...opts.readOnly,
      ...(opts.absent ?? []).filter((a) => !absent.includes(a)).map((a) => a.path),
    ],
    opts.projectDir,
    project,
  )
  const standIns = absent.map((a) => ({ ...a, path: inProject(a.path, opts.projectDir, project) }))
  const pinned = readOnlyPaths(opts.pinned ?? [], opts.projectDir, project)
  const sources = standIns.length > 0 ? standInSources() : undefined

  const args = [
    '--die-with-parent',
    // No --new-session: see SandboxSpawn.
    // Explicit even where bwrap would imply it: as root bwrap otherwise stays in the host's
    // user namespace, where a capability would act on the host itself.
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(opts.network ? [] : ['--unshare-net']),
    // bwrap keeps every capability when the sandbox uid is 0 (running as root), and a
    // capability undoes the rest (remount `/` read-write, chmod any file).
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    SANDBOX_TMP,
    ...outer.flatMap(maskArgs),
    '--bind',
    project,
    project,
    ...pinArgs([...readOnly, ...standIns.map((s) => s.path)], pinned, project),
    ...readOnly.flatMap((path) => ['--ro-bind', path, path]),
    ...standIns.flatMap((s) => [
      '--ro-bind',
      s.isFolder ? (sources?.folder ?? '') : (sources?.file ?? ''),
      s.path,
    ]),
    ...inner.flatMap(maskArgs),
    ...[...outer, ...inner].flatMap((h) => (h.isDir ? ['--remount-ro', h.path] : [])),
    '--setenv',
    'TMPDIR',
    SANDBOX_TMP,
    '--setenv',
    'TMP',
    SANDBOX_TMP,
    '--setenv',
    'TEMP',
    SANDBOX_TMP,
    '--chdir',
    opts.cwd,
    '--',
    opts.shell,
    '-c',
    opts.command,
  ]
  const made = standIns.map((s) => s.path)
  if (opts.setpriv === undefined) return { file: opts.bwrap, args, standIns: made }
  return {
    file: opts.setpriv,
    args: ['--pdeathsig', 'KILL', '--', opts.bwrap, ...args],
    standIns: made,
  }
}

interface Hidden {
  readonly path: string
  readonly isDir: boolean
}

/**
 * The real paths of those that exist. The real path, because a mount lands on a symlink's
 * target: masking the target also covers every other link to it.
 */
function existingPaths(paths: readonly string[]): Hidden[] {
  const found = new Map<string, Hidden>()
  for (const path of paths) {
    if (!isAbsolute(path)) throw new Error(`hidden path ${path} must be absolute`)
    const real = realpathOrUndefined(path)
    if (real === undefined) continue
    const info = statSync(real, { throwIfNoEntry: false })
    if (info) found.set(real, { path: real, isDir: info.isDirectory() })
  }
  return [...found.values()]
}

/** Drops paths inside another of the list: the outer mask already covers them. */
function outermost(list: readonly Hidden[]): Hidden[] {
  return list.filter((h) => !list.some((other) => other !== h && isWithin(other.path, h.path)))
}

/**
 * A folder becomes an empty tmpfs (made read-only at the end); anything else is replaced by
 * `/dev/null`, which reads as empty. `--dev-bind` because `--ro-bind` mounts with `nodev`, and
 * reading a device there fails with "Permission denied", which programs reading `~/.npmrc` or
 * `~/.netrc` treat as an error, not as an empty file. Writes to it are discarded.
 */
function maskArgs(h: Hidden): string[] {
  return h.isDir ? ['--tmpfs', h.path] : ['--dev-bind', '/dev/null', h.path]
}

/**
 * The real paths of the read-only paths that exist. One whose real path leaves the project is
 * skipped: outside the project everything is read-only (or private) already, and binding it
 * could bring a host `/tmp` path into the sandbox.
 */
function readOnlyPaths(paths: readonly string[], given: string, project: string): string[] {
  const out = new Set<string>()
  for (const path of paths) {
    if (!isAbsolute(path) || !(isWithin(given, path) || isWithin(project, path))) {
      throw new Error(
        `read-only path ${path} is not inside the project folder ${given}; only paths inside it can be protected`,
      )
    }
    const real = realpathOrUndefined(path)
    if (real !== undefined && real !== project && isWithin(project, real)) out.add(real)
  }
  // Outer before inner, so a read-only folder does not cover a read-only file inside it.
  return [...out].sort((a, b) => a.length - b.length)
}

/**
 * A missing path inside the project, under the project's real path: its parent exists (it is the
 * first missing name on its way), so the parent's real path and its own name.
 */
function inProject(path: string, given: string, project: string): string {
  if (!isAbsolute(path) || !(isWithin(given, path) || isWithin(project, path))) {
    throw new Error(
      `locked path ${path} is not inside the project folder ${given}; only paths inside it can be protected`,
    )
  }
  const parent = realpathOrUndefined(dirname(path))
  if (parent === undefined || !isWithin(project, parent)) {
    throw new Error(`locked path ${path} has no folder inside the project to be made in`)
  }
  return join(parent, basename(path))
}

/**
 * Binds each folder between the project and a locked path onto itself (read-write), and the
 * folders asked to be pinned. A mount point cannot be renamed or removed, so `mv .git .git-old`
 * followed by a fresh `.git` with new hooks fails instead of sidestepping the read-only
 * `.git/hooks`.
 */
function pinArgs(locked: readonly string[], pinned: readonly string[], project: string): string[] {
  const pins = new Set<string>(pinned)
  for (const path of locked) {
    const parts = relative(project, path).split(sep).slice(0, -1)
    for (let i = 1; i <= parts.length; i++) pins.add(join(project, ...parts.slice(0, i)))
  }
  return [...pins]
    .filter((pin) => !locked.includes(pin))
    .sort((a, b) => a.length - b.length)
    .flatMap((pin) => ['--bind', pin, pin])
}

function canCreateIn(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK | constants.X_OK)
    return true
  } catch {
    return false // Read-only, not ours, or gone.
  }
}

/** Whether anything, a dangling link included, has this name (bwrap would mount through it). */
function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false // Missing: a stand-in goes there.
  }
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined // Missing, or a dangling link: nothing to mask or protect.
  }
}
