/**
 * The process groups this harness started, ended however the harness ends.
 *
 * A command runs in its own process group (`builtin/bash.ts`), so a cancel or a timeout reaches
 * everything it started. What a cancel cannot cover is the harness itself going away: a second
 * Ctrl+C, a SIGKILL, a crash. For those:
 *
 * - `killAll(signal)` signals every group still tracked, synchronously, so a forced quit can end
 *   them before it exits (a group that ignores SIGTERM is not waited for).
 * - A watchdog outlives the harness: a tiny `/bin/sh` child in its own session, ignoring the
 *   terminal's signals, that reads `+<pgid>` / `-<pgid>` lines from a pipe only the harness
 *   holds. When the pipe closes (the harness exited, was killed or crashed: the kernel closes it
 *   in every case), it sends SIGTERM to every group still registered, waits up to
 *   `WATCHDOG_GRACE_MS` for them to go, then sends SIGKILL. It depends on nothing the harness
 *   does at its end, which is the point.
 *
 * Invariants: only groups this harness started are ever registered (pgid > 1); a group is
 * forgotten only once none of its processes runs, so background processes a command left behind
 * are ended too when the harness goes; a group number cannot be handed out again while any
 * member lives, so the watchdog never signals a stranger, except for a group that emptied and
 * was reused within the moment before it is forgotten (pids wrap around only after `pid_max`).
 *
 * Known limits: the watchdog's `trap` is set once its shell has started, so a signal sent to it
 * directly in its first milliseconds ends it (a terminal's never reach it: its own session); a
 * process that left its group (`setsid`) is not tracked; a harness killed in the
 * instant between starting a command and registering it leaves that command to the crash repair
 * at the session's next open (`processes.ts`, `endLeftoverProcess`); without `/bin/sh` (not
 * Linux or macOS) there is no watchdog and only `killAll` and cancels end commands.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { isGroupRunning, signalGroup } from './processes.js'

/** Between the watchdog's SIGTERM and its SIGKILL (the same grace a cancel gives). */
export const WATCHDOG_GRACE_MS = 1000

/**
 * The watchdog (see the module comment). `set -f` so a line can never glob; every pgid is checked
 * to be a number above 1 (`kill -- -0` would be its own group, `-1` everyone).
 */
const WATCHDOG_SCRIPT = `
trap '' INT TERM HUP QUIT
set -f
groups=' '
while read -r op pgid; do
  case $pgid in ''|0|1|*[!0-9]*) continue ;; esac
  case $op in
    +) groups="$groups$pgid " ;;
    -) case $groups in *" $pgid "*) groups="\${groups%% $pgid *} \${groups#* $pgid }" ;; esac ;;
  esac
done
set -- $groups
[ $# -eq 0 ] && exit 0
for g; do kill -s TERM -- "-$g" 2>/dev/null; done
tries=$(( ${Math.ceil(WATCHDOG_GRACE_MS / 100)} ))
while [ $tries -gt 0 ]; do
  alive=
  for g; do kill -s 0 -- "-$g" 2>/dev/null && alive=1; done
  [ -z "$alive" ] && exit 0
  sleep 0.1
  tries=$((tries - 1))
done
for g; do kill -s KILL -- "-$g" 2>/dev/null; done
`

const SHELL = '/bin/sh'

/** Forgets a group once none of it runs (now, or at a later look). Calling it again does nothing. */
export type ReleaseGroup = () => void

/**
 * Tracks process groups (see the module comment). One per harness process: `processReaper()`.
 * Never throws: a watchdog that cannot start leaves `killAll` and cancels as the only way out,
 * and `hasWatchdog` says so.
 */
export class ProcessReaper {
  private readonly groups = new Set<number>()
  /** Released while some of the group still ran: forgotten at a later look once empty. */
  private readonly lingering = new Set<number>()
  private watchdog: ChildProcess | undefined
  private hasFailed = false

  constructor(private readonly shell: string = SHELL) {}

  /** Whether a watchdog is running for this process (false before the first `track`). */
  get hasWatchdog(): boolean {
    return this.watchdog !== undefined && this.watchdog.exitCode === null
  }

  /** The watchdog's pid, for tests and diagnostics. */
  get watchdogPid(): number | undefined {
    return this.hasWatchdog ? this.watchdog?.pid : undefined
  }

  /** The groups tracked now, lingering ones included. */
  get tracked(): readonly number[] {
    return [...this.groups]
  }

  /**
   * Registers a group the harness just started, with the watchdog too. Returns the release to
   * call once the command's call is over: the group is forgotten when none of it runs any more.
   */
  track(pgid: number): ReleaseGroup {
    if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`not a process group: ${pgid}`)
    this.prune()
    this.groups.add(pgid)
    this.tell(`+ ${pgid}`)
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      this.lingering.add(pgid)
      this.prune()
    }
  }

  /**
   * Sends `signal` to every tracked group, at once and synchronously (for a forced quit: SIGKILL,
   * since there is no time left for a grace period). Returns how many groups still ran.
   */
  killAll(signal: NodeJS.Signals): number {
    let running = 0
    for (const pgid of this.groups) {
      if (!isGroupRunning(pgid)) continue
      running++
      signalGroup(pgid, signal)
    }
    return running
  }

  /** Forgets lingering groups none of whose processes runs any more. */
  private prune(): void {
    for (const pgid of this.lingering) {
      if (isGroupRunning(pgid)) continue
      this.lingering.delete(pgid)
      this.groups.delete(pgid)
      this.tell(`- ${pgid}`)
    }
  }

  /** One line to the watchdog, started on first use. */
  private tell(line: string): void {
    const watchdog = this.startWatchdog()
    // A pipe write of a few bytes goes out at once (libuv tries it synchronously); a failure
    // means the watchdog is gone, which `hasWatchdog` reports.
    watchdog?.stdin?.write(`${line}\n`)
  }

  private startWatchdog(): ChildProcess | undefined {
    if (this.watchdog || this.hasFailed) return this.watchdog
    if (!existsSync(this.shell)) {
      this.hasFailed = true
      return undefined
    }
    const child = spawn(this.shell, ['-c', WATCHDOG_SCRIPT], {
      // Its own session: a Ctrl+C or a hangup of the terminal reaches the harness, not it.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
    })
    child.on('error', () => {
      // Could not start (or its pipe broke): only killAll and cancels end commands now.
      this.hasFailed = true
    })
    child.stdin.on('error', () => {
      // EPIPE: the watchdog died; nothing more can be told to it.
    })
    // Neither keeps the harness running: its end is what the watchdog waits for.
    child.unref()
    // A pipe's stdin is a net.Socket, which the Writable type does not show.
    ;(child.stdin as unknown as { unref?: () => void }).unref?.()
    this.watchdog = child
    return child
  }
}

let own: ProcessReaper | undefined

/**
 * This process's reaper. One per process by nature (the watchdog watches this process), so it is
 * shared rather than passed around; tests make their own `ProcessReaper`.
 */
export function processReaper(): ProcessReaper {
  own ??= new ProcessReaper()
  return own
}
