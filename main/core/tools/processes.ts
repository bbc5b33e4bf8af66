/**
 * Commands as processes: naming one well enough to find it again (its group, kernel start time,
 * boot and host: `../store/process-identity.ts`), and ending what a crash left running, but only
 * what this installation provably started. Linux reads `/proc`; elsewhere nothing can be proven
 * and crash repair signals nothing.
 */
import { readdirSync } from 'node:fs'
import { hostname } from 'node:os'
import type { CallProcess } from '../log/lifecycle.js'
import {
  bootId,
  isRunningState,
  ownProcessGroup,
  procStat,
  processStartTicks,
  thisMachine,
} from '../store/process-identity.js'

export { processStartTicks, thisMachine }

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
    if (stat && stat.pgrp === pgid && isRunningState(stat)) members.push(Number(entry))
  }
  return members
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

/** What crash repair may do with a recorded command: why not, or that it is provably ours. */
type Verdict =
  | { readonly kind: 'ended'; readonly why?: string }
  | { readonly kind: 'unproven'; readonly why: string }
  | { readonly kind: 'ours' }

/**
 * Whether the recorded command is provably one this installation started and still runs: the
 * record was made here (not imported), on this host and boot, names a group that is not 1 or
 * less and not the caller's own, and its leader runs with the recorded start time. A record
 * without host, boot or start time (an older Bridle, a hand-edited log) proves nothing.
 */
function judge(record: CallProcess): Verdict {
  const { pid, pgid } = record
  if (record.imported === true)
    return {
      kind: 'unproven',
      why: 'the record came with an imported session, and Bridle never signals a process it did not start on this machine',
    }
  if (pgid <= 1 || pid !== pgid)
    return { kind: 'unproven', why: `group ${pgid} is not one a command of Bridle leads` }
  if (pgid === ownProcessGroup() || pid === process.pid)
    return { kind: 'unproven', why: 'it is the process group Bridle itself runs in' }
  if (record.host === undefined || record.bootId === undefined || record.startTicks === undefined)
    return {
      kind: 'unproven',
      why: 'the record does not say on which host, in which boot and when it started (an older Bridle or an edited log), so Bridle cannot prove it started that process',
    }
  if (record.host !== hostname())
    return { kind: 'unproven', why: `it was started on another host (${record.host})` }
  const boot = bootId()
  if (boot === undefined)
    return { kind: 'unproven', why: 'this system does not say which boot it is in (no /proc)' }
  if (record.bootId !== boot) return { kind: 'ended', why: 'the machine has restarted since' }
  const leader = procStat(pid)
  if (leader === undefined || !isRunningState(leader)) {
    const left = groupMembers(pgid)?.length ?? 0
    return left === 0
      ? { kind: 'ended' }
      : {
          kind: 'unproven',
          why: `its first process (${pid}) has ended, so Bridle cannot prove that the ${left} process${left === 1 ? '' : 'es'} left in group ${pgid} are the command's; end them yourself if they are`,
        }
  }
  if (leader.startTicks !== record.startTicks)
    return { kind: 'ended', why: `process ${pid} is now another program` }
  if (leader.pgrp !== pgid)
    return { kind: 'unproven', why: `process ${pid} has left group ${pgid}` }
  return { kind: 'ours' }
}

/** How long crash repair waits for a killed group to vanish before reporting anyway. */
const REPAIR_SETTLE_MS = 1000

/**
 * Crash repair's hook: ends the command a crashed run left behind, if it still runs and is
 * provably the one this installation started (`judge`), and says in one sentence what it found,
 * including why a command was not stopped. Never signals anything else: not an imported record,
 * not group 1 or below, not the caller's own group. Synchronous, so the repair stays one step:
 * SIGKILL at once (the program that would have handled a gentler signal is long gone), then a
 * short wait.
 */
export function endLeftoverProcess(record: CallProcess): string {
  const verdict = judge(record)
  if (verdict.kind === 'ended')
    return `Its command had already ended${verdict.why === undefined ? '' : ` (${verdict.why})`}.`
  if (verdict.kind === 'unproven')
    return `Its command (process group ${record.pgid}) was not stopped: ${verdict.why}.`
  const members = groupMembers(record.pgid) ?? []
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
