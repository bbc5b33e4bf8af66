/**
 * Who a process really is, beyond its number: a pid is handed out again once its process is
 * gone, and a process that has ended but was not yet reaped (a zombie) still answers
 * `kill(pid, 0)`. A process is named here by its pid, its kernel start time (clock ticks since
 * boot, `/proc/<pid>/stat` field 22), the boot it ran in (`/proc/sys/kernel/random/boot_id`) and
 * the host. The same pid with another start time, in another boot, or in state Z or X, is not
 * the process that was recorded.
 *
 * The one place this knowledge lives: the store's writer locks (a dead holder is dead) and the
 * tools' crash repair (signal only what this installation started) both ask here. It sits in the
 * store, the lowest layer with Node, so the store need not import the tools. Linux reads `/proc`;
 * elsewhere `procStat` and `bootId` return undefined and callers must treat that as "unknown".
 */
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/** What `/proc/<pid>/stat` says of a process. */
export interface ProcStat {
  /** R, S, D, T, ... ; Z (zombie) and X (dead) mean the process has ended. */
  readonly state: string
  readonly pgrp: number
  /** Start time in clock ticks since boot. */
  readonly startTicks: number
}

/** Where a process was started: the host and the boot (undefined where it cannot be read). */
export interface Machine {
  readonly host: string
  readonly bootId?: string
}

/** `/proc/<pid>/stat`, or undefined when the process is gone (or there is no /proc). */
export function procStat(pid: number | string): ProcStat | undefined {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // After the command name (which may hold spaces and parentheses): state ppid pgrp ... and
  // starttime is field 22 of the whole line, the 20th after the name.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return {
    state: fields[0] ?? '?',
    pgrp: Number(fields[2]),
    startTicks: Number(fields[19]),
  }
}

/** Whether this system has a /proc to read processes from (Linux). */
export function hasProc(): boolean {
  return procStat('self') !== undefined
}

/** Whether a process in this state still runs: a zombie (Z) or a dead one (X) has ended. */
export const isRunningState = (stat: ProcStat): boolean => stat.state !== 'Z' && stat.state !== 'X'

/** When the process started, in clock ticks since boot; undefined when it cannot be read. */
export function processStartTicks(pid: number): number | undefined {
  const ticks = procStat(pid)?.startTicks
  return ticks === undefined || !Number.isFinite(ticks) ? undefined : ticks
}

/** The process group this process runs in; undefined without /proc. */
export function ownProcessGroup(): number | undefined {
  const pgrp = procStat('self')?.pgrp
  return pgrp === undefined || !Number.isFinite(pgrp) ? undefined : pgrp
}

let cachedBootId: string | undefined | null = null

/** This boot's id (a fresh UUID at every start of the kernel); undefined without /proc. */
export function bootId(): string | undefined {
  if (cachedBootId !== null) return cachedBootId
  try {
    cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    cachedBootId = undefined
  }
  return cachedBootId
}

/** This host and boot, as recorded next to a pid. */
export function thisMachine(): Machine {
  const boot = bootId()
  return { host: hostname(), ...(boot === undefined ? {} : { bootId: boot }) }
}

/** A process as recorded: its pid and, when known, its start time and boot. */
export interface RecordedProcess {
  readonly pid: number
  readonly startTicks?: number | undefined
  readonly bootId?: string | undefined
}

/**
 * Whether the recorded process (on this host) has certainly ended: its boot is over, its pid is
 * free, it is a zombie or dead, or the pid now belongs to a process that started at another
 * time. False when it still runs or when nothing can be told (no /proc: then only `kill(pid, 0)`
 * answers, and a zombie or a reused pid looks alive). Never throws.
 */
export function hasEnded(recorded: RecordedProcess): boolean {
  const boot = bootId()
  if (recorded.bootId !== undefined && boot !== undefined && recorded.bootId !== boot) return true
  if (!hasProc()) return !answersSignals(recorded.pid)
  const stat = procStat(recorded.pid)
  if (stat === undefined || !isRunningState(stat)) return true
  return recorded.startTicks !== undefined && stat.startTicks !== recorded.startTicks
}

/** `kill(pid, 0)`: ESRCH means no such process; EPERM means it exists but is someone else's. */
function answersSignals(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
