import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { COMMIT_BUSY_WAIT_MS } from './constants.js'
import { hasEnded, processStartTicks, thisMachine } from './process-identity.js'
import { StoreError } from './types.js'

interface LockRecord {
  pid: number
  hostname: string
  token: string
  acquired_at: number
  /** Null in rows written before schema v6, or where /proc cannot be read. */
  start_ticks: number | null
  boot_id: string | null
}

/**
 * The tokens of the locks held in this process, by any Store. A lock row of this process whose
 * token is not here was released but could not be deleted (a full or read-only disk), or was
 * left by a Store that closed without releasing: nobody holds it, and it is taken over.
 */
const liveTokens = new Set<string>()

/**
 * Per-session writer locks, kept as rows of `session_locks` so every process that opens the file
 * sees them. Each acquisition gets its own token: a second Store in the same process, or a second
 * lock through the same Store, is refused like any other holder.
 *
 * A lock whose holder is gone is taken over, but only when the holder ran on this host. The row
 * names the holder by pid, kernel start time and boot (process-identity.ts), so the holder is
 * gone when its pid is free, when it is a zombie (killed, not yet reaped by its parent), when the
 * pid now belongs to a process that started at another time, or when the machine has restarted
 * since. Known limit: a row without a start time (written before schema v6, or on a system
 * without /proc) is judged by `kill(pid, 0)` alone, so a zombie or a reused pid looks alive.
 */
export class SessionLocks {
  private readonly held = new Map<string, string>()
  private readonly machine = thisMachine()
  private readonly host = this.machine.host
  /** This process as a holder: its start time and boot, null where they cannot be read. */
  private readonly self: readonly [number | null, string | null] = [
    processStartTicks(process.pid) ?? null,
    this.machine.bootId ?? null,
  ]
  private readonly select: Database.Statement<[string], LockRecord>
  private readonly insert: Database.Statement<
    [string, number, string, string, number, number | null, string | null]
  >
  private readonly replace: Database.Statement<
    [number, string, string, number, number | null, string | null, string, string]
  >
  private readonly remove: Database.Statement<[string, string]>
  private readonly sessionExists: Database.Statement<[string], number>

  constructor(
    private readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    this.select = db.prepare(
      'SELECT pid, hostname, token, acquired_at, start_ticks, boot_id FROM session_locks WHERE session_id = ?',
    )
    this.insert = db.prepare(
      'INSERT INTO session_locks (session_id, pid, hostname, token, acquired_at, start_ticks, boot_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    this.replace = db.prepare(
      'UPDATE session_locks SET pid = ?, hostname = ?, token = ?, acquired_at = ?, start_ticks = ?, boot_id = ? WHERE session_id = ? AND token = ?',
    )
    this.remove = db.prepare('DELETE FROM session_locks WHERE session_id = ? AND token = ?')
    this.sessionExists = db.prepare<[string], number>('SELECT 1 FROM sessions WHERE id = ?').pluck()
  }

  /** Takes the lock in one write transaction, or throws SESSION_LOCKED naming the holder. */
  lock(sessionId: string): () => void {
    const token = randomUUID()
    this.db
      .transaction(() => {
        if (this.sessionExists.get(sessionId) === undefined) {
          throw new StoreError(
            'NO_SUCH_SESSION',
            `cannot lock session ${sessionId}: there is no such session`,
          )
        }
        const holder = this.select.get(sessionId)
        const now = this.clock()
        if (holder === undefined) {
          this.insert.run(sessionId, process.pid, this.host, token, now, ...this.self)
        } else if (this.isGone(holder)) {
          this.replace.run(
            process.pid,
            this.host,
            token,
            now,
            ...this.self,
            sessionId,
            holder.token,
          )
        } else {
          throw new StoreError(
            'SESSION_LOCKED',
            `session ${sessionId} is open for writing by process ${holder.pid} on ${holder.hostname} ` +
              `since ${new Date(holder.acquired_at).toISOString()}. Close it there first` +
              (holder.hostname === this.host
                ? `, or end process ${holder.pid} if it is stuck.`
                : '; Bridle cannot tell from this machine whether that process still runs.'),
          )
        }
      })
      .immediate()
    this.held.set(sessionId, token)
    liveTokens.add(token)
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      this.release(sessionId, token)
    }
  }

  /** Releases every lock this Store still holds (at close). */
  releaseAll(): void {
    for (const [sessionId, token] of [...this.held]) this.release(sessionId, token)
  }

  /**
   * Never throws: it runs while a session closes, often because the disk just refused a write,
   * and that failure is the one to report. A row it cannot delete (disk full, read-only, locked)
   * stays held and is tried again at `releaseAll`; meanwhile a lock taken in this process takes
   * it over (see `liveTokens`), and once this process has exited, any opener does.
   */
  private release(sessionId: string, token: string): void {
    if (this.held.get(sessionId) !== token) return
    // Released from here on, whether or not its row can be deleted now.
    liveTokens.delete(token)
    if (!this.db.open) {
      this.held.delete(sessionId)
      return
    }
    // A brief wait for another program's write lock: a row left behind costs little.
    const wait = this.db.pragma('busy_timeout', { simple: true }) as number
    this.db.pragma(`busy_timeout = ${Math.min(wait, COMMIT_BUSY_WAIT_MS)}`)
    try {
      // Only our own row: if the lock was taken over meanwhile, the new holder keeps it.
      this.db.transaction(() => this.remove.run(sessionId, token)).immediate()
      this.held.delete(sessionId)
    } catch {
      // Left held, as the comment above says.
    } finally {
      this.db.pragma(`busy_timeout = ${wait}`)
    }
  }

  /** Whether the holder has certainly ended; a holder on another host cannot be judged. */
  private isGone(holder: LockRecord): boolean {
    if (holder.hostname !== this.host) return false
    const recorded = {
      pid: holder.pid,
      startTicks: holder.start_ticks ?? undefined,
      bootId: holder.boot_id ?? undefined,
    }
    if (holder.pid === process.pid && !hasEnded(recorded)) return !liveTokens.has(holder.token)
    return hasEnded(recorded)
  }
}
