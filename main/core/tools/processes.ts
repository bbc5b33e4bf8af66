/**
 * Commands as processes: naming one well enough to find it again (its group and kernel start
 * time), and ending what a crash left running. Linux reads `/proc`; elsewhere the start time is
 * unknown and a recorded group is ended only while its leader still answers signals.
 */
import { readdirSync, readFileSync } from 'node:fs'
import type { CallProcess } from '../log/lifecycle.js'

interface ProcStat {
  readonly state: string
  readonly pgrp: number
  readonly startTicks: number
}

/** `/proc/<pid>/stat`, or undefined when the process is gone (or there is no /proc). */
function procStat(pid: number | string): ProcStat | undefined {
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

/** When the process started, in clock ticks since boot; undefined when it cannot be read. */
export function processStartTicks(pid: number): number | undefined {
  const ticks = procStat(pid)?.startTicks
  return ticks === undefined || !Number.isFinite(ticks) ? undefined : ticks
}

const isLive = (stat: ProcStat) => stat.state !== 'Z' && stat.state !== 'X'

/** The live processes of group `pgid`; undefined without /proc. */
export function groupMembers(pgid: number): number[] | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  const members: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(entry)
    if (stat && stat.pgrp === pgid && isLive(stat)) members.push(Number(entry))
  }
  return members
}

/**
 * The live members of the recorded command's group, or [] when the number now belongs to
 * someone else. A group number cannot be handed out again while any member lives, so only a
 * live leader with another start time means reuse.
 */
function recordedMembers(record: CallProcess): number[] | undefined {
  const leader = procStat(record.pgid)
  if (
    leader &&
    isLive(leader) &&
    record.startTicks !== undefined &&
    leader.startTicks !== record.startTicks
  )
    return []
  return groupMembers(record.pgid)
}

/** Whether any process of the group still runs (zombies do not count). */
export function isGroupRunning(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  const members = groupMembers(pgid)
  return members === undefined ? true : members.length > 0
}

/** Signals the whole group; a group already gone is what we wanted. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal)
  } catch {
    // ESRCH: nothing left to signal.
  }
}

/** How long crash repair waits for a killed group to vanish before reporting anyway. */
const REPAIR_SETTLE_MS = 1000

/**
 * Crash repair's hook: ends the command a crashed run left behind, if it still runs and is the
 * same command (its leader, if alive, started when recorded), and says
 * in one sentence what it found. Synchronous, so the repair stays one step: SIGKILL at once (the
 * program that would have handled a gentler signal is long gone), then a short wait.
 */
export function endLeftoverProcess(record: CallProcess): string {
  const members = recordedMembers(record)
  if (members === undefined) {
    // No /proc: only the leader's own answer to a signal tells us anything.
    if (!isGroupRunning(record.pgid)) return 'Its command had already ended.'
    signalGroup(record.pgid, 'SIGKILL')
    return `Its command (process group ${record.pgid}) may have been still running; it was sent SIGKILL.`
  }
  if (members.length === 0) return 'Its command had already ended.'
  signalGroup(record.pgid, 'SIGKILL')
  const deadline = Date.now() + REPAIR_SETTLE_MS
  const pause = new Int32Array(new SharedArrayBuffer(4))
  while ((groupMembers(record.pgid)?.length ?? 0) > 0 && Date.now() < deadline)
    Atomics.wait(pause, 0, 0, 20)
  const left = groupMembers(record.pgid)?.length ?? 0
  const what = `${members.length} process${members.length === 1 ? '' : 'es'} (group ${record.pgid})`
  return left === 0
    ? `Its command was still running after the crash: ${what} stopped.`
    : `Its command was still running after the crash: ${what} sent SIGKILL, ${left} not yet gone.`
}
